// parakeet_engine_tests [case]: runs one registered case (ctest runs each on
// its own) or, without an argument, every case. Exit status 0 = all passed.
#include <cstring>

#include "check.h"

int main(int argc, char ** argv) {
    int ran = 0;
    for (const parakeet_tests::Case & c : parakeet_tests::registry()) {
        if (argc > 1 && c.name != argv[1]) continue;
        const int before = parakeet_tests::failures();
        try {
            c.run();
        } catch (const std::exception & e) {
            parakeet_tests::fail(__FILE__, __LINE__, c.name + " threw: " + e.what());
        }
        std::cout << (parakeet_tests::failures() == before ? "ok   " : "FAIL ") << c.name << "\n";
        ++ran;
    }
    if (ran == 0) {
        std::cerr << "no test case named '" << (argc > 1 ? argv[1] : "") << "'\n";
        return 2;
    }
    return parakeet_tests::failures() == 0 ? 0 : 1;
}
