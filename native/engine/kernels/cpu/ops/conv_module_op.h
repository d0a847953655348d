// The middle of NeMo's ConformerConvolution as one ggml custom op (CPU):
//   GLU over channels → zero padded frames (pad_mask) → depthwise conv over time
//   (batch norm folded into its kernel and bias) → SiLU (batch-norm models).
// As separate ggml ops this is ~25 nodes per layer (K shifted multiply-adds,
// a pad, the GLU, the mask), each a pass over [D, T] memory; fused it is one
// pass, vectorized over channels (AVX-512 where the CPU has it, else scalar).
// CPU backend only: other devices get the plain ggml ops.
#pragma once

#include "ggml.h"

namespace parakeet {

/**
 * a: [2D, T] pointwise_conv1 output (bias added); dw_w: [K][D] channels fastest;
 * dw_b: [D]; frame_mask: [1, T] or nullptr; left: left padding (K−1)/2 or K−1 (causal).
 * Returns [D, T]: silu(dw_b + Σ_k dw_w[k]·g[t + k − left]) with g = a[:D]·σ(a[D:])·mask,
 * zero outside [0, T); without SiLU when `apply_silu` is false (layer-norm models). `tiles_out`:
 * the result written as the next matmul's BF16 activation tiles instead (ActivationFormat::Bf16Tiles,
 * amx_bf16.h; where pointwise_conv2 runs on AMX tiles), a view of [2D bytes, T] as the tiles' readers take it.
 */
ggml_tensor * fused_conv_module(ggml_context * ctx, ggml_tensor * a, ggml_tensor * dw_w, ggml_tensor * dw_b, ggml_tensor * frame_mask, int kernel,
                                int left, bool apply_silu, bool tiles_out = false);

}  // namespace parakeet
