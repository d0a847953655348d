// The frame tile the 256-bit block-scaled kernels share (q8_0_ymm_tile.inc, i16_ymm_tile.inc): MR
// frames × one panel of 32 output rows as four 8-lane accumulators per frame, started from y (a
// later chunk of inputs) or zero, and stored through the node's epilogue on the last chunk. The
// 512-bit kernels' start_tile / end_tile (packed_op.h) on ymm; the frame mask zeroes a whole frame.
#pragma once

#include "packed_op.h"
#include "simd_math_avx2.h"

#ifdef PARAKEET_X86

namespace parakeet {

template <int MR>
PARAKEET_AVX2 inline void start_tile256(__m256 (&acc)[MR][4], const float * y, size_t y_stride, bool accumulate) {
    if (!accumulate) prefetch_tile_outputs<MR>(y, y_stride);
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < 4; ++v) acc[r][v] = accumulate ? _mm256_loadu_ps(y + size_t(r) * y_stride + 8 * v) : _mm256_setzero_ps();
}

/** The epilogue `ep` on the tile (frames from t0, outputs from col0); a frame the mask drops becomes zeros. */
template <int MR>
PARAKEET_AVX2 inline void finish_tile256(__m256 (&acc)[MR][4], const EpilogueView & ep, int64_t t0, int64_t col0) {
    for (int r = 0; r < MR; ++r) {
        const bool keep = ep.frame_keep(t0 + r) != 0.0f;
        for (int v = 0; v < 4; ++v) {
            __m256 o = finish_outputs256(acc[r][v], ep.bias_at(col0 + 8 * v), ep.silu, ep.residual_at(t0 + r, col0 + 8 * v), ep.scale);
            if (ep.relu) o = _mm256_max_ps(o, _mm256_setzero_ps());
            acc[r][v] = keep ? o : _mm256_setzero_ps();
        }
    }
}

/** The tile into y, through the epilogue `ep` (frames from t0, outputs from col0) on the last chunk (else nullptr). */
template <int MR>
PARAKEET_AVX2 inline void end_tile256(__m256 (&acc)[MR][4], float * y, size_t y_stride, const EpilogueView * ep, int64_t t0, int64_t col0) {
    if (ep != nullptr) finish_tile256<MR>(acc, *ep, t0, col0);
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < 4; ++v) _mm256_storeu_ps(y + size_t(r) * y_stride + 8 * v, acc[r][v]);
}

}  // namespace parakeet

#endif
