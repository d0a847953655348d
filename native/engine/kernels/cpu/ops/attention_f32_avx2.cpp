// Fused relative-position attention on AVX2 + FMA (op id attention_f32_avx2): attention_f32_avx512.cpp's
// algorithm and arithmetic on 8-lane vectors, for CPUs without AVX-512. NeMo's
// RelPositionMultiHeadAttention per head: scores = ((q + u)·Kᵀ + rel_shift((q + v)·Pᵀ))/√dk, softmax
// over the valid keys, context = softmax·V. Per (head, block of kQueries queries) item: Kᵀ and Pᵀ
// transposed once per head (plain loops: dk × (keys + positions) moves, against dk times as many
// multiply–adds), the two score products as register tiles of 6 queries × 16 columns (12
// accumulators, two column vectors, a broadcast: 15 of the 16 ymm registers), the softmax with
// exp256, then the context as tiles of 6 queries × 16 channels.
#include "attention_f32_avx2.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "attention_blocks.h"
#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

namespace {

using namespace attention_blocks;

constexpr int kTile = 6;  // queries per register tile

struct Scratch {
    std::vector<float> kt, pt, vh, scores, bd, qu, qv;
    int head = -1;
};

ColumnLayout key_layout(const Shapes & s) { return ColumnLayout{32, s.dk * 32}; }

// dst[layout(offset + j, d)] = row_j[h·dk + d] for the first n rows of t.
void transpose_rows(const ggml_tensor * t, int h, int64_t dk, int64_t n, float * dst, const ColumnLayout & layout, int64_t offset) {
    for (int64_t j = 0; j < n; ++j) {
        const float * r = row_of(t, j) + h * dk;
        for (int64_t d = 0; d < dk; ++d) dst[layout.at(offset + j, d)] = r[d];
    }
}

void prepare_head(const ggml_tensor * k, const ggml_tensor * p, const ggml_tensor * v, int h, const Shapes & s, Scratch & w) {
    w.vh.resize(size_t(s.valid * s.dk));
    for (int64_t j = 0; j < s.valid; ++j) std::memcpy(w.vh.data() + size_t(j * s.dk), row_of(v, j) + h * s.dk, size_t(s.dk) * sizeof(float));
    // Columns past the keys (and positions) are read for lanes the softmax ignores: zero, not stale.
    w.kt.assign(size_t(s.dk * s.key_cols), 0.0f);
    w.pt.assign(size_t(s.dk * s.pos_stride), 0.0f);
    transpose_rows(k, h, s.dk, s.valid, w.kt.data(), key_layout(s), 0);
    transpose_rows(p, h, s.dk, s.positions, w.pt.data(), ColumnLayout{s.pos_stride, 32}, kPosFront);
    w.head = h;
}

// out[q][c] = Σ_d a[q][d]·bt[d][c] for NQ queries from q0 and columns [c0, c0 + 16).
template <int NQ>
PARAKEET_AVX2 void score_tile(const float * a, int64_t dk, const float * bt, int64_t bt_stride, int64_t c0, float * out, int64_t out_stride, int q0) {
    __m256 acc[NQ][2];
    for (int q = 0; q < NQ; ++q) acc[q][0] = acc[q][1] = _mm256_setzero_ps();
    const float * aq = a + q0 * dk;
    for (int64_t d = 0; d < dk; ++d) {
        const __m256 b0 = _mm256_loadu_ps(bt + d * bt_stride + c0), b1 = _mm256_loadu_ps(bt + d * bt_stride + c0 + 8);
        for (int q = 0; q < NQ; ++q) {
            const __m256 x = _mm256_broadcast_ss(aq + q * dk + d);
            acc[q][0] = _mm256_fmadd_ps(x, b0, acc[q][0]);
            acc[q][1] = _mm256_fmadd_ps(x, b1, acc[q][1]);
        }
    }
    for (int q = 0; q < NQ; ++q) {
        _mm256_storeu_ps(out + (q0 + q) * out_stride + c0, acc[q][0]);
        _mm256_storeu_ps(out + (q0 + q) * out_stride + c0 + 8, acc[q][1]);
    }
}

// The first `live` rows of a (queries × dk) times the transposed columns [0, cols) of bt_all.
void rows_times_columns(const float * a, int64_t dk, const float * bt_all, const ColumnLayout & layout, int64_t cols, float * out, int64_t out_stride,
                        int live) {
    for (int64_t c0 = 0; c0 < cols; c0 += 32) {
        const float * bt = bt_all + layout.at(c0, 0) - c0;  // bt + d·row_stride + c is column c of row d
        for (int64_t half = 0; half < 32 && c0 + half < cols; half += 16) {
            for (int q0 = 0; q0 < live; q0 += kTile) {
                with_query_count<kTile>(std::min(kTile, live - q0), [&](auto nq) {
                    score_tile<decltype(nq)::value>(a, dk, bt, layout.row_stride, c0 + half, out, out_stride, q0);
                });
            }
        }
    }
}

// Context rows of queries [q0, q0 + NQ) of the block, channels [c0, c0 + 16): Σ_j e[q][j]·v_j / Σ e.
template <int NQ>
PARAKEET_AVX2 void weighted_values(const float * vh, ggml_tensor * dst, int h, int64_t i0, int q0, int64_t c0, const Shapes & s, const float * e,
                                   const float * inv_sum) {
    __m256 acc[NQ][2];
    for (int q = 0; q < NQ; ++q) acc[q][0] = acc[q][1] = _mm256_setzero_ps();
    for (int64_t j = 0; j < s.valid; ++j) {
        const __m256 v0 = _mm256_loadu_ps(vh + j * s.dk + c0), v1 = _mm256_loadu_ps(vh + j * s.dk + c0 + 8);
        for (int q = 0; q < NQ; ++q) {
            const __m256 x = _mm256_broadcast_ss(e + (q0 + q) * s.key_stride + j);
            acc[q][0] = _mm256_fmadd_ps(x, v0, acc[q][0]);
            acc[q][1] = _mm256_fmadd_ps(x, v1, acc[q][1]);
        }
    }
    for (int q = 0; q < NQ; ++q) {
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i0 + q0 + q) * dst->nb[1]) + h * s.dk + c0;
        const __m256 inv = _mm256_set1_ps(inv_sum[q0 + q]);
        _mm256_storeu_ps(out, _mm256_mul_ps(acc[q][0], inv));
        _mm256_storeu_ps(out + 8, _mm256_mul_ps(acc[q][1], inv));
    }
}

