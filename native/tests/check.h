// A minimal test harness for the engine's C++ tests (no framework to ship):
// TEST(name) registers a case, CHECK(cond) records a failure with its line.
// The test executable runs one named case (how ctest calls it) or all.
#pragma once

#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace parakeet_tests {

struct Case {
    std::string name;
    std::function<void()> run;
};

inline std::vector<Case> & registry() {
    static std::vector<Case> cases;
    return cases;
}

inline int & failures() {
    static int n = 0;
    return n;
}

struct Register {
    Register(const char * name, std::function<void()> run) { registry().push_back({name, std::move(run)}); }
};

template <typename T>
std::string text_of(const T & value) {
    return std::to_string(value);
}
inline std::string text_of(const std::string & value) { return "'" + value + "'"; }

/** Set by skip(): the case could not run here (ctest shows it as skipped: exit code 77). */
inline std::string & skipped_because() {
    static std::string why;
    return why;
}
inline void skip(const std::string & why) { skipped_because() = why; }
/** True (and the case marked skipped, with `why`) when `available` is false: `if (skip_unless(x, "…")) return;`. */
inline bool skip_unless(bool available, const std::string & why) {
    if (!available) skip(why);
    return !available;
}

inline void fail(const char * file, int line, const std::string & what) {
    std::cerr << file << ":" << line << ": " << what << "\n";
    ++failures();
}

}  // namespace parakeet_tests

#define PT_CONCAT2(a, b) a##b
#define PT_CONCAT(a, b) PT_CONCAT2(a, b)
#define TEST(name)                                                                 \
    static void name();                                                            \
    static const parakeet_tests::Register PT_CONCAT(register_, name)(#name, name); \
    static void name()
#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) parakeet_tests::fail(__FILE__, __LINE__, "CHECK(" #cond ") failed"); \
    } while (0)
#define CHECK_EQ(a, b)                                                                                                                          \
    do {                                                                                                                                        \
        const auto pt_a = (a);                                                                                                                  \
        const auto pt_b = (b);                                                                                                                  \
        if (!(pt_a == pt_b)) {                                                                                                                  \
            parakeet_tests::fail(                                                                                                               \
                    __FILE__, __LINE__,                                                                                                         \
                    std::string("CHECK_EQ(" #a ", " #b ") failed: ") + parakeet_tests::text_of(pt_a) + " != " + parakeet_tests::text_of(pt_b)); \
        }                                                                                                                                       \
    } while (0)
