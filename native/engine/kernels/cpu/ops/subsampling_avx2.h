// The fused subsampling op's two row steps (subsampling_op.cpp) on AVX2 + FMA (kernel id
// subsampling_avx2), for CPUs without AVX-512. Call only where cpu_has_avx2() (cpu_features.h).
#pragma once

#include <cstdint>

namespace parakeet {

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
