// What the engine's CPU custom ops share: run-time CPU feature checks (the ops are compiled for
// AVX-512 by target attributes, whatever the build's -march, and run only where the CPU has it)
// and the even split of a range over ggml's worker threads.
#pragma once

#include <algorithm>
#include <cstdint>

namespace parakeet {

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
inline bool cpu_has_avx512f() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}
/** AVX512F/BW/VL + AVX512-VNNI + F16C: what the Q8_0 kernel uses. */
inline bool cpu_has_avx512_vnni() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("f16c");
}
#else
inline bool cpu_has_avx512f() { return false; }
inline bool cpu_has_avx512_vnni() { return false; }
#endif

/** Thread `ith` of `nth` takes [begin, end) of [0, n): contiguous, even shares. */
struct ThreadShare {
    int64_t begin, end;
};
inline ThreadShare thread_share(int64_t n, int ith, int nth) {
    const int64_t per = (n + nth - 1) / nth;
    const int64_t begin = std::min<int64_t>(n, per * ith);
    return {begin, std::min<int64_t>(n, begin + per)};
}

}  // namespace parakeet
