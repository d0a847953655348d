// torch.nn.LayerNorm (eps 1e-5, affine) over the first axis as one ggml custom op (CPU): ggml's
// norm, mul and add are three passes over [D, T] per norm, five norms per conformer layer; fused
// it is one pass per frame (mean, centred variance, scale and shift), vectorized with AVX-512
// where the CPU has it.
#pragma once

#include "ggml.h"

namespace parakeet {

/** x: [D, T] F32 (rows contiguous); gamma, beta: [D]. Returns [D, T]. */
ggml_tensor * fused_layer_norm(ggml_context * ctx, ggml_tensor * x, ggml_tensor * gamma, ggml_tensor * beta);

}  // namespace parakeet
