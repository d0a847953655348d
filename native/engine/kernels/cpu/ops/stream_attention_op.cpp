// stream_attention_op.h: per (head, query) item, the scores over the key window (content and
// position terms, rel_shift as an index), NeMo's masked softmax (torch.softmax after masked_fill,
// as ggml_soft_max_ext computes it: the max subtracted, exp, the sum's reciprocal), then the
// context as a weighted sum of value columns.
#include "stream_attention_op.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu_features.h"
#include "cpu_ops.h"
#include "simd_math.h"

namespace parakeet {
namespace {

struct Views {
    const ggml_tensor *q, *keys, *values, *p, *bias_u, *bias_v, *mask;
    int64_t d_model, dk, heads, queries, key_count;
};

Views views_of(const ggml_tensor * dst) {
    Views v{dst->src[0], dst->src[1], dst->src[2], dst->src[3], dst->src[4], dst->src[5], dst->src[6], 0, 0, 0, 0, 0};
    v.d_model = v.q->ne[0];
    v.dk = v.p->ne[0];
    v.heads = v.p->ne[2];
    v.queries = v.q->ne[1];
    v.key_count = v.keys->ne[1];
    return v;
}

inline const float * column(const ggml_tensor * t, int64_t j) {
    return reinterpret_cast<const float *>(static_cast<const char *>(t->data) + size_t(j) * t->nb[1]);
}

inline const float * position(const ggml_tensor * p, int64_t r, int64_t h) {
    return reinterpret_cast<const float *>(static_cast<const char *>(p->data) + size_t(r) * p->nb[1] + size_t(h) * p->nb[2]);
}

#ifdef PARAKEET_X86
PARAKEET_AVX512 inline float dot16s(const float * a, const float * b, int64_t n) {
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
        acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), acc1);
    }
    if (i < n) acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);  // n is a multiple of 16
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

// One (head, query) item; `scores` holds Tk floats.
PARAKEET_AVX512 void attend(const Views & v, int64_t h, int64_t i, float * qu, float * qv, float * scores, float * out) {
    const int64_t dk = v.dk, Tk = v.key_count, Tq = v.queries;
    const float * q = column(v.q, i) + h * dk;
    const float * bu = static_cast<const float *>(v.bias_u->data) + h * dk;
    const float * bv = static_cast<const float *>(v.bias_v->data) + h * dk;
    for (int64_t d = 0; d < dk; d += 16) {
        const __m512 x = _mm512_loadu_ps(q + d);
        _mm512_storeu_ps(qu + d, _mm512_add_ps(x, _mm512_loadu_ps(bu + d)));
        _mm512_storeu_ps(qv + d, _mm512_add_ps(x, _mm512_loadu_ps(bv + d)));
    }
    const float scale = 1.0f / std::sqrt(float(dk));
    const float * mask = column(v.mask, i);
    for (int64_t j = 0; j < Tk; ++j) {
        // rel_shift: query i (absolute L + i) and key j are L + i − j apart, row Tq − 1 − i + j of p.
        scores[j] = (dot16s(qu, column(v.keys, j) + h * dk, dk) + dot16s(qv, position(v.p, Tq - 1 - i + j, h), dk)) * scale + mask[j];
    }
    // The softmax sixteen keys at a time (a scalar expf per key took about a third of the op); masked
    // keys (−∞) get exactly 0, not exp512's clamped 1e−38.
    const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    __m512 top16 = minus_inf;
    for (int64_t j = 0; j < Tk; j += 16) {
        const __mmask16 lanes = Tk - j >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (Tk - j)) - 1u);
        top16 = _mm512_max_ps(top16, _mm512_mask_loadu_ps(minus_inf, lanes, scores + j));
    }
    const __m512 top = _mm512_set1_ps(_mm512_reduce_max_ps(top16));
    __m512 sum16 = _mm512_setzero_ps();
    for (int64_t j = 0; j < Tk; j += 16) {
        const __mmask16 lanes = Tk - j >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (Tk - j)) - 1u);
        const __m512 x = _mm512_mask_loadu_ps(minus_inf, lanes, scores + j);
        const __mmask16 open = _mm512_cmp_ps_mask(x, minus_inf, _CMP_NEQ_OQ);
        const __m512 e = _mm512_maskz_mov_ps(open, exp512(_mm512_sub_ps(x, top)));
        _mm512_mask_storeu_ps(scores + j, lanes, e);
        sum16 = _mm512_add_ps(sum16, e);
    }
    const float sum = _mm512_reduce_add_ps(sum16);
    const float inv = 1.0f / sum;
    // Four 16-channel accumulators at a time: one chain per accumulator would wait out each FMA's latency.
    int64_t d = 0;
    for (; d + 64 <= dk; d += 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
        for (int64_t j = 0; j < Tk; ++j) {
            const float * vj = column(v.values, j) + h * dk + d;
            const __m512 w = _mm512_set1_ps(scores[j]);
            a0 = _mm512_fmadd_ps(w, _mm512_loadu_ps(vj), a0);
            a1 = _mm512_fmadd_ps(w, _mm512_loadu_ps(vj + 16), a1);
            a2 = _mm512_fmadd_ps(w, _mm512_loadu_ps(vj + 32), a2);
            a3 = _mm512_fmadd_ps(w, _mm512_loadu_ps(vj + 48), a3);
        }
        const __m512 r = _mm512_set1_ps(inv);
        _mm512_storeu_ps(out + d, _mm512_mul_ps(a0, r));
        _mm512_storeu_ps(out + d + 16, _mm512_mul_ps(a1, r));
        _mm512_storeu_ps(out + d + 32, _mm512_mul_ps(a2, r));
        _mm512_storeu_ps(out + d + 48, _mm512_mul_ps(a3, r));
    }
    for (; d < dk; d += 16) {
        __m512 a = _mm512_setzero_ps();
        for (int64_t j = 0; j < Tk; ++j) a = _mm512_fmadd_ps(_mm512_set1_ps(scores[j]), _mm512_loadu_ps(column(v.values, j) + h * dk + d), a);
        _mm512_storeu_ps(out + d, _mm512_mul_ps(a, _mm512_set1_ps(inv)));
    }
}
#endif

