// The 14-bit attention op on 256-bit vectors (op ids attention_i16_avx2, attention_i16_avx_vnni and its
// EVEX build): attention_i16_vnni.cpp's op for CPUs without AVX512-VNNI, one source
// (attention_i16_ymm.inc) compiled per instruction set. Each body is called only where its
// registry row (registry.cpp, FusedOp::AttentionInt16) runs; attention_i16_body() picks it.
#pragma once

#include "ggml.h"

namespace parakeet {

/** The ggml op bodies, with attention_f32_avx512.cpp's sources and output (q, k, v, p, bias_u, bias_v[, frame mask]). */
void attention_i16_avx2_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void attention_i16_avx_vnni_vex_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void attention_i16_avx_vnni_evex_op(ggml_tensor * dst, int ith, int nth, void * userdata);

}  // namespace parakeet
