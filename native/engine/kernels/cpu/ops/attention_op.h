// NeMo RelPositionMultiHeadAttention's core as one ggml custom op (CPU, AVX-512):
//   scores[i, j] = ((q_i + u)·k_j + (q_i + v)·p_{T−1−i+j}) / √dk over valid keys,
//   softmax over j, context_i = Σ_j softmax · v_j; padded query rows get zero.
// As ggml ops this is two batched matmuls, the rel_shift view, an add, a masked
// softmax, four head-major copies and a third matmul per layer, with [T, 2T−1, H]
// and [T, T, H] tensors in memory; fused, each query's scores stay in a row
// buffer and only the T positions rel_shift keeps are ever computed (a third
// less work than (q + v)·pᵀ over all 2T−1).
#pragma once

#include "ggml.h"

namespace parakeet {

/** The op runs on this CPU (AVX-512 checked at run time). Unbounded (regular) attention context only. */
bool fused_attention_available();

/**
 * The 14-bit variant (attention_i16_vnni.cpp; below AVX-512 its 256-bit twins, attention_i16_ymm.h: the
 * registry's AttentionInt16 rows) runs on this CPU for heads of dk channels: a multiple of 16 up to 512.
 */
bool int16_attention_available(int64_t dk);
/** Frames the 14-bit op takes at most (its context sums stay exact in int32); longer calls run in F32. */
constexpr int64_t kMaxInt16AttentionKeys = 262144;
/**
 * The AMX-BF16 variant (attention_amx_bf16.cpp) may run here for heads of dk channels: AMX-BF16
 * passed its probe (amx.h) and dk is a multiple of 32 up to 512.
 */
bool amx_attention_available(int64_t dk);

/**
 * Columns of the AMX op's Pᵀ for `frames` frames: its zero front, the 2·frames − 1 positions, and
 * the zero tail a block's band reads past them. A table kept for T_table frames serves any run of
 * T ≤ T_table frames from column T_table − T on (position_table.h).
 */
int64_t amx_position_columns(int64_t frames);
/**
 * p [D, 2T−1] F32 (fused_rel_pos_attention's) written into `words` [amx_position_columns(T), D/2] I32
 * as the AMX op's Pᵀ for heads of dk channels; returns the node to expand (its result is not used).
 */
ggml_tensor * amx_position_words(ggml_context * ctx, ggml_tensor * p, ggml_tensor * words, int64_t dk);

/** What the op's products run on. */
enum class AttentionProducts {
    F32,      // exact F32 (attention_f32_avx512.cpp)
    Int16,    // 14-bit integers on VPDPWSSD / VPMADDWD (attention_i16_vnni.cpp, attention_i16_ymm.h): int16_attention_available
    AmxBf16,  // BF16 on AMX tiles (attention_amx_bf16.cpp): amx_attention_available
};

/**
 * q, k, v: [D, T] (projections with their biases, head h in channels [h·dk, (h+1)·dk));
 * p: [D, 2T−1] linear_pos of the positional table (row r = relative position T−1−r), or for AmxBf16
 * a view [2T−1, D/2] I32 of that already as the op's Pᵀ words (amx_position_words, column 0 = row 0);
 * bias_u, bias_v: [dk, H] (dk a multiple of 16); frame_mask: [1, T], 1 on the valid
 * frames [0, Tv) and 0 after, or nullptr when all are valid (keys past Tv are masked,
 * query rows past it are zero). Returns the context [D, T] (heads merged). `products`: F32, or for files whose matmuls are
 * quantized anyway 14-bit integers or BF16 tiles (where available for the head width). `tiles_out`
 * (AmxBf16 only): the context written as the next matmul's BF16 activation tiles
 * (ActivationFormat::Bf16Tiles, amx_bf16.h) instead of F32 rows, for linear_out on AMX tiles.
 */
ggml_tensor * fused_rel_pos_attention(ggml_context * ctx, ggml_tensor * q, ggml_tensor * k, ggml_tensor * v, ggml_tensor * p, ggml_tensor * bias_u,
                                      ggml_tensor * bias_v, ggml_tensor * frame_mask, AttentionProducts products, bool tiles_out = false);

}  // namespace parakeet