void stream_attention_op(ggml_tensor * dst, int ith, int nth, void *) {
#ifdef PARAKEET_X86
    const Views v = views_of(dst);
    std::vector<float> scratch(size_t(2 * v.dk + v.key_count));
    const ThreadShare share = thread_share(v.heads * v.queries, ith, nth);
    for (int64_t item = share.begin; item < share.end; ++item) {
        const int64_t h = item / v.queries, i = item % v.queries;
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i) * dst->nb[1]) + h * v.dk;
        attend(v, h, i, scratch.data(), scratch.data() + v.dk, scratch.data() + 2 * v.dk, out);
    }
#else
    (void)dst, (void)ith, (void)nth;
#endif
}

}  // namespace

bool stream_attention_available(int64_t dk) { return dk > 0 && dk % 16 == 0 && cpu_has_avx512f(); }

ggml_tensor * stream_rel_pos_attention(ggml_context * ctx, ggml_tensor * q, ggml_tensor * keys, ggml_tensor * values, ggml_tensor * p,
                                       ggml_tensor * bias_u, ggml_tensor * bias_v, ggml_tensor * mask) {
    const int64_t D = q->ne[0], Tq = q->ne[1], Tk = keys->ne[1], dk = p->ne[0], H = p->ne[2];
    GGML_ASSERT(dk * H == D && keys->ne[0] == D && values->ne[0] == D && values->ne[1] == Tk && p->ne[1] >= 2 * Tk - 1);
    GGML_ASSERT(q->nb[0] == sizeof(float) && keys->nb[0] == sizeof(float) && values->nb[0] == sizeof(float) && p->nb[0] == sizeof(float));
    GGML_ASSERT(ggml_nelements(bias_u) == D && ggml_nelements(bias_v) == D && ggml_is_contiguous(bias_u) && ggml_is_contiguous(bias_v));
    GGML_ASSERT(mask->ne[0] == Tk && mask->ne[1] == Tq && ggml_is_contiguous(mask));
    ggml_tensor * args[] = {q, keys, values, p, bias_u, bias_v, mask};
    ggml_tensor * out = ggml_custom_4d(ctx, GGML_TYPE_F32, D, Tq, 1, 1, args, 7, stream_attention_op, GGML_N_TASKS_MAX, nullptr);
    ggml_set_name(out, "stream_attention");
    return out;
}

}  // namespace parakeet
