// This thread's CPU time. On a machine shared with other work, wall time of a one-thread compute
// grows with the others' load while its CPU time does not, so profiles and stream chunk timings
// report both (at one thread the calling thread's CPU time is all of the compute's).
#pragma once

#ifdef _WIN32
#include <windows.h>
#else
#include <ctime>
#endif

namespace parakeet {

inline double thread_cpu_ms() {
#ifdef _WIN32
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) return 0.0;
    const auto ticks = [](const FILETIME & f) { return (unsigned long long)f.dwHighDateTime << 32 | f.dwLowDateTime; };
    return double(ticks(kernel) + ticks(user)) * 1e-4;  // 100 ns ticks
#else
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
#endif
}

}  // namespace parakeet
