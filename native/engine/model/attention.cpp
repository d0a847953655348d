// NeMo RelPositionMultiHeadAttention (Transformer-XL style relative positions,
// spec §3.4):
//   scores = ((q + u)·kᵀ + rel_shift((q + v)·pᵀ)) / √dk, masked, softmax, ·v
#include <cmath>

#include "attention_op.h"
#include "encoder_graph.h"
#include "graph_helpers.h"
#include "packed_weights.h"
#include "q8_0_rel_pos_vnni.h"

namespace parakeet {

bool uses_fused_attention(const Hparams & hp, bool cpu_graph) {
    const bool unbounded = hp.att_context_style == "regular" && hp.att_context_left < 0 && hp.att_context_right < 0;
    return cpu_graph && unbounded && hp.head_dim() % 16 == 0 && fused_attention_available();
}

ggml_tensor * build_position_projection(ggml_context * ctx, const ConformerLayerWeights & w, const EncoderInputs & in) {
    const RelPosProjection * halves = in.packed != nullptr && in.pos_halves != nullptr ? in.packed->rel_pos(w.pos_w) : nullptr;
    const Q8RelPosProjection * q8_halves = in.packed != nullptr && in.pos_halves_q8 != nullptr ? in.packed->q8_rel_pos(w.pos_w) : nullptr;
    return halves != nullptr             ? halves->apply(ctx, in.pos_halves, ggml_get_name(w.pos_w))
           : q8_halves != nullptr        ? q8_halves->apply(ctx, in.pos_halves_q8, ggml_get_name(w.pos_w))
           : in.pos_quantized != nullptr ? in.packed->find(w.pos_w)->apply_quantized(ctx, in.pos_quantized, ggml_get_name(w.pos_w), Epilogue{})
                                         : mul_mat(ctx, w.pos_w, in.pos, in.packed);
}

ggml_tensor * build_rel_pos_attention(ggml_context * ctx, const Hparams & hp, const ConformerLayerWeights & w, const NormedInput & xh,
                                      const EncoderInputs & in, int frames, ggml_tensor * residual) {
    const int64_t D = hp.d_model, H = hp.n_heads, dk = hp.head_dim(), T = frames, P = 2 * int64_t(frames) - 1;
    if (uses_fused_attention(hp, in.cpu_fused_ops)) {
        // One op from the projections to the merged heads (attention_op.h); same math as below.
        ggml_tensor * q = linear(ctx, xh, w.q_w, w.q_b, in.packed);
        ggml_tensor * k = linear(ctx, xh, w.k_w, w.k_b, in.packed);
        ggml_tensor * v = linear(ctx, xh, w.v_w, w.v_b, in.packed);
        ggml_tensor * p = nullptr;
        for (const auto & kept : in.kept_positions) {
            if (kept.first == w.pos_w) p = kept.second;
        }
        if (p == nullptr) p = build_position_projection(ctx, w, in);
        const AttentionProducts products = in.packed != nullptr ? in.packed->attention_products() : AttentionProducts::F32;
        // On AMX tiles the op writes linear_out's activation tiles itself (no F32 context, no conversion node).
        const PackedMatmul * out = in.packed != nullptr ? in.packed->find(w.out_w) : nullptr;
        const bool tiles = products == AttentionProducts::AmxBf16 && out != nullptr && out->activation_format() == ActivationFormat::Bf16Tiles;
        ggml_tensor * context = fused_rel_pos_attention(ctx, q, k, v, p, w.pos_bias_u, w.pos_bias_v, in.frame_mask, products, tiles);
        if (tiles) return out->apply_quantized(ctx, context, ggml_get_name(w.out_w), Epilogue{w.out_b, false, residual, 1.0f});
        return linear_ex(ctx, context, w.out_w, w.out_b, in.packed, false, residual);
    }

    ggml_tensor * q = ggml_reshape_3d(ctx, linear(ctx, xh, w.q_w, w.q_b, in.packed), dk, H, T);
    ggml_tensor * k = ggml_reshape_3d(ctx, linear(ctx, xh, w.k_w, w.k_b, in.packed), dk, H, T);
    ggml_tensor * v = ggml_reshape_3d(ctx, linear(ctx, xh, w.v_w, w.v_b, in.packed), dk, H, T);
    ggml_tensor * p = ggml_reshape_3d(ctx, mul_mat(ctx, w.pos_w, in.pos, in.packed), dk, H, P);  // linear_pos has no bias

    ggml_tensor * bias_u = ggml_reshape_3d(ctx, w.pos_bias_u, dk, H, 1);
    ggml_tensor * bias_v = ggml_reshape_3d(ctx, w.pos_bias_v, dk, H, 1);
    // Head-major copies: contiguous operands take ggml's blocked matmul kernels.
    ggml_tensor * q_u = ggml_cont(ctx, ggml_permute(ctx, ggml_add(ctx, q, bias_u), 0, 2, 1, 3));  // [dk, T, H]
    ggml_tensor * q_v = ggml_cont(ctx, ggml_permute(ctx, ggml_add(ctx, q, bias_v), 0, 2, 1, 3));  // [dk, T, H]
    ggml_tensor * k_h = ggml_cont(ctx, ggml_permute(ctx, k, 0, 2, 1, 3));                         // [dk, T, H]
    ggml_tensor * p_h = ggml_cont(ctx, ggml_permute(ctx, p, 0, 2, 1, 3));                         // [dk, 2T−1, H]

    ggml_tensor * ac = ggml_mul_mat(ctx, k_h, q_u);      // [T keys, T queries, H]
    ggml_tensor * bd_raw = ggml_mul_mat(ctx, p_h, q_v);  // [2T−1 positions, T queries, H]
    // rel_shift (pad a zero column, reshape, drop a row, keep T columns) is the
    // strided view BD[i, j] = BD_raw[i, (T−1) − i + j]: start at column T−1 and
    // step one column back per query row.
    ggml_tensor * bd = ggml_view_3d(ctx, bd_raw, T, T, H, bd_raw->nb[1] - sizeof(float), bd_raw->nb[2], size_t(T - 1) * sizeof(float));

    ggml_tensor * scores = ggml_add(ctx, ac, bd);
    ggml_tensor * attn = ggml_soft_max_ext(ctx, scores, in.att_mask, 1.0f / std::sqrt(float(dk)), 0.0f);

    ggml_tensor * v_t = ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3));  // [T keys, dk, H]
    ggml_tensor * context = ggml_mul_mat(ctx, v_t, attn);                  // [dk, T, H]
    context = ggml_cont(ctx, ggml_permute(ctx, context, 0, 2, 1, 3));      // [dk, H, T]
    context = ggml_reshape_2d(ctx, context, D, T);
    // NeMo masks whole rows of padded queries, so their context is zero.
    if (in.frame_mask != nullptr) context = ggml_mul(ctx, context, in.frame_mask);
    return linear_ex(ctx, context, w.out_w, w.out_b, in.packed, false, residual);
}

}  // namespace parakeet
