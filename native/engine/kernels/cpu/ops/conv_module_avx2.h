// The fused conv module's two row steps on AVX2 + FMA (kernel id conv_module_avx2): for CPUs
// without AVX-512 (conv_module_op.cpp). Call only where cpu_has_avx2() (cpu_features.h).
#pragma once

#include <cstdint>

namespace parakeet {

/** out[c] = first[c]·σ(second[c])·mask over d channels: NeMo's GLU (dim = channels) on one frame, then the pad mask. */
void glu_row_avx2(const float * first, const float * second, float mask, float * out, int64_t d);

/**
 * One output frame of the depthwise conv: out[c] = b[c] + Σ_k w[k][c]·g[k][c] over `kernel` frames of
 * `g` (d apart, as w), then SiLU when `silu` (NeMo's ConformerConvolution: depthwise conv, norm, Swish).
 */
void depthwise_row_avx2(const float * g, int64_t d, int kernel, const float * w, const float * b, bool silu, float * out);

}  // namespace parakeet
