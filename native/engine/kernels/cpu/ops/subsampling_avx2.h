// The fused subsampling op's two row steps (subsampling_op.cpp) on AVX2 + FMA (kernel id
// subsampling_avx2), for CPUs without AVX-512. Call only where cpu_has_avx2() (cpu_features.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace parakeet {

/**
 * conv.0's input for output row h1, shared by both row steps: the 9 pixels (ky·3 + kx) of every
 * output column, zero outside the image (padding 1), into `pixels` [w1_count][9].
 */
inline void conv0_pixels(const float * mel, int64_t m_bins, int64_t rows, int64_t h1, int64_t w1_count, std::vector<float> & pixels) {
    pixels.resize(size_t(w1_count) * 9);
    for (int64_t w1 = 0; w1 < w1_count; ++w1) {
        for (int ky = 0; ky < 3; ++ky) {
            const int64_t r = 2 * h1 - 1 + ky;
            for (int kx = 0; kx < 3; ++kx) {
                const int64_t m = 2 * w1 - 1 + kx;
                pixels[size_t(w1 * 9 + ky * 3 + kx)] = (r >= 0 && r < rows && m >= 0 && m < m_bins) ? mel[r * m_bins + m] : 0.0f;
            }
        }
    }
}

/**
 * NeMo dw_striding's conv.0 (1 → C, 3×3, stride 2, padding 1) + bias + ReLU for output row h1: all
 * w1_count columns × c_count channels (a multiple of 8) into `out` [w1][c], times `keep` (the
 * valid-row mask; 0 writes zeros). mel [rows][m_bins]; taps [9][C] (ky·3 + kx), bias [C].
 */
void conv0_row_avx2(const float * mel, int64_t m_bins, int64_t rows, int64_t h1, int64_t w1_count, int64_t c_count, const float * taps,
                    const float * bias, float keep, float * out);

/**
 * One output row of the 3×3 stride-2 depthwise conv (padding 1; Conv2d with groups = C): column w2
 * reads input columns 2·w2−1 … 2·w2+1 of the three rows (nullptr: a zero row), channels fastest.
 */
void depthwise_row_avx2(const float * const (&in_rows)[3], int64_t w_in, int64_t c_count, const float * dw, float * out_row, int64_t w_out);

}  // namespace parakeet
