// Fused relative-position attention (see attention_op.h).
//
// Work items are (head, block of 4 queries), split evenly over the threads. For
// each head a thread first transposes K and P into [dk][frames] scratch rows so
// that 16 consecutive keys (or positions) are one vector: the score of query i
// and keys j..j+15 is Σ_d (q+u)[d]·Kᵀ[d][j..] + (q+v)[d]·Pᵀ[d][T−1−i+j..], the
// second a contiguous (unaligned) run of positions, as rel_shift reads them.
// Scores of a block sit in row buffers, the softmax is done in place (exp in
// vector form), then the context accumulates Σ_j e_j·v_j over the valid keys.
#include "attention_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "simd_math.h"

namespace parakeet {
namespace {

constexpr int kQueries = 4;  // queries per work item

bool cpu_has_avx512f() {
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

#if defined(__x86_64__) || defined(_M_X64)

struct Scratch {
    std::vector<float> kt, pt, scores, qu, qv;
    int head = -1;
};

inline int64_t round16(int64_t n) { return (n + 15) / 16 * 16; }

struct Shapes {
    int64_t d_model, dk, frames, valid, positions, key_stride, pos_stride;
};

// Kᵀ[d][j] (j < valid, zero up to the stride) and Pᵀ[d][r] (r < 2T−1, 16 zeros of slack) for head h.
void transpose_head(const ggml_tensor * k, const ggml_tensor * p, int h, const Shapes & s, Scratch & w) {
    // Entries past `valid` keys / past the positions are read only for lanes the softmax ignores.
    w.kt.resize(size_t(s.dk * s.key_stride));
    w.pt.resize(size_t(s.dk * s.pos_stride));
    for (int64_t j = 0; j < s.valid; ++j) {
        const float * row = reinterpret_cast<const float *>(static_cast<const char *>(k->data) + size_t(j) * k->nb[1]) + h * s.dk;
        for (int64_t d = 0; d < s.dk; ++d) w.kt[size_t(d * s.key_stride + j)] = row[d];
    }
    for (int64_t r = 0; r < s.positions; ++r) {
        const float * row = reinterpret_cast<const float *>(static_cast<const char *>(p->data) + size_t(r) * p->nb[1]) + h * s.dk;
        for (int64_t d = 0; d < s.dk; ++d) w.pt[size_t(d * s.pos_stride + r)] = row[d];
    }
    w.head = h;
}

template <int NQ>
PARAKEET_AVX512 void attend_block(const ggml_tensor * v, ggml_tensor * dst, int h, int64_t i0, const Shapes & s, Scratch & w,
                                  float scale) {
    const int64_t dk = s.dk, stride = s.key_stride;
    float * scores = w.scores.data();  // [NQ][stride]
    // 1. scores over key vectors of 16 (the tail past `valid` is computed on zero keys, then ignored).
    for (int64_t j0 = 0; j0 < stride; j0 += 16) {
        __m512 acc[NQ];
        for (int q = 0; q < NQ; ++q) acc[q] = _mm512_setzero_ps();
        for (int64_t d = 0; d < dk; ++d) {
            const __m512 kt = _mm512_loadu_ps(w.kt.data() + d * stride + j0);
            const float * pt = w.pt.data() + d * s.pos_stride + (s.frames - 1 - i0) + j0;
            for (int q = 0; q < NQ; ++q) {
                acc[q] = _mm512_fmadd_ps(_mm512_set1_ps(w.qu[size_t(q * dk + d)]), kt, acc[q]);
                acc[q] = _mm512_fmadd_ps(_mm512_set1_ps(w.qv[size_t(q * dk + d)]), _mm512_loadu_ps(pt - q), acc[q]);
            }
        }
        for (int q = 0; q < NQ; ++q) _mm512_storeu_ps(scores + q * stride + j0, _mm512_mul_ps(acc[q], _mm512_set1_ps(scale)));
    }
    // 2. softmax over the valid keys, in place.
    float inv_sum[NQ];
    const int64_t full = s.valid / 16 * 16;
    const __mmask16 tail_mask = __mmask16((1u << (s.valid - full)) - 1u);
    for (int q = 0; q < NQ; ++q) {
        float * row = scores + q * stride;
        __m512 mx = _mm512_set1_ps(-INFINITY);
        for (int64_t j = 0; j < full; j += 16) mx = _mm512_max_ps(mx, _mm512_loadu_ps(row + j));
        if (tail_mask) mx = _mm512_mask_max_ps(mx, tail_mask, mx, _mm512_loadu_ps(row + full));
        const __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
        __m512 sum = _mm512_setzero_ps();
        for (int64_t j = 0; j < full; j += 16) {
            const __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(row + j), m));
            _mm512_storeu_ps(row + j, e);
            sum = _mm512_add_ps(sum, e);
        }
        if (tail_mask) {
            const __m512 e = _mm512_maskz_mov_ps(tail_mask, exp512(_mm512_sub_ps(_mm512_loadu_ps(row + full), m)));
            _mm512_storeu_ps(row + full, e);
            sum = _mm512_add_ps(sum, e);
        }
        inv_sum[q] = 1.0f / _mm512_reduce_add_ps(sum);
    }
    // 3. context = Σ_j e_j·v_j / Σ e, in chunks of up to 4 vectors of channels.
    for (int64_t c0 = 0; c0 < dk; c0 += 64) {
        const int nv = int(std::min<int64_t>(4, (dk - c0) / 16));
        __m512 acc[NQ][4];
        for (int q = 0; q < NQ; ++q)
            for (int c = 0; c < 4; ++c) acc[q][c] = _mm512_setzero_ps();
        for (int64_t j = 0; j < s.valid; ++j) {
            const float * vj = reinterpret_cast<const float *>(static_cast<const char *>(v->data) + size_t(j) * v->nb[1]) + h * dk + c0;
            __m512 vv[4];
            for (int c = 0; c < nv; ++c) vv[c] = _mm512_loadu_ps(vj + 16 * c);
            for (int q = 0; q < NQ; ++q) {
                const __m512 e = _mm512_set1_ps(scores[q * stride + j]);
                for (int c = 0; c < nv; ++c) acc[q][c] = _mm512_fmadd_ps(e, vv[c], acc[q][c]);
            }
        }
        for (int q = 0; q < NQ; ++q) {
            float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i0 + q) * dst->nb[1]) + h * dk + c0;
            for (int c = 0; c < nv; ++c) _mm512_storeu_ps(out + 16 * c, _mm512_mul_ps(acc[q][c], _mm512_set1_ps(inv_sum[q])));
        }
    }
}

