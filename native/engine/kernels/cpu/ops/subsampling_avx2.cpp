// subsampling_op.cpp's conv0_row and depthwise_row on 8-lane vectors: the same taps in the same
// order (one FMA chain per channel), so the same sums up to FMA contraction.
#include "subsampling_avx2.h"

#include <cstddef>
#include <cstring>
#include <vector>

#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_AVX2 void conv0_row_avx2(const float * mel, int64_t m_bins, int64_t rows, int64_t h1, int64_t w1_count, int64_t c_count, const float * taps,
                                  const float * bias, float keep, float * out) {
    if (keep == 0.0f) {
        std::memset(out, 0, size_t(w1_count * c_count) * sizeof(float));
        return;
    }
    // Every output column's 9 input pixels (zero outside the image), then channel block by block
    // with the block's 9 taps in registers (conv0_row says why).
    thread_local std::vector<float> pixels;
    conv0_pixels(mel, m_bins, rows, h1, w1_count, pixels);
    const __m256 vkeep = _mm256_set1_ps(keep);
    for (int64_t c = 0; c < c_count; c += 8) {
        __m256 tap[9];
        for (int t = 0; t < 9; ++t) tap[t] = _mm256_loadu_ps(taps + t * c_count + c);
        const __m256 b = _mm256_loadu_ps(bias + c);
        for (int64_t w1 = 0; w1 < w1_count; ++w1) {
            const float * px = pixels.data() + w1 * 9;
            __m256 acc = b;
            for (int t = 0; t < 9; ++t) acc = _mm256_fmadd_ps(_mm256_broadcast_ss(px + t), tap[t], acc);
            acc = _mm256_max_ps(acc, _mm256_setzero_ps());  // ReLU
            if (keep != 1.0f) acc = _mm256_mul_ps(acc, vkeep);
            _mm256_storeu_ps(out + w1 * c_count + c, acc);
        }
    }
}

PARAKEET_AVX2 void depthwise_row_avx2(const float * const (&in_rows)[3], int64_t w_in, int64_t c_count, const float * dw, float * out_row,
                                      int64_t w_out) {
    for (int64_t w2 = 0; w2 < w_out; ++w2) {
        for (int64_t c = 0; c < c_count; c += 8) {
            __m256 acc = _mm256_setzero_ps();
            for (int ky = 0; ky < 3; ++ky) {
                if (in_rows[ky] == nullptr) continue;
                for (int kx = 0; kx < 3; ++kx) {
                    const int64_t w1 = 2 * w2 - 1 + kx;
                    if (w1 < 0 || w1 >= w_in) continue;
                    acc = _mm256_fmadd_ps(_mm256_loadu_ps(dw + (ky * 3 + kx) * c_count + c), _mm256_loadu_ps(in_rows[ky] + w1 * c_count + c), acc);
                }
            }
            _mm256_storeu_ps(out_row + w2 * c_count + c, acc);
        }
    }
}

#else  // never called off x86 (fused_subsampling_available)

void conv0_row_avx2(const float *, int64_t, int64_t, int64_t, int64_t, int64_t, const float *, const float *, float, float *) {}
void depthwise_row_avx2(const float * const (&)[3], int64_t, int64_t, const float *, float *, int64_t) {}

#endif

}  // namespace parakeet
