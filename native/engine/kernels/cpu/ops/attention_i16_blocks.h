// What the 14-bit attention ops share (attention_i16_vnni.cpp on zmm, attention_i16_ymm.inc on ymm
// for the 256-bit classes): the integer ranges that keep every sum exact in int32, the per-thread
// scratch, the transposed layouts of Kᵀ and Pᵀ, and the op body's walk over (head, block) items.
// attention_i16_vnni.cpp's header comment says how the numbers are chosen.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attention_blocks.h"

namespace parakeet::attention_i16 {

using namespace attention_blocks;

constexpr int64_t kMaxHeadDim = 512;
constexpr float kValueLevels = 4095.0f;
constexpr float kNumeratorPeak = 32767.0f;
// Σ_j n_j ≤ budget + half a level per key (rounding) ≤ ⌊(2³¹ − 1)/4095⌋, so Σ_j n_j·v_j stays in int32.
// (The op takes at most kMaxInt16AttentionKeys keys, attention_op.h, so the budget stays > 2¹⁸.)
inline float numerator_budget(int64_t keys) { return float(2147483647 / 4095 - keys); }
/** ±L per score operand, L = ⌊√((2³¹ − 1)/dk)⌋ (at most 16383): a row's dk products sum exactly in int32. */
inline int score_levels(int64_t dk) { return int(std::min(16383.0, std::floor(std::sqrt(2147483647.0 / double(dk))))); }

struct Scratch {
    // Pairs of int16 travel as one 32-bit word (what VPDPWSSD / VPMADDWD broadcast and multiply).
    std::vector<int32_t> kt, pt, vq, qu, qv;  // Kᵀ, Pᵀ in pair rows; V in key pairs; the block's queries
    std::vector<int16_t> numerators;          // [kQueries][key_cols]
    std::vector<float> k_scale, p_scale, v_scale, scores, bd;
    float qu_scale[kQueries], qv_scale[kQueries];
    int head = -1;
};

// Kᵀ in chunks of 32 keys, each [dk/2 pairs][32] words: one sequential stream per chunk.
inline ColumnLayout key_layout(const Shapes & s) { return ColumnLayout{32, s.dk / 2 * 32}; }
inline ColumnLayout position_layout(const Shapes & s) { return ColumnLayout{s.pos_stride, 32}; }

// Sizes Kᵀ and Pᵀ for a head and zeroes their columns past the keys and positions (integers and
// scales), so the lanes the softmax ignores are finite; only those, as the transposes write every
// other word: clearing the whole of Kᵀ and Pᵀ for every head was a fifth of the head's time (110M, 10 s).
inline void clear_head_tails(const Shapes & s, Scratch & w) {
    const int64_t pairs = s.dk / 2;
    w.kt.resize(size_t(pairs * s.key_cols));
    w.k_scale.assign(size_t(s.key_cols), 0.0f);
    const ColumnLayout keys = key_layout(s);
    for (int64_t c = s.valid; c < s.key_cols; ++c)
        for (int64_t d = 0; d < pairs; ++d) w.kt[size_t(keys.at(c, d))] = 0;
    w.pt.resize(size_t(pairs * s.pos_stride));
    w.p_scale.assign(size_t(s.pos_stride), 0.0f);
    for (int64_t d = 0; d < pairs; ++d) {  // position columns are contiguous per pair row (position_layout)
        int32_t * row = w.pt.data() + d * s.pos_stride;
        std::fill(row, row + kPosFront, 0);
        std::fill(row + kPosFront + s.positions, row + s.pos_stride, 0);
    }
}

/**
 * The op body either width runs: per (head, block of queries) item, the head's K, P and V quantized
 * once (Width::quantize_head), the block's (q + u) and (q + v) as ±levels pair words
 * (Width::biased_query), then Width::attend_block. Width is a struct of those three functions.
 */
template <typename Width>
void run_blocks(ggml_tensor * dst, int ith, int nth) {
    const OpSources in(dst);
    const Shapes s = shapes_of(dst);
    const float scale = 1.0f / std::sqrt(float(s.dk));
    const int levels = score_levels(s.dk);
    const int64_t pairs = s.dk / 2;
    thread_local Scratch w;
    w.head = -1;
    w.scores.resize(size_t(kQueries) * size_t(s.key_stride));
    w.bd.resize(size_t(kQueries) * size_t(s.band));
    w.numerators.resize(size_t(kQueries) * size_t(s.key_cols));
    w.qu.assign(size_t(kQueries * pairs), 0);
    w.qv.assign(size_t(kQueries * pairs), 0);
    for_each_block(dst, s, int(in.bias_u->ne[1]), ith, nth, [&](int h, int64_t i0, int live) {
        if (w.head != h) {
            Width::quantize_head(in.k, in.p, in.v, h, s, w);
            w.head = h;
        }
        std::fill(w.qu.begin(), w.qu.end(), 0);
        std::fill(w.qv.begin(), w.qv.end(), 0);
        for (int r = 0; r < live; ++r) {
            const float * qi = row_of(in.q, i0 + r) + h * s.dk;
            w.qu_scale[r] = Width::biased_query(qi, in.u_of(h, s.dk), s.dk, levels, w.qu.data() + r * pairs);
            w.qv_scale[r] = Width::biased_query(qi, in.v_of(h, s.dk), s.dk, levels, w.qv.data() + r * pairs);
        }
        Width::attend_block(dst, h, i0, live, s, w, scale);
    });
}

}  // namespace parakeet::attention_i16