void attention_op(ggml_tensor * dst, int ith, int nth, void *) {
    const ggml_tensor * q = dst->src[0], * k = dst->src[1], * v = dst->src[2], * p = dst->src[3];
    const ggml_tensor * bu = dst->src[4], * bv = dst->src[5], * mask = dst->src[6];
    const int heads = int(bu->ne[1]);
    Shapes s{};
    s.d_model = dst->ne[0];
    s.dk = bu->ne[0];
    s.frames = dst->ne[1];
    s.valid = s.frames;
    if (mask != nullptr) {  // the frame mask is 1 on [0, valid) and 0 after
        const float * m = static_cast<const float *>(mask->data);
        s.valid = 0;
        while (s.valid < s.frames && m[s.valid] != 0.0f) ++s.valid;
    }
    s.positions = p->ne[1];
    s.key_stride = round16(std::max<int64_t>(s.valid, 1));
    s.pos_stride = s.positions + 16;
    const float scale = 1.0f / std::sqrt(float(s.dk));

    const int64_t blocks = (s.frames + kQueries - 1) / kQueries;
    const int64_t items = int64_t(heads) * blocks;
    const int64_t per = (items + nth - 1) / nth;
    const int64_t first = std::min<int64_t>(items, per * ith), last = std::min<int64_t>(items, first + per);

    thread_local Scratch w;
    w.head = -1;
    w.scores.resize(size_t(kQueries) * size_t(s.key_stride));
    w.qu.resize(size_t(kQueries) * size_t(s.dk));
    w.qv.resize(size_t(kQueries) * size_t(s.dk));
    const float * u_all = static_cast<const float *>(bu->data);
    const float * v_all = static_cast<const float *>(bv->data);
    for (int64_t item = first; item < last; ++item) {
        const int h = int(item / blocks);
        const int64_t i0 = (item % blocks) * kQueries;
        const int nq = int(std::min<int64_t>(kQueries, s.frames - i0));
        // Padded query rows (i ≥ valid) get zero context (NeMo masks the whole row).
        const int live = int(std::clamp<int64_t>(s.valid - i0, 0, nq));
        for (int r = live; r < nq; ++r) {
            float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i0 + r) * dst->nb[1]) + h * s.dk;
            std::memset(out, 0, size_t(s.dk) * sizeof(float));
        }
        if (live == 0) continue;
        if (w.head != h) transpose_head(k, p, h, s, w);
        for (int r = 0; r < live; ++r) {
            const float * qi = reinterpret_cast<const float *>(static_cast<const char *>(q->data) + size_t(i0 + r) * q->nb[1]) + h * s.dk;
            for (int64_t d = 0; d < s.dk; ++d) {
                w.qu[size_t(r * s.dk + d)] = qi[d] + u_all[h * s.dk + d];
                w.qv[size_t(r * s.dk + d)] = qi[d] + v_all[h * s.dk + d];
            }
        }
        switch (live) {
            case 1: attend_block<1>(v, dst, h, i0, s, w, scale); break;
            case 2: attend_block<2>(v, dst, h, i0, s, w, scale); break;
            case 3: attend_block<3>(v, dst, h, i0, s, w, scale); break;
            default: attend_block<4>(v, dst, h, i0, s, w, scale); break;
        }
    }
}

#else

void attention_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace

bool fused_attention_available() {
    static const bool ok = cpu_has_avx512f();
    return ok;
}

ggml_tensor * fused_rel_pos_attention(ggml_context * ctx, ggml_tensor * q, ggml_tensor * k, ggml_tensor * v, ggml_tensor * p,
                                      ggml_tensor * bias_u, ggml_tensor * bias_v, ggml_tensor * frame_mask) {
    for (const ggml_tensor * t : {q, k, v, p}) GGML_ASSERT(t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float) && t->ne[2] == 1);
    GGML_ASSERT(bias_u->ne[0] % 16 == 0 && ggml_is_contiguous(bias_u) && ggml_is_contiguous(bias_v));
    GGML_ASSERT(p->ne[1] == 2 * q->ne[1] - 1);
    ggml_tensor * args[] = {q, k, v, p, bias_u, bias_v, frame_mask};
    ggml_tensor * y = ggml_custom_4d(ctx, GGML_TYPE_F32, q->ne[0], q->ne[1], 1, 1, args, frame_mask != nullptr ? 7 : 6, attention_op,
                                     GGML_N_TASKS_MAX, nullptr);
    ggml_set_name(y, "attention_fused");
    return y;
}

}  // namespace parakeet
