// torch.nn.LayerNorm (eps 1e-5, affine) over the first axis as one ggml custom op (CPU): ggml's
// norm, mul and add are three passes over [D, T] per norm, five norms per conformer layer; fused
// it is one pass per frame (mean, centred variance, scale and shift), vectorized with AVX-512
// where the CPU has it.
#pragma once

#include "ggml.h"
#include "packed_weights.h"

namespace parakeet {

/** x: [D, T] F32 (rows contiguous); gamma, beta: [D]. Returns [D, T]. */
ggml_tensor * fused_layer_norm(ggml_context * ctx, ggml_tensor * x, ggml_tensor * gamma, ggml_tensor * beta);

/**
 * The same norm written straight in a packed kernel's activation format (Q8Blocks, I16Blocks or
 * ChannelRows): [row bytes, T] I8, for matmuls whose apply_quantized reads it. A norm whose only
 * readers are such matmuls (every conformer block's input norm) so never writes its F32 output,
 * and its readers do not quantize it again each (q, k and v share one). AVX512-VNNI CPUs only.
 */
ggml_tensor * fused_layer_norm_quantized(ggml_context * ctx, ggml_tensor * x, ggml_tensor * gamma, ggml_tensor * beta, ActivationFormat format);

}  // namespace parakeet
