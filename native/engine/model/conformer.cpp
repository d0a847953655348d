// NeMo ConformerLayer and ConformerConvolution (spec §3.5).
#include "encoder_graph.h"
#include "conv_module_op.h"
#include "graph_helpers.h"

namespace parakeet {

// NeMo ConformerFeedForward: Linear → Swish → Linear (dropout is a no-op at inference).
// Returns residual + ½·FFN(xh) (the half-step of NeMo's ConformerLayer), in the epilogues where the
// weights are packed. Where linear1 can write its Swish outputs straight in linear2's activation
// format (the Q8_0 kernel, apply_quantized_to), the F32 hidden rows (4·d_model wide) and their
// quantize pass never exist: the same bytes reach linear2 either way.
ggml_tensor * build_feed_forward(ggml_context * ctx, const NormedInput & xh, ggml_tensor * w1, ggml_tensor * b1, ggml_tensor * w2, ggml_tensor * b2,
                                 const PackedWeights * packed, ggml_tensor * residual) {
    const PackedMatmul * second = packed != nullptr ? packed->find(w2) : nullptr;
    if (xh.quantized != nullptr && second != nullptr) {
        ggml_tensor * hq =
                packed->find(w1)->apply_quantized_to(ctx, xh.quantized, ggml_get_name(w1), Epilogue{b1, true}, second->activation_format());
        if (hq != nullptr) return second->apply_quantized(ctx, hq, ggml_get_name(w2), Epilogue{b2, false, residual, 0.5f});
    }
    ggml_tensor * h = linear_ex(ctx, xh, w1, b1, packed, true);
    return linear_ex(ctx, h, w2, b2, packed, false, residual, 0.5f);
}

ggml_tensor * build_conv_module(ggml_context * ctx, const Hparams & hp, const ConformerLayerWeights & w, const NormedInput & xh,
                                const EncoderInputs & in, int frames, ggml_tensor * residual) {
    const int64_t D = hp.d_model, K = hp.conv_kernel, T = frames;
    ggml_tensor * a = linear(ctx, xh, w.pw1_w, w.pw1_b, in.packed);  // [2D, T]
    const int left = hp.conv_causal ? int(K - 1) : int(K - 1) / 2;
    if (in.cpu_fused_ops) {
        // GLU, pad mask, depthwise conv, bias and (batch-norm models) SiLU in one pass.
        const bool silu_now = w.conv_ln_w == nullptr;
        // Where pointwise_conv2 runs on AMX tiles, the op writes its activation tiles itself.
        const PackedMatmul * pw2 = in.packed != nullptr ? in.packed->find(w.pw2_w) : nullptr;
        const bool tiles = silu_now && pw2 != nullptr && pw2->activation_format() == ActivationFormat::Bf16Tiles;
        ggml_tensor * x = fused_conv_module(ctx, a, w.dw_w, w.dw_b, in.frame_mask, int(K), left, silu_now, tiles);
        if (tiles) return pw2->apply_quantized(ctx, x, ggml_get_name(w.pw2_w), Epilogue{w.pw2_b, false, residual, 1.0f});
        if (!silu_now) x = ggml_silu(ctx, layer_norm(ctx, x, w.conv_ln_w, w.conv_ln_b, in.cpu_fused_ops));
        return linear_ex(ctx, x, w.pw2_w, w.pw2_b, in.packed, false, residual);
    }
    // GLU over channels: first half · σ(second half).
    ggml_tensor * first = ggml_view_2d(ctx, a, D, T, a->nb[1], 0);
    ggml_tensor * second = ggml_view_2d(ctx, a, D, T, a->nb[1], size_t(D) * ggml_element_size(a));
    ggml_tensor * x = ggml_mul(ctx, first, ggml_sigmoid(ctx, second));
    // Padded frames are zeroed before the depthwise conv (NeMo pad_mask).
    if (in.frame_mask != nullptr) x = ggml_mul(ctx, x, in.frame_mask);

    // Depthwise conv over time as K shifted multiply-adds on the zero-padded
    // [D, T+K−1] tensor: out[:, t] = Σ_k w[:, k] · x[:, t+k]. Backend-agnostic,
    // and cheap next to the matmuls (D·T·K MACs).
    const int right = int(K - 1) - left;
    ggml_tensor * padded = ggml_pad_ext(ctx, x, 0, 0, left, right, 0, 0, 0, 0);
    ggml_tensor * conv = nullptr;
    for (int64_t k = 0; k < K; ++k) {
        ggml_tensor * shifted = ggml_view_2d(ctx, padded, D, T, padded->nb[1], size_t(k) * padded->nb[1]);
        ggml_tensor * tap = ggml_view_1d(ctx, w.dw_w, D, size_t(k * D) * sizeof(float));  // w[:, k]
        ggml_tensor * term = ggml_mul(ctx, shifted, tap);
        conv = conv == nullptr ? term : ggml_add(ctx, conv, term);
    }
    x = conv;
    x = ggml_add(ctx, x, w.dw_b);  // depthwise bias with batch norm folded in
    if (w.conv_ln_w != nullptr) x = layer_norm(ctx, x, w.conv_ln_w, w.conv_ln_b, in.cpu_fused_ops);
    x = ggml_silu(ctx, x);
    return linear_ex(ctx, x, w.pw2_w, w.pw2_b, in.packed, false, residual);
}

ggml_tensor * build_conformer_layer(ggml_context * ctx, const Hparams & hp, const ConformerLayerWeights & w, ggml_tensor * x,
                                    const EncoderInputs & in, int frames) {
    // Each block's input norm is read only by its first matmuls: on the packed int8 kernels it is
    // written already quantized (NormedInput), once for q, k and v.
    const bool fused = in.cpu_fused_ops;
    ggml_tensor * r = build_feed_forward(ctx, normed_for(ctx, x, w.ff1_norm_w, w.ff1_norm_b, fused, in.packed, {w.ff1_w1}), w.ff1_w1, w.ff1_b1,
                                         w.ff1_w2, w.ff1_b2, in.packed, x);
    r = build_rel_pos_attention(ctx, hp, w, normed_for(ctx, r, w.att_norm_w, w.att_norm_b, fused, in.packed, {w.q_w, w.k_w, w.v_w}), in, frames, r);
    r = build_conv_module(ctx, hp, w, normed_for(ctx, r, w.conv_norm_w, w.conv_norm_b, fused, in.packed, {w.pw1_w}), in, frames, r);
    r = build_feed_forward(ctx, normed_for(ctx, r, w.ff2_norm_w, w.ff2_norm_b, fused, in.packed, {w.ff2_w1}), w.ff2_w1, w.ff2_b1, w.ff2_w2, w.ff2_b2,
                           in.packed, r);
    return layer_norm(ctx, r, w.out_norm_w, w.out_norm_b, in.cpu_fused_ops);
}

}  // namespace parakeet
