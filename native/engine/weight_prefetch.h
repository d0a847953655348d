// Spreading the prefetch of a GEMM's next weight block over the frame tiles that use this one.
//
// Every packed kernel streams its weights from DRAM once per call (a model is larger than L3),
// while each block of weights is reused by every frame tile. Prefetching the next block all at
// once (or leaving it to the hardware prefetcher) fills the core's line-fill buffers with DRAM
// misses, and the tile's own loads from L2 wait behind them. Handing each tile an equal slice of
// the next block, a line every few k steps, keeps the stream steady: ≈ 10–15 % of the F32
// kernel's rate on cold weights.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "simd_math.h"

namespace parakeet {

/** One tile's slice of the next block: `tick()` once per k step prefetches its lines into L2. */
class PrefetchShare {
public:
    PrefetchShare() = default;
    PrefetchShare(const char * first, const char * end, int64_t steps_per_burst, int64_t burst)
        : next_(first), end_(end), step_(std::max<int64_t>(1, steps_per_burst)), countdown_(1), burst_(burst) {}
#ifdef PARAKEET_X86
    PARAKEET_AVX512 inline __attribute__((always_inline)) void tick() {
        if (--countdown_ != 0) return;
        countdown_ = step_;
        for (int64_t b = 0; b < burst_ && next_ < end_; ++b, next_ += 64) _mm_prefetch(next_, _MM_HINT_T1);
    }
    PARAKEET_AVX512 inline __attribute__((always_inline)) void burst() {
        for (; next_ < end_; next_ += 64) _mm_prefetch(next_, _MM_HINT_T1);
    }
#else
    void tick() {}
#endif

private:
    const char * next_ = nullptr;
    const char * end_ = nullptr;
    int64_t step_ = 1, countdown_ = 1, burst_ = 0;
};

/** The next block (`bytes` from `data`), shared out over `tiles` tiles of `steps` k steps each. */
struct PrefetchBlock {
    const char * data;
    size_t bytes;
    int64_t tiles;
    int64_t steps;

    PrefetchShare share(int64_t tile) const {
        const int64_t lines = int64_t((bytes + 63) / 64);
        const int64_t per_tile = (lines + tiles - 1) / std::max<int64_t>(1, tiles);
        const int64_t first = std::min(lines, tile * per_tile), count = std::min(per_tile, lines - first);
        if (count <= 0 || steps <= 0) return PrefetchShare();
        const int64_t burst = (count + steps - 1) / steps;
        return PrefetchShare(data + first * 64, data + (first + count) * 64, steps * burst / count, burst);
    }
};

}  // namespace parakeet
