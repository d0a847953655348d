// Fused relative-position attention (see attention_op.h).
//
// Work items are (head, block of kQueries queries), split evenly over the threads.
// For each head a thread first transposes K (in chunks of 32 keys) and P into
// [dk][frames] scratch rows so that 16 consecutive keys (or positions) are one
// vector: the score of query i
// and keys j..j+15 is Σ_d (q+u)[d]·Kᵀ[d][j..] + (q+v)[d]·Pᵀ[d][T−1−i+j..], the
// second a contiguous (unaligned) run of positions, as rel_shift reads them.
// Scores of a block sit in row buffers, the softmax is done in place (exp in
// vector form), then the context accumulates Σ_j e_j·v_j over the valid keys.
#include "attention_op.h"
#include "amx_bf16.h"
#include "attention_f32_avx2.h"
#include "attention_blocks.h"
#include "cpu_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "simd_math.h"

namespace parakeet {
namespace {

using namespace attention_blocks;

#if defined(__x86_64__) || defined(_M_X64)

struct Scratch {
    std::vector<float> kt, pt, vh, scores, bd, qu, qv;
    int head = -1;
};

// Kᵀ in chunks of 32 keys, each [dk][32] contiguous (8 KB for dk 64): the GEMM reads one chunk
// per tile pair as one sequential stream, where rows of all the keys at a stride scattered it over
// L1's sets and its prefetchers.
ColumnLayout key_layout(const Shapes & s) { return ColumnLayout{32, s.dk * 32}; }

// dst[layout(offset + j, d)] = row_j[h·dk + d] for j < n rows of `t` (dk and offset multiples of 16).
PARAKEET_AVX512 void transpose_rows(const ggml_tensor * t, int h, int64_t dk, int64_t n, float * dst, const ColumnLayout & layout, int64_t offset) {
    auto row = [&](int64_t j) { return reinterpret_cast<const float *>(static_cast<const char *>(t->data) + size_t(j) * t->nb[1]) + h * dk; };
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        for (int64_t d0 = 0; d0 < dk; d0 += 16) {
            const float * src[16];
            for (int i = 0; i < 16; ++i) src[i] = row(j + i) + d0;
            transpose16(src, dst + layout.at(offset + j, d0), layout.row_stride);
        }
    }
    for (; j < n; ++j) {
        const float * r = row(j);
        for (int64_t d = 0; d < dk; ++d) dst[layout.at(offset + j, d)] = r[d];
    }
}

// Kᵀ[d][j] (j < valid) and Pᵀ[d][kPosFront + r] (r < 2T−1) for head h. Entries past them are
// read only for lanes the softmax ignores.
void transpose_head(const ggml_tensor * k, const ggml_tensor * p, const ggml_tensor * v, int h, const Shapes & s, Scratch & w) {
    // The head's values, contiguous [j][dk]: the context loop streams them once per group of queries.
    w.vh.resize(size_t(s.valid * s.dk));
    for (int64_t j = 0; j < s.valid; ++j) {
        const float * row = reinterpret_cast<const float *>(static_cast<const char *>(v->data) + size_t(j) * v->nb[1]) + h * s.dk;
        std::memcpy(w.vh.data() + size_t(j * s.dk), row, size_t(s.dk) * sizeof(float));
    }
    w.kt.resize(size_t(s.dk * s.key_cols));
    w.pt.resize(size_t(s.dk * s.pos_stride));
    transpose_rows(k, h, s.dk, s.valid, w.kt.data(), key_layout(s), 0);
    transpose_rows(p, h, s.dk, s.positions, w.pt.data(), ColumnLayout{s.pos_stride, 32}, kPosFront);
    w.head = h;
}

// out[q][c] = Σ_d a[q][d] · bt[d][c] for the tiles holding the first `live` of kQueries rows and columns [0, cols) in steps of 32, as
// register tiles of kTileQueries × 32 (two vector loads and kTileQueries broadcasts per d). The
// tiles of one column chunk run back to back, so the chunk of bt (dk rows, strided) is read from
// L2 once per chunk and from L1 for the other tiles.
// Not inlined: inlined into attend_block, GCC 12 kept the accumulator tile in memory (half the speed).
PARAKEET_AVX512 __attribute__((noinline)) void rows_times_columns(const float * a, int64_t dk, const float * bt_all, const ColumnLayout & layout,
                                                                  int64_t cols, float * out, int64_t out_stride, int live) {
    const int64_t bt_stride = layout.row_stride;
    for (int64_t c0 = 0; c0 < cols; c0 += 32) {
        const float * bt = bt_all + layout.at(c0, 0) - c0;  // bt + d·bt_stride + c0 is column c0 of row d
        for (int q0 = 0; q0 < live; q0 += kTileQueries) {   // tiles wholly past the live queries are skipped
            __m512 acc[kTileQueries][2];
            for (int q = 0; q < kTileQueries; ++q) acc[q][0] = acc[q][1] = _mm512_setzero_ps();
            const float * aq = a + q0 * dk;
            for (int64_t d = 0; d < dk; ++d) {
                const __m512 b0 = _mm512_loadu_ps(bt + d * bt_stride + c0);
                const __m512 b1 = _mm512_loadu_ps(bt + d * bt_stride + c0 + 16);
                for (int q = 0; q < kTileQueries; ++q) {
                    const __m512 x = _mm512_set1_ps(aq[q * dk + d]);
                    fma_into(acc[q][0], x, b0);
                    fma_into(acc[q][1], x, b1);
                }
            }
            for (int q = 0; q < kTileQueries; ++q) {
                _mm512_storeu_ps(out + (q0 + q) * out_stride + c0, acc[q][0]);
                _mm512_storeu_ps(out + (q0 + q) * out_stride + c0 + 16, acc[q][1]);
            }
        }
    }
}

// Context rows for queries [q0, q0 + NQ) of the block, channels [c0, c0 + 16·NV): Σ_j e[q][j]·v_j
// over the valid keys. Both counts are compile-time so the NQ × NV accumulators stay in registers.
template <int NQ, int NV>
PARAKEET_AVX512 void weighted_values(const float * vh, ggml_tensor * dst, int h, int64_t i0, int q0, int64_t c0, const Shapes & s, const float * e,
                                     const float * inv_sum) {
    const int64_t dk = s.dk;
    __m512 acc[NQ][NV];
    for (int q = 0; q < NQ; ++q)
        for (int c = 0; c < NV; ++c) acc[q][c] = _mm512_setzero_ps();
    for (int64_t j = 0; j < s.valid; ++j) {
        const float * vj = vh + j * dk + c0;
        __m512 vv[NV];
        for (int c = 0; c < NV; ++c) vv[c] = _mm512_loadu_ps(vj + 16 * c);
        for (int q = 0; q < NQ; ++q) {
            const __m512 x = _mm512_set1_ps(e[(q0 + q) * s.key_stride + j]);
            for (int c = 0; c < NV; ++c) acc[q][c] = _mm512_fmadd_ps(x, vv[c], acc[q][c]);
        }
    }
    for (int q = 0; q < NQ; ++q) {
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i0 + q0 + q) * dst->nb[1]) + h * dk + c0;
        for (int c = 0; c < NV; ++c) _mm512_storeu_ps(out + 16 * c, _mm512_mul_ps(acc[q][c], _mm512_set1_ps(inv_sum[q0 + q])));
    }
}

