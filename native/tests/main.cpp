// parakeet_engine_tests [case]: runs one registered case (ctest runs each on
// its own) or, without an argument, every case. Exit status 0 = all passed; 77 = the one case asked
// for could not run on this machine (ctest's SKIP_RETURN_CODE).
#include <cstring>

#include "check.h"

int main(int argc, char ** argv) {
    int ran = 0, skipped = 0;
    for (const parakeet_tests::Case & c : parakeet_tests::registry()) {
        if (argc > 1 && c.name != argv[1]) continue;
        const int before = parakeet_tests::failures();
        parakeet_tests::skipped_because().clear();
        try {
            c.run();
        } catch (const std::exception & e) {
            parakeet_tests::fail(__FILE__, __LINE__, c.name + " threw: " + e.what());
        }
        const bool passed = parakeet_tests::failures() == before;
        if (passed && !parakeet_tests::skipped_because().empty()) {
            std::cout << "skip " << c.name << ": " << parakeet_tests::skipped_because() << "\n";
            ++skipped;
        } else {
            std::cout << (passed ? "ok   " : "FAIL ") << c.name << "\n";
        }
        ++ran;
    }
    if (ran == 0) {
        std::cerr << "no test case named '" << (argc > 1 ? argv[1] : "") << "'\n";
        return 2;
    }
    if (parakeet_tests::failures() != 0) return 1;
    return ran == 1 && skipped == 1 ? 77 : 0;
}
