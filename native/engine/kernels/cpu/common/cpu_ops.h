// What the engine's CPU custom ops share: the run-time CPU feature checks (cpu_features.h: the ops
// are compiled for AVX-512 by target attributes, whatever the build's -march, and run only where the
// CPU has it) and the even split of a range over ggml's worker threads.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu_features.h"

namespace parakeet {

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