template <int NQ>
PARAKEET_AVX512 void weighted_values_all(const float * vh, ggml_tensor * dst, int h, int64_t i0, int q0, const Shapes & s, const float * e,
                                         const float * inv_sum) {
    for (int64_t c0 = 0; c0 < s.dk; c0 += 32) {
        if (s.dk - c0 >= 32)
            weighted_values<NQ, 2>(vh, dst, h, i0, q0, c0, s, e, inv_sum);
        else
            weighted_values<NQ, 1>(vh, dst, h, i0, q0, c0, s, e, inv_sum);
    }
}

// One block of kQueries queries (rows past `live` are computed on zero queries and not stored).
PARAKEET_AVX512 void attend_block(const ggml_tensor * v, ggml_tensor * dst, int h, int64_t i0, int live, const Shapes & s, Scratch & w, float scale) {
    const int64_t dk = s.dk, stride = s.key_stride;
    // 1. AC = (q + u)·Kᵀ over all key columns.
    rows_times_columns(w.qu.data(), dk, w.kt.data(), key_layout(s), s.key_cols, w.scores.data(), stride, live);
    // 2. The block's band of (q + v)·Pᵀ: query q (i = i0 + q) and key j read position
    //    T−1−i+j = lo + (kQueries−1−q) + j with lo = T−1−(i0+kQueries−1), so one band of
    //    positions [lo, lo + band) serves every query of the block at its own offset.
    const int64_t lo = s.frames - 1 - (i0 + kQueries - 1);
    rows_times_columns(w.qv.data(), dk, w.pt.data() + kPosFront + lo, ColumnLayout{s.pos_stride, 32}, s.band, w.bd.data(), s.band, live);
    // 3. scores = (AC + shifted BD)/√dk, softmax over the valid keys, in place.
    float inv_sum[kQueries];
    const __m512 vscale = _mm512_set1_ps(scale);
    const int64_t full = s.valid / 16 * 16;
    const __mmask16 tail = __mmask16((1u << (s.valid - full)) - 1u);
    for (int q = 0; q < live; ++q) {
        float * row = w.scores.data() + q * stride;
        const float * bd = w.bd.data() + q * s.band + (kQueries - 1 - q);
        const __m512 m = _mm512_set1_ps(scaled_scores(row, bd, vscale, full, tail));
        __m512 sum = _mm512_setzero_ps();
        for (int64_t j = 0; j < full; j += 16) {
            const __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(row + j), m));
            _mm512_storeu_ps(row + j, e);
            sum = _mm512_add_ps(sum, e);
        }
        if (tail) {
            const __m512 e = _mm512_maskz_mov_ps(tail, exp512(_mm512_sub_ps(_mm512_loadu_ps(row + full), m)));
            _mm512_storeu_ps(row + full, e);
            sum = _mm512_add_ps(sum, e);
        }
        inv_sum[q] = 1.0f / _mm512_reduce_add_ps(sum);
    }
    // 4. context = Σ_j e_j·v_j / Σ e, fourteen queries × 32 channels at a time (28 accumulators):
    //    each value row loaded from L2 serves fourteen queries.
    for (int q0 = 0; q0 < live; q0 += kTileQueries) {
        with_query_count<kTileQueries>(std::min(kTileQueries, live - q0), [&](auto nq) {
            weighted_values_all<decltype(nq)::value>(w.vh.data(), dst, h, i0, q0, s, w.scores.data(), inv_sum);
        });
    }
}

