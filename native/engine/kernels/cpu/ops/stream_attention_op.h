// The attention of one cache-aware streaming step (NeMo RelPositionMultiHeadAttention over
// [cache | chunk] keys, chunked_limited mask) as one ggml custom op on the CPU. As ggml ops it is
// two bias adds, three head-major copies (the key window's the largest: every cached key, every
// chunk), three small batched matmuls, the rel_shift view, an add, a masked softmax and a copy of
// the context back: at 7 queries over 77 keys the 0.6B shape spent ≈ 12 % of a chunk's encoder CPU
// time there (bench:streaming --profile). Fused, each (head, query) item reads the key and value
// windows in place, and only the positions rel_shift keeps are ever multiplied.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace parakeet {

/** The op's AVX-512 path runs here for heads of dk channels (a multiple of 16); elsewhere callers keep ggml's ops. */
bool stream_attention_available(int64_t dk);

/**
 * q: [D, Tq] (linear_q with its bias); keys, values: [D, Tk] column views of the windows (linear_k /
 * linear_v of the cached frames, then the chunk's); p: [dk, ≥ 2Tk − 1, H] the layer's linear_pos of
 * the relative table, head-major (row r = relative position Tk − 1 − r); bias_u, bias_v: D values
 * (pos_bias_u/v, head h at h·dk); mask: [Tk, Tq], 0 or −∞ (NeMo's att_mask). Returns the context
 * [D, Tq], heads merged:
 *   score[i, j] = ((q_i + u)·k_j + (q_i + v)·p[Tq − 1 − i + j]) / √dk + mask[i, j]
 *   context_i  = Σ_j softmax_j(score[i, ·]) · v_j.
 */
ggml_tensor * stream_rel_pos_attention(ggml_context * ctx, ggml_tensor * q, ggml_tensor * keys, ggml_tensor * values, ggml_tensor * p,
                                       ggml_tensor * bias_u, ggml_tensor * bias_v, ggml_tensor * mask);

}  // namespace parakeet
