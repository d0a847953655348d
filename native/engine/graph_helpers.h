// Small ggml graph building blocks shared by the encoder parts.
#pragma once

#include "ggml.h"
#include "packed_weights.h"

namespace parakeet {

/** W·x, through the weight's packed twin when the model has one (packed_weights.h), else ggml's mul_mat. */
inline ggml_tensor * mul_mat(ggml_context * ctx, ggml_tensor * w, ggml_tensor * x, const PackedWeights * packed) {
    const PackedMatmul * p = packed != nullptr ? packed->find(w) : nullptr;
    return p != nullptr ? p->apply(ctx, x, ggml_get_name(w)) : ggml_mul_mat(ctx, w, x);
}

/** y = W·x (+ b). W: [in, out] (ggml: contraction first), x: [in, T] -> [out, T]. */
inline ggml_tensor * linear(ggml_context * ctx, ggml_tensor * x, ggml_tensor * w, ggml_tensor * b, const PackedWeights * packed = nullptr) {
    ggml_tensor * y = mul_mat(ctx, w, x, packed);
    return b != nullptr ? ggml_add(ctx, y, b) : y;
}

/** torch.nn.LayerNorm over the first axis (eps 1e-5), affine. */
inline ggml_tensor * layer_norm(ggml_context * ctx, ggml_tensor * x, ggml_tensor * w, ggml_tensor * b) {
    ggml_tensor * y = ggml_norm(ctx, x, 1e-5f);
    y = ggml_mul(ctx, y, w);
    return ggml_add(ctx, y, b);
}

}  // namespace parakeet