// One query's scores (AC + shifted BD)·scale over the valid keys, in place, then e^(x − max); returns 1/Σ e.
PARAKEET_AVX2 float softmax_row(float * row, const float * bd, float scale, int64_t valid) {
    const __m256 vscale = _mm256_set1_ps(scale);
    const int64_t full = valid / 8 * 8;
    __m256 mx = _mm256_set1_ps(-INFINITY);
    for (int64_t j = 0; j < full; j += 8) {
        const __m256 x = _mm256_mul_ps(_mm256_add_ps(_mm256_loadu_ps(row + j), _mm256_loadu_ps(bd + j)), vscale);
        _mm256_storeu_ps(row + j, x);
        mx = _mm256_max_ps(mx, x);
    }
    float m = reduce_max256(mx);
    for (int64_t j = full; j < valid; ++j) {
        row[j] = (row[j] + bd[j]) * scale;
        m = std::max(m, row[j]);
    }
    const __m256 vm = _mm256_set1_ps(m);
    __m256 sum = _mm256_setzero_ps();
    for (int64_t j = 0; j < full; j += 8) {
        const __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(row + j), vm));
        _mm256_storeu_ps(row + j, e);
        sum = _mm256_add_ps(sum, e);
    }
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
    s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    float total = _mm_cvtss_f32(_mm_add_ss(s4, _mm_movehdup_ps(s4)));
    for (int64_t j = full; j < valid; ++j) {
        row[j] = std::exp(row[j] - m);
        total += row[j];
    }
    return 1.0f / total;
}

PARAKEET_AVX2 void attend_block(ggml_tensor * dst, int h, int64_t i0, int live, const Shapes & s, Scratch & w, float scale) {
    const int64_t dk = s.dk;
    // 1. AC = (q + u)·Kᵀ; 2. the block's band of (q + v)·Pᵀ (attention_f32_avx512.cpp's attend_block says how
    //    one band of positions from lo serves every query of the block at its own offset).
    rows_times_columns(w.qu.data(), dk, w.kt.data(), key_layout(s), s.key_cols, w.scores.data(), s.key_stride, live);
    const int64_t lo = s.frames - 1 - (i0 + kQueries - 1);
    rows_times_columns(w.qv.data(), dk, w.pt.data() + kPosFront + lo, ColumnLayout{s.pos_stride, 32}, s.band, w.bd.data(), s.band, live);
    // 3. The scaled scores' softmax over the valid keys, in place.
    float inv_sum[kQueries];
    for (int q = 0; q < live; ++q)
        inv_sum[q] = softmax_row(w.scores.data() + q * s.key_stride, w.bd.data() + q * s.band + (kQueries - 1 - q), scale, s.valid);
    // 4. The context, 16 channels at a time (dk is a multiple of 16).
    for (int q0 = 0; q0 < live; q0 += kTile) {
        for (int64_t c0 = 0; c0 < dk; c0 += 16) {
            with_query_count<kTile>(std::min(kTile, live - q0), [&](auto nq) {
                weighted_values<decltype(nq)::value>(w.vh.data(), dst, h, i0, q0, c0, s, w.scores.data(), inv_sum);
            });
        }
    }
}

}  // namespace

void attention_f32_avx2_op(ggml_tensor * dst, int ith, int nth, void *) {
    const OpSources in(dst);
    const Shapes s = shapes_of(dst);
    const float scale = 1.0f / std::sqrt(float(s.dk));
    thread_local Scratch w;
    w.head = -1;
    w.scores.assign(size_t(kQueries) * size_t(s.key_stride), 0.0f);
    w.bd.assign(size_t(kQueries) * size_t(s.band), 0.0f);
    w.qu.assign(size_t(kQueries) * size_t(s.dk), 0.0f);
    w.qv.assign(size_t(kQueries) * size_t(s.dk), 0.0f);
    for_each_block(dst, s, int(in.bias_u->ne[1]), ith, nth, [&](int h, int64_t i0, int live) {
        if (w.head != h) prepare_head(in.k, in.p, in.v, h, s, w);
        std::fill(w.qu.begin(), w.qu.end(), 0.0f);
        std::fill(w.qv.begin(), w.qv.end(), 0.0f);
        for (int r = 0; r < live; ++r) {
            const float * q = row_of(in.q, i0 + r) + h * s.dk;
            const float *u = in.u_of(h, s.dk), *v = in.v_of(h, s.dk);
            for (int64_t d = 0; d < s.dk; ++d) w.qu[size_t(r * s.dk + d)] = q[d] + u[d], w.qv[size_t(r * s.dk + d)] = q[d] + v[d];
        }
        attend_block(dst, h, i0, live, s, w, scale);
    });
}

#else  // never called off x86 (fused_attention_available)

void attention_f32_avx2_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace parakeet