// qu = q + u and qv = q + v over dk (a multiple of 16) channels.
PARAKEET_AVX512 void add_rows(const float * q, const float * u, const float * v, float * qu, float * qv, int64_t dk) {
    for (int64_t d = 0; d < dk; d += 16) {
        const __m512 x = _mm512_loadu_ps(q + d);
        _mm512_storeu_ps(qu + d, _mm512_add_ps(x, _mm512_loadu_ps(u + d)));
        _mm512_storeu_ps(qv + d, _mm512_add_ps(x, _mm512_loadu_ps(v + d)));
    }
}

void attention_op(ggml_tensor * dst, int ith, int nth, void *) {
    const OpSources in(dst);
    const ggml_tensor *q = in.q, *k = in.k, *v = in.v, *p = in.p, *bu = in.bias_u;
    const Shapes s = shapes_of(dst);
    const float scale = 1.0f / std::sqrt(float(s.dk));
    thread_local Scratch w;
    w.head = -1;
    w.scores.resize(size_t(kQueries) * size_t(s.key_stride));
    w.bd.resize(size_t(kQueries) * size_t(s.band));
    w.qu.assign(size_t(kQueries) * size_t(s.dk), 0.0f);
    w.qv.assign(size_t(kQueries) * size_t(s.dk), 0.0f);
    for_each_block(dst, s, int(bu->ne[1]), ith, nth, [&](int h, int64_t i0, int live) {
        if (w.head != h) transpose_head(k, p, v, h, s, w);
        std::fill(w.qu.begin(), w.qu.end(), 0.0f);
        std::fill(w.qv.begin(), w.qv.end(), 0.0f);
        for (int r = 0; r < live; ++r) {
            add_rows(row_of(q, i0 + r) + h * s.dk, in.u_of(h, s.dk), in.v_of(h, s.dk), w.qu.data() + r * s.dk, w.qv.data() + r * s.dk, s.dk);
        }
        attend_block(v, dst, h, i0, live, s, w, scale);
    });
}

