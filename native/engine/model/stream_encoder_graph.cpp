// The conformer layer of a streaming step. Why K and V are cached instead of NeMo's raw attention
// input: linear_k and linear_v act on each frame alone (and the packed kernels quantize activations
// per frame), so linear_k([cache | chunk]) = [linear_k(cache) | linear_k(chunk)] with the same numbers,
// and each chunk then projects only its own frames instead of L + chunk.
#include <cmath>

#include "graph_helpers.h"
#include "stream_attention_op.h"
#include "stream_encoder_graph.h"
#include "window_shift_op.h"

namespace parakeet {
namespace {

/** Columns [first, first + count) of a window [D, n]: contiguous. */
ggml_tensor * columns(ggml_context * ctx, ggml_tensor * window, int64_t first, int64_t count) {
    return ggml_view_2d(ctx, window, window->ne[0], count, window->nb[1], size_t(first) * window->nb[1]);
}

/**
 * Writes a chunk's frames [D, frames] into the window after its `kept` cached columns; expanded into the
 * graph now, so the reads of the window built after it run after it (ggml runs a graph's nodes in order).
 */
void write_chunk(ggml_context * ctx, ggml_cgraph * graph, ggml_tensor * chunk, ggml_tensor * window, int64_t kept) {
    ggml_build_forward_expand(graph, ggml_cpy(ctx, chunk, columns(ctx, window, kept, chunk->ne[1])));
}

/**
 * The next chunk's cache: the window's last `kept` frames of [cache | chunk] moved to its front.
 * On the CPU one memmove (window_shift_op.h); elsewhere through a copy, since the two ranges overlap
 * and ggml's copy splits the columns among threads.
 */
ggml_tensor * shift_window(ggml_context * ctx, ggml_tensor * window, int64_t kept, int64_t frames, bool in_place) {
    if (in_place) return shift_window_in_place(ctx, window, frames, kept);
    ggml_tensor * tail = ggml_cont(ctx, columns(ctx, window, frames, kept));
    return ggml_cpy(ctx, tail, columns(ctx, window, 0, kept));
}

/**
 * residual + NeMo RelPositionMultiHeadAttention over [cache | chunk] keys (update_cache with
 * cache_drop_size 0): queries are the chunk's frames, keys and values the cached frames then the
 * chunk's, positions span L + frames keys (RelPositionalEncoding with cache_len).
 */
ggml_tensor * stream_attention(ggml_context * ctx, ggml_cgraph * graph, const Hparams & hp, const ConformerLayerWeights & w, const NormedInput & xh,
                               const EncoderInputs & in, ggml_tensor * p_h, const StreamLayerCache & cache, int frames,
                               std::vector<ggml_tensor *> & shifts, ggml_tensor * residual) {
    const int64_t D = hp.d_model, H = hp.n_heads, dk = hp.head_dim(), Tq = frames, L = cache.left;
    const int64_t Tk = L + Tq;
    ggml_tensor * q_rows = linear(ctx, xh, w.q_w, w.q_b, in.packed);  // [D, Tq]
    write_chunk(ctx, graph, linear(ctx, xh, w.k_w, w.k_b, in.packed), cache.key, L);
    shifts.push_back(shift_window(ctx, cache.key, L, Tq, cache.fused));
    if (cache.value_columns) {
        write_chunk(ctx, graph, linear(ctx, xh, w.v_w, w.v_b, in.packed), cache.value, L);
        shifts.push_back(shift_window(ctx, cache.value, L, Tq, cache.fused));
        ggml_tensor * context = stream_rel_pos_attention(ctx, q_rows, columns(ctx, cache.key, 0, Tk), columns(ctx, cache.value, 0, Tk), p_h,
                                                         w.pos_bias_u, w.pos_bias_v, in.att_mask);
        return linear_ex(ctx, context, w.out_w, w.out_b, in.packed, false, residual);
    }
    ggml_tensor * q = ggml_reshape_3d(ctx, q_rows, dk, H, Tq);
    // V's window holds keys fastest: the chunk is written transposed (frames × D values), and
    // attention·V reads [Tk keys, dk, H] as a view where [D, Tk] would need a transposed copy of every key.
    ggml_tensor * value = cache.value;
    ggml_tensor * v_chunk = ggml_transpose(ctx, linear(ctx, xh, w.v_w, w.v_b, in.packed));  // [Tq, D]
    ggml_build_forward_expand(graph, ggml_cpy(ctx, v_chunk, ggml_view_2d(ctx, value, Tq, D, value->nb[1], size_t(L) * sizeof(float))));
    ggml_tensor * v_tail = ggml_cont(ctx, ggml_view_2d(ctx, value, L, D, value->nb[1], size_t(Tq) * sizeof(float)));
    shifts.push_back(ggml_cpy(ctx, v_tail, ggml_view_2d(ctx, value, L, D, value->nb[1], 0)));
    ggml_tensor * k = ggml_reshape_3d(ctx, columns(ctx, cache.key, 0, Tk), dk, H, Tk);  // [cache | chunk]

    ggml_tensor * bias_u = ggml_reshape_3d(ctx, w.pos_bias_u, dk, H, 1);
    ggml_tensor * bias_v = ggml_reshape_3d(ctx, w.pos_bias_v, dk, H, 1);
    ggml_tensor * q_u = ggml_cont(ctx, ggml_permute(ctx, ggml_add(ctx, q, bias_u), 0, 2, 1, 3));  // [dk, Tq, H]
    ggml_tensor * q_v = ggml_cont(ctx, ggml_permute(ctx, ggml_add(ctx, q, bias_v), 0, 2, 1, 3));  // [dk, Tq, H]
    ggml_tensor * k_h = ggml_cont(ctx, ggml_permute(ctx, k, 0, 2, 1, 3));                         // [dk, Tk, H]

    ggml_tensor * ac = ggml_mul_mat(ctx, k_h, q_u);      // [Tk keys, Tq queries, H]
    ggml_tensor * bd_raw = ggml_mul_mat(ctx, p_h, q_v);  // [P positions, Tq queries, H]
    // NeMo rel_shift with Tq queries over P = 2·Tk − 1 positions: BD[i, j] = BD_raw[i, (Tq − 1) − i + j]
    // (query i at absolute L + i, key j: relative position L + i − j), a strided view.
    ggml_tensor * bd = ggml_view_3d(ctx, bd_raw, Tk, Tq, H, bd_raw->nb[1] - sizeof(float), bd_raw->nb[2], size_t(Tq - 1) * sizeof(float));
    ggml_tensor * attn = ggml_soft_max_ext(ctx, ggml_add(ctx, ac, bd), in.att_mask, 1.0f / std::sqrt(float(dk)), 0.0f);

    ggml_tensor * v_t = ggml_view_3d(ctx, value, Tk, dk, H, value->nb[1], size_t(dk) * value->nb[1], 0);  // [Tk keys, dk, H]
    ggml_tensor * context = ggml_mul_mat(ctx, v_t, attn);                                                 // [dk, Tq, H]
    context = ggml_reshape_2d(ctx, ggml_cont(ctx, ggml_permute(ctx, context, 0, 2, 1, 3)), D, Tq);
    return linear_ex(ctx, context, w.out_w, w.out_b, in.packed, false, residual);
}

/**
 * residual + NeMo ConformerConvolution with its causal depthwise conv fed from the cache
 * (CausalConv1D.update_cache): pointwise_conv1, GLU, [cache | GLU] through the K taps, norm, Swish,
 * pointwise_conv2.
 */
ggml_tensor * stream_conv_module(ggml_context * ctx, ggml_cgraph * graph, const Hparams & hp, const ConformerLayerWeights & w, const NormedInput & xh,
                                 const EncoderInputs & in, const StreamLayerCache & cache, int frames, std::vector<ggml_tensor *> & shifts,
                                 ggml_tensor * residual) {
    const int64_t D = hp.d_model, K = hp.conv_kernel, T = frames;
    ggml_tensor * a = linear(ctx, xh, w.pw1_w, w.pw1_b, in.packed);  // [2D, T]
    ggml_tensor * first = ggml_view_2d(ctx, a, D, T, a->nb[1], 0);
    ggml_tensor * second = ggml_view_2d(ctx, a, D, T, a->nb[1], size_t(D) * ggml_element_size(a));
    ggml_tensor * glu = ggml_mul(ctx, first, ggml_sigmoid(ctx, second));
    write_chunk(ctx, graph, glu, cache.conv, K - 1);
    shifts.push_back(shift_window(ctx, cache.conv, K - 1, T, cache.fused));
    ggml_tensor * all = columns(ctx, cache.conv, 0, K - 1 + T);  // [D, K−1+T]
    // out[:, t] = Σ_k w[:, k] · all[:, t + k]: no padding, the cache is the causal left context.
    ggml_tensor * conv = nullptr;
    for (int64_t k = 0; k < K; ++k) {
        ggml_tensor * shifted = ggml_view_2d(ctx, all, D, T, all->nb[1], size_t(k) * all->nb[1]);
        ggml_tensor * tap = ggml_view_1d(ctx, w.dw_w, D, size_t(k * D) * sizeof(float));
        ggml_tensor * term = ggml_mul(ctx, shifted, tap);
        conv = conv == nullptr ? term : ggml_add(ctx, conv, term);
    }
    ggml_tensor * x = ggml_add(ctx, conv, w.dw_b);  // depthwise bias (batch norm folded in)
    if (w.conv_ln_w != nullptr) x = layer_norm(ctx, x, w.conv_ln_w, w.conv_ln_b, in.cpu_fused_ops);
    x = ggml_silu(ctx, x);
    return linear_ex(ctx, x, w.pw2_w, w.pw2_b, in.packed, false, residual);
}

}  // namespace

ggml_tensor * build_stream_layer(ggml_context * ctx, ggml_cgraph * graph, const Hparams & hp, const ConformerLayerWeights & w, ggml_tensor * x,
                                 const EncoderInputs & in, ggml_tensor * positions, const StreamLayerCache & cache, int frames,
                                 std::vector<ggml_tensor *> & cache_shifts, GraphParts & parts) {
    const bool fused = in.cpu_fused_ops;
    const auto norm = [&](ggml_tensor * r, ggml_tensor * gamma, ggml_tensor * beta, std::initializer_list<const ggml_tensor *> readers) {
        NormedInput n = normed_for(ctx, r, gamma, beta, fused, in.packed, readers);
        parts.mark(graph, n.quantized != nullptr ? n.quantized : n.f32, "norms");
        return n;
    };
    ggml_tensor * r = build_feed_forward(ctx, norm(x, w.ff1_norm_w, w.ff1_norm_b, {w.ff1_w1}), w.ff1_w1, w.ff1_b1, w.ff1_w2, w.ff1_b2, in.packed, x);
    parts.mark(graph, r, "feed_forward1");
    const NormedInput att_in = norm(r, w.att_norm_w, w.att_norm_b, {w.q_w, w.k_w, w.v_w});
    r = stream_attention(ctx, graph, hp, w, att_in, in, positions, cache, frames, cache_shifts, r);
    parts.mark(graph, r, "attention");
    const NormedInput conv_in = norm(r, w.conv_norm_w, w.conv_norm_b, {w.pw1_w});
    r = stream_conv_module(ctx, graph, hp, w, conv_in, in, cache, frames, cache_shifts, r);
    parts.mark(graph, r, "conv module");
    r = build_feed_forward(ctx, norm(r, w.ff2_norm_w, w.ff2_norm_b, {w.ff2_w1}), w.ff2_w1, w.ff2_b1, w.ff2_w2, w.ff2_b2, in.packed, r);
    parts.mark(graph, r, "feed_forward2");
    r = layer_norm(ctx, r, w.out_norm_w, w.out_norm_b, fused);
    parts.mark(graph, r, "norms");
    return r;
}

}  // namespace parakeet
