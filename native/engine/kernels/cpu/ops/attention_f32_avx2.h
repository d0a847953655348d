// The fused relative-position attention (attention_op.h) on AVX2 + FMA, F32 products (kernel id
// attention_f32_avx2): the op body fused_rel_pos_attention takes where the CPU has no AVX-512.
#pragma once

#include "ggml.h"

namespace parakeet {

/** A ggml custom op body with attention_f32_avx512.cpp's sources and output (q, k, v, p, bias_u, bias_v[, frame mask]). */
void attention_f32_avx2_op(ggml_tensor * dst, int ith, int nth, void * userdata);

}  // namespace parakeet