#else

void attention_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace

// AVX-512 runs this file's op, AVX2 attention_f32_avx2.cpp's (F32 products either way).
bool fused_attention_available() {
    static const bool ok = cpu_has_avx512f() || cpu_has_avx2();
    return ok;
}

ggml_tensor * fused_rel_pos_attention(ggml_context * ctx, ggml_tensor * q, ggml_tensor * k, ggml_tensor * v, ggml_tensor * p, ggml_tensor * bias_u,
                                      ggml_tensor * bias_v, ggml_tensor * frame_mask, AttentionProducts products, bool tiles_out) {
    for (const ggml_tensor * t : {q, k, v}) GGML_ASSERT(t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float) && t->ne[2] == 1);
    GGML_ASSERT((p->type == GGML_TYPE_F32 || p->type == GGML_TYPE_I32) && p->nb[0] == 4 && p->ne[2] == 1);
    GGML_ASSERT(bias_u->ne[0] % 16 == 0 && ggml_is_contiguous(bias_u) && ggml_is_contiguous(bias_v));
    if (p->type == GGML_TYPE_I32) {  // already the AMX op's Pᵀ words
        GGML_ASSERT(products == AttentionProducts::AmxBf16 && p->ne[0] == 2 * q->ne[1] - 1 && p->ne[1] == q->ne[0] / 2);
    } else {
        GGML_ASSERT(p->ne[1] == 2 * q->ne[1] - 1);
    }
    ggml_tensor * args[] = {q, k, v, p, bias_u, bias_v, frame_mask};
    GGML_ASSERT(products != AttentionProducts::Int16 || int16_attention_available(bias_u->ne[0]));
    GGML_ASSERT(products != AttentionProducts::AmxBf16 || amx_attention_available(bias_u->ne[0]));
    if (products == AttentionProducts::Int16 && q->ne[1] > kMaxInt16AttentionKeys) products = AttentionProducts::F32;
    static const bool avx512 = cpu_has_avx512f();
    ggml_custom_op_t op = products == AttentionProducts::AmxBf16 ? attention_amx_op
                          : products == AttentionProducts::Int16 ? attention_i16_body()
                          : avx512                               ? attention_op
                                                                 : attention_f32_avx2_op;
    GGML_ASSERT(!tiles_out || products == AttentionProducts::AmxBf16);
    ggml_tensor * y = tiles_out ? ggml_custom_4d(ctx, GGML_TYPE_I8, 2 * q->ne[0], amx_tile_frames(q->ne[1]), 1, 1, args,
                                                 frame_mask != nullptr ? 7 : 6, op, GGML_N_TASKS_MAX, nullptr)
                                : ggml_custom_4d(ctx, GGML_TYPE_F32, q->ne[0], q->ne[1], 1, 1, args, frame_mask != nullptr ? 7 : 6, op,
                                                 GGML_N_TASKS_MAX, nullptr);
    ggml_set_name(y, products == AttentionProducts::AmxBf16 ? "attention_amx"
                     : products == AttentionProducts::Int16 ? "attention_i16"
                                                            : "attention_fused");
    return tiles_out ? amx_tiles_view(ctx, y, q->ne[1]) : y;
}

}  // namespace parakeet
