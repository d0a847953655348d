// Small ggml graph building blocks shared by the encoder parts.
#pragma once

#include <initializer_list>
#include <vector>

#include "ggml.h"
#include "layer_norm_op.h"
#include "packed_weights.h"

namespace parakeet {

/** W·x, through the weight's packed twin when the model has one (packed_weights.h), else ggml's mul_mat. */
inline ggml_tensor * mul_mat(ggml_context * ctx, ggml_tensor * w, ggml_tensor * x, const PackedWeights * packed) {
    const PackedMatmul * p = packed != nullptr ? packed->find(w) : nullptr;
    return p != nullptr ? p->apply(ctx, x, ggml_get_name(w), Epilogue{}) : ggml_mul_mat(ctx, w, x);
}

/**
 * residual + scale · act(W·x + b): one node through a packed kernel's epilogue, else ggml's ops
 * (mul_mat, add, silu, scale, add). `residual` may be nullptr (then `scale` must be 1).
 */
inline ggml_tensor * linear_ex(ggml_context * ctx, ggml_tensor * x, ggml_tensor * w, ggml_tensor * b, const PackedWeights * packed, bool silu,
                               ggml_tensor * residual = nullptr, float scale = 1.0f) {
    const PackedMatmul * p = packed != nullptr ? packed->find(w) : nullptr;
    if (p != nullptr) return p->apply(ctx, x, ggml_get_name(w), Epilogue{b, silu, residual, scale});
    ggml_tensor * y = ggml_mul_mat(ctx, w, x);
    if (b != nullptr) y = ggml_add(ctx, y, b);
    if (silu) y = ggml_silu(ctx, y);
    if (residual == nullptr) return y;
    return ggml_add(ctx, residual, scale == 1.0f ? y : ggml_scale(ctx, y, scale));
}

/** y = W·x (+ b). W: [in, out] (ggml: contraction first), x: [in, T] -> [out, T]. */
inline ggml_tensor * linear(ggml_context * ctx, ggml_tensor * x, ggml_tensor * w, ggml_tensor * b, const PackedWeights * packed = nullptr) {
    return linear_ex(ctx, x, w, b, packed, false);
}

/** torch.nn.LayerNorm over the first axis (eps 1e-5), affine; `cpu_fused` (CPU graphs) as one custom op. */
inline ggml_tensor * layer_norm(ggml_context * ctx, ggml_tensor * x, ggml_tensor * w, ggml_tensor * b, bool cpu_fused = false) {
    if (cpu_fused) return fused_layer_norm(ctx, x, w, b);  // one pass (layer_norm_op.h)
    ggml_tensor * y = ggml_norm(ctx, x, 1e-5f);
    y = ggml_mul(ctx, y, w);
    return ggml_add(ctx, y, b);
}

/**
 * A layer norm's output as its matmuls read it: F32, or (CPU graphs whose readers all take one
 * quantized activation format) written in that format by the norm itself, once for all readers.
 */
struct NormedInput {
    ggml_tensor * f32 = nullptr;
    ggml_tensor * quantized = nullptr;
};

/** LayerNorm(x) for the matmuls with these weights (see NormedInput). */
inline NormedInput normed_for(ggml_context * ctx, ggml_tensor * x, ggml_tensor * gamma, ggml_tensor * beta, bool cpu_fused,
                              const PackedWeights * packed, std::initializer_list<const ggml_tensor *> readers) {
    ActivationFormat format = ActivationFormat::None;
    bool shared = cpu_fused && packed != nullptr && x->ne[0] % 32 == 0;
    for (const ggml_tensor * w : readers) {
        const PackedMatmul * p = shared ? packed->find(w) : nullptr;
        const ActivationFormat f = p != nullptr ? p->activation_format() : ActivationFormat::None;
        shared = shared && f != ActivationFormat::None && (format == ActivationFormat::None || f == format);
        format = f;
    }
    NormedInput in;
    if (shared)
        in.quantized = fused_layer_norm_quantized(ctx, x, gamma, beta, format);
    else
        in.f32 = layer_norm(ctx, x, gamma, beta, cpu_fused);
    return in;
}

/**
 * x quantized once in the activation format that every one of `readers` (packed matmul weights)
 * reads, for their apply_quantized; nullptr when one has no packed twin or they differ.
 */
inline ggml_tensor * quantized_for(ggml_context * ctx, ggml_tensor * x, const PackedWeights * packed,
                                   const std::vector<const ggml_tensor *> & readers) {
    if (packed == nullptr || readers.empty()) return nullptr;
    const PackedMatmul * first = packed->find(readers.front());
    for (const ggml_tensor * w : readers) {
        const PackedMatmul * p = packed->find(w);
        if (p == nullptr || p->activation_format() == ActivationFormat::None || p->activation_format() != first->activation_format()) {
            return nullptr;
        }
    }
    return first->quantize(ctx, x, "shared");
}

/** residual + scale · act(W·xh + b) on a NormedInput (linear_ex for the F32 form). */
inline ggml_tensor * linear_ex(ggml_context * ctx, const NormedInput & xh, ggml_tensor * w, ggml_tensor * b, const PackedWeights * packed, bool silu,
                               ggml_tensor * residual = nullptr, float scale = 1.0f) {
    if (xh.quantized != nullptr) {
        return packed->find(w)->apply_quantized(ctx, xh.quantized, ggml_get_name(w), Epilogue{b, silu, residual, scale});
    }
    return linear_ex(ctx, xh.f32, w, b, packed, silu, residual, scale);
}

inline ggml_tensor * linear(ggml_context * ctx, const NormedInput & xh, ggml_tensor * w, ggml_tensor * b, const PackedWeights * packed) {
    return linear_ex(ctx, xh, w, b, packed, false);
}

}  // namespace parakeet
