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

/**
 * One tile's slice of the next block. Either `tick()` once per k step, which spreads its lines evenly
 * over the steps, or `front()` once at the tile's start and `tick_line()` once per step: one line a
 * step, branch-free (the last line again once they run out), the lines beyond one per step at the
 * start. The second costs fewer instructions in a loop whose every port counts (the VNNI Q8_0 kernel:
 * 3–4 % of its rate on weights from DRAM).
 */
class PrefetchShare {
public:
    PrefetchShare() = default;
    PrefetchShare(const char * first, const char * end, int64_t steps, int64_t steps_per_burst, int64_t burst)
            : next_(first),
              end_(end),
              last_(end - 64),
              steps_(steps),
              step_(std::max<int64_t>(1, steps_per_burst)),
              countdown_(1),
              burst_(burst),
              per_step_((end - first) / 64 > kFrontLimit * steps ? burst : 1) {}
#ifdef PARAKEET_X86
    // No target attribute: PREFETCHT1 is baseline x86-64, so the AVX2 and AVX-512 kernels both inline these.
    inline __attribute__((always_inline)) void tick() {
        if (--countdown_ != 0) return;
        countdown_ = step_;
        for (int64_t b = 0; b < burst_ && next_ < end_; ++b, next_ += 64) _mm_prefetch(next_, _MM_HINT_T1);
    }
    inline __attribute__((always_inline)) void burst() {
        for (; next_ < end_; next_ += 64) _mm_prefetch(next_, _MM_HINT_T1);
    }
    inline __attribute__((always_inline)) void front() {
        for (; end_ - next_ > steps_ * per_step_ * 64; next_ += 64) _mm_prefetch(next_, _MM_HINT_T1);
    }
    // `per_step_` lines a step: 1 where a block has many frame tiles (the offline case); a stream's
    // chunk of 1–14 frames has 1–3 tiles, whose share of the next block is ≈ 400–1150 lines, and front()
    // issued all but one a step at once: the prefetches beyond the core's miss queues were dropped, the
    // tile's loads then missed to DRAM and a 0.6B chunk's GEMM time was its memory time plus its compute
    // (7 / 14 frames: 55 / 79 ms CPU, 1 frame 31; spread evenly 47 / 55, bench:streaming --profile).
    inline __attribute__((always_inline)) void tick_line() {
        for (int64_t b = 0; b < per_step_; ++b) {
            _mm_prefetch(next_, _MM_HINT_T1);
            next_ += next_ < last_ ? 64 : 0;  // stays on the last line
        }
    }
#else
    void tick() {}
    void front() {}
    void tick_line() {}
#endif

private:
    static inline const char kNoLine[64] = {};  // an empty share's one line (tick_line has something to point at)
    const char * next_ = kNoLine;
    const char * end_ = kNoLine;
    const char * last_ = kNoLine;
    int64_t steps_ = 0, step_ = 1, countdown_ = 1, burst_ = 0;
    int64_t per_step_ = 1;  // lines tick_line() issues (front() the rest beyond them at the start)
    // A share of more than this many lines a step is spread over the steps instead of front-loaded.
    static constexpr int64_t kFrontLimit = 4;
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
        return PrefetchShare(data + first * 64, data + (first + count) * 64, steps, steps * burst / count, burst);
    }
};

}  // namespace parakeet
