// Fused relative-position attention on 14-bit integers (see attention_op.h): the F32 op's
// blocks and band (attention_f32_avx512.cpp), with every product on VPDPWSSD, which multiplies pairs of
// int16 into int32 at twice the F32 FMA's multiplies per instruction.
//
//   scores: (q + u) and (q + v) per query, K per key and P per position are rows of ±L integers
//           with one float scale each, L = ⌊√((2³¹ − 1)/dk)⌋ (4095 for dk 128, 5792 for 64), so a
//           row's dk products sum exactly in int32; the score is that sum times both scales.
//   context: V per channel as ±4095 with a scale per channel; the softmax numerators e ∈ (0, 1]
//           of a query as integers n_j = round(e_j·λ), λ = min(32767, B/Σe) with B = ⌊(2³¹−1)/4095⌋
//           less the key count, so Σ n ≤ B + keys/2 and the whole Σ_j n_j·v_j sums exactly in
//           int32; the context is divided by Σ n itself, so the weights it applies add up to 1
//           and each is off by at most half a level of a sum of ≈ 2¹⁹ levels (peaked rows: 15 bits
//           for the largest).
// Every value keeps 12–14 bits of its row or channel (Q8_0 keeps 8 of its block): the quantized
// files' attention (q8_0_vnni.h), which ran in F32 here, 18–22 % of a 0.6B encoder at 60 s.
#include "attention_i16_blocks.h"
#include "attention_op.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attention_i16_ymm.h"
#include "registry.h"
#include "simd_math.h"

namespace parakeet {

using namespace attention_i16;

#ifdef PARAKEET_X86

namespace {

constexpr int kContextQueries = 14;  // queries per context register tile (14 × 32 channels)

// x (n a multiple of 16) as ±levels integers into out; returns the scale (max|x| / levels).
PARAKEET_VNNI512 float quantize_row(const float * x, int64_t n, int levels, int16_t * out) {
    __m512 amax = _mm512_setzero_ps();
    for (int64_t i = 0; i < n; i += 16) amax = _mm512_max_ps(amax, _mm512_abs_ps(_mm512_loadu_ps(x + i)));
    const float m = _mm512_reduce_max_ps(amax);
    const __m512 inv = _mm512_set1_ps(m > 0.0f ? float(levels) / m : 0.0f);
    for (int64_t i = 0; i < n; i += 16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                            _mm512_cvtepi32_epi16(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + i), inv))));
    }
    return m / float(levels);
}

// Rows [0, n) of head h of t as pair words at dst[layout.at(offset + j, pair)], scales at
// scale[offset + j]: 16 rows at a time quantized into a block, then transposed in registers.
PARAKEET_VNNI512 void transpose_rows(const ggml_tensor * t, int h, int64_t dk, int64_t n, int levels, int32_t * dst, const ColumnLayout & layout,
                                     int64_t offset, float * scale) {
    alignas(64) int16_t block[16][kMaxHeadDim];
    const int64_t pairs = dk / 2;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        // The next block's rows asked for now: P comes from the table kept between runs
        // (position_table.h), in DRAM, a head's dk values every D, which the hardware prefetcher
        // does not follow (0.6B at 10 s: the op 14.6 → 18.7 ms without this).
        for (int64_t i = j + 16; i < std::min(n, j + 32); ++i) {
            const char * r = reinterpret_cast<const char *>(row_of(t, i) + h * dk);
            for (int64_t b = 0; b < dk * int64_t(sizeof(float)); b += 64) _mm_prefetch(r + b, _MM_HINT_T0);
        }
        for (int i = 0; i < 16; ++i) scale[offset + j + i] = quantize_row(row_of(t, j + i) + h * dk, dk, levels, block[i]);
        int64_t d0 = 0;
        for (; d0 + 16 <= pairs; d0 += 16) {
            const float * src[16];
            for (int i = 0; i < 16; ++i) src[i] = reinterpret_cast<const float *>(block[i]) + d0;
            transpose16(src, reinterpret_cast<float *>(dst + layout.at(offset + j, d0)), layout.row_stride);
        }
        for (; d0 < pairs; ++d0) {  // dk not a multiple of 32: the last 8 pairs
            for (int i = 0; i < 16; ++i) dst[layout.at(offset + j + i, d0)] = reinterpret_cast<const int32_t *>(block[i])[d0];
        }
    }
    for (; j < n; ++j) {
        scale[offset + j] = quantize_row(row_of(t, j) + h * dk, dk, levels, block[0]);
        const int32_t * words = reinterpret_cast<const int32_t *>(block[0]);
        for (int64_t d = 0; d < pairs; ++d) dst[layout.at(offset + j, d)] = words[d];
    }
}

// V of head h with a scale per channel over the valid keys, in slices of 32 channels (the last may
// be 16), each [pair][width] words = (v[2·pair][c], v[2·pair + 1][c]): the context tile streams one
// slice front to back.
PARAKEET_VNNI512 void quantize_values(const ggml_tensor * v, int h, const Shapes & s, Scratch & w) {
    const int64_t dk = s.dk, pairs = (s.valid + 1) / 2, groups = dk / 16;
    __m512 amax[kMaxHeadDim / 16];
    for (int64_t g = 0; g < groups; ++g) amax[g] = _mm512_setzero_ps();
    for (int64_t j = 0; j < s.valid; ++j) {
        const float * r = row_of(v, j) + h * dk;
        for (int64_t g = 0; g < groups; ++g) amax[g] = _mm512_max_ps(amax[g], _mm512_abs_ps(_mm512_loadu_ps(r + 16 * g)));
    }
    __m512 inv[kMaxHeadDim / 16];
    w.v_scale.resize(size_t(dk));
    for (int64_t g = 0; g < groups; ++g) {
        inv[g] = _mm512_maskz_div_ps(_mm512_cmpneq_ps_mask(amax[g], _mm512_setzero_ps()), _mm512_set1_ps(kValueLevels), amax[g]);
        _mm512_storeu_ps(w.v_scale.data() + 16 * g, _mm512_div_ps(amax[g], _mm512_set1_ps(kValueLevels)));
    }
    w.vq.resize(size_t(pairs * dk));
    for (int64_t jp = 0; jp < pairs; ++jp) {
        const float * lo_row = row_of(v, 2 * jp) + h * dk;
        const float * hi_row = 2 * jp + 1 < s.valid ? row_of(v, 2 * jp + 1) + h * dk : nullptr;
        for (int64_t g = 0; g < groups; ++g) {
            const __m512i lo = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(lo_row + 16 * g), inv[g]));
            const __m512i hi =
                    hi_row != nullptr ? _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(hi_row + 16 * g), inv[g])) : _mm512_setzero_si512();
            const int64_t c0 = 16 * g / 32 * 32, width = std::min<int64_t>(32, dk - c0);
            _mm512_storeu_si512(w.vq.data() + pairs * c0 + jp * width + (16 * g - c0),
                                _mm512_or_si512(_mm512_and_si512(lo, _mm512_set1_epi32(0xFFFF)), _mm512_slli_epi32(hi, 16)));
        }
    }
}

// Kᵀ, Pᵀ (positions after kPosFront slack columns) and V of head h, quantized (columns past the keys
// and positions zero: clear_head_tails).
void quantize_head(const ggml_tensor * k, const ggml_tensor * p, const ggml_tensor * v, int h, const Shapes & s, Scratch & w) {
    const int levels = score_levels(s.dk);
    clear_head_tails(s, w);
    transpose_rows(k, h, s.dk, s.valid, levels, w.kt.data(), key_layout(s), 0, w.k_scale.data());
    transpose_rows(p, h, s.dk, s.positions, levels, w.pt.data(), position_layout(s), kPosFront, w.p_scale.data());
    quantize_values(v, h, s, w);
}

// out[q][c] = col_scale[c] · Σ_pairs a[q]·bt[c] for the first `live` of kQueries query rows (dk/2 words
// each) and columns [0, cols) in steps of 32, as register tiles of kTileQueries × 32 int32 sums.
// The query's own scale is applied by the softmax. Not inlined, as the F32 op's (attention_f32_avx512.cpp).
PARAKEET_VNNI512 __attribute__((noinline)) void rows_times_columns(const int32_t * a, int64_t pairs, const int32_t * bt_all,
                                                                   const ColumnLayout & layout, const float * col_scale, int64_t cols, float * out,
                                                                   int64_t out_stride, int live) {
    const int64_t bt_stride = layout.row_stride;
    for (int64_t c0 = 0; c0 < cols; c0 += 32) {
        const int32_t * bt = bt_all + layout.at(c0, 0) - c0;
        const __m512 s0 = _mm512_loadu_ps(col_scale + c0), s1 = _mm512_loadu_ps(col_scale + c0 + 16);
        for (int q0 = 0; q0 < live; q0 += kTileQueries) {
            __m512i acc[kTileQueries][2];
            for (int q = 0; q < kTileQueries; ++q) acc[q][0] = acc[q][1] = _mm512_setzero_si512();
            const int32_t * aq = a + q0 * pairs;
            for (int64_t d = 0; d < pairs; ++d) {
                const __m512i b0 = _mm512_loadu_si512(bt + d * bt_stride + c0);
                const __m512i b1 = _mm512_loadu_si512(bt + d * bt_stride + c0 + 16);
                for (int q = 0; q < kTileQueries; ++q) {
                    const __m512i x = _mm512_set1_epi32(aq[q * pairs + d]);
                    dpwssd_into(acc[q][0], x, b0);
                    dpwssd_into(acc[q][1], x, b1);
                }
            }
            for (int q = 0; q < kTileQueries; ++q) {
                _mm512_storeu_ps(out + (q0 + q) * out_stride + c0, _mm512_mul_ps(_mm512_cvtepi32_ps(acc[q][0]), s0));
                _mm512_storeu_ps(out + (q0 + q) * out_stride + c0 + 16, _mm512_mul_ps(_mm512_cvtepi32_ps(acc[q][1]), s1));
            }
        }
    }
}

// Context rows for queries [q0, q0 + NQ), channels [c0, c0 + 16·NV): v_scale · Σ_j n[q][j]·v_j / Σ_j n[q][j],
// the sums in int32 over all the keys (the numerators' budget keeps them exact, see the top).
template <int NQ, int NV>
PARAKEET_VNNI512 __attribute__((noinline)) void weighted_values(const Scratch & w, ggml_tensor * dst, int h, int64_t i0, int q0, int64_t c0,
                                                                const Shapes & s, const float * inv_sum) {
    const int64_t pairs = (s.valid + 1) / 2, row_words = s.key_cols / 2, width = 16 * NV;
    const int32_t * n = reinterpret_cast<const int32_t *>(w.numerators.data()) + q0 * row_words;
    const int32_t * slice = w.vq.data() + pairs * c0;
    __m512i acc[NQ][NV];
#pragma GCC unroll 16
    for (int q = 0; q < NQ; ++q)
#pragma GCC unroll 16
        for (int c = 0; c < NV; ++c) acc[q][c] = _mm512_setzero_si512();
    for (int64_t jp = 0; jp < pairs; ++jp) {
        __m512i vv[NV];
#pragma GCC unroll 16
        for (int c = 0; c < NV; ++c) vv[c] = _mm512_loadu_si512(slice + jp * width + 16 * c);
#pragma GCC unroll 16
        for (int q = 0; q < NQ; ++q) {
            const __m512i x = _mm512_set1_epi32(n[q * row_words + jp]);
#pragma GCC unroll 16
            for (int c = 0; c < NV; ++c) dpwssd_into(acc[q][c], x, vv[c]);
        }
    }
#pragma GCC unroll 16
    for (int q = 0; q < NQ; ++q) {
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i0 + q0 + q) * dst->nb[1]) + h * s.dk + c0;
        const __m512 k = _mm512_set1_ps(inv_sum[q0 + q]);
#pragma GCC unroll 16
        for (int c = 0; c < NV; ++c) {
            _mm512_storeu_ps(out + 16 * c,
                             _mm512_mul_ps(_mm512_cvtepi32_ps(acc[q][c]), _mm512_mul_ps(_mm512_loadu_ps(w.v_scale.data() + c0 + 16 * c), k)));
        }
    }
}

template <int NQ>
PARAKEET_VNNI512 void weighted_values_all(const Scratch & w, ggml_tensor * dst, int h, int64_t i0, int q0, const Shapes & s, const float * inv_sum) {
    for (int64_t c0 = 0; c0 < s.dk; c0 += 32) {
        if (s.dk - c0 >= 32)
            weighted_values<NQ, 2>(w, dst, h, i0, q0, c0, s, inv_sum);
        else
            weighted_values<NQ, 1>(w, dst, h, i0, q0, c0, s, inv_sum);
    }
}

PARAKEET_VNNI512 void attend_block(ggml_tensor * dst, int h, int64_t i0, int live, const Shapes & s, Scratch & w, float scale) {
    const int64_t pairs = s.dk / 2, stride = s.key_stride;
    // 1. AC = (q + u)·Kᵀ over all key columns, 2. the block's band of (q + v)·Pᵀ (attention_f32_avx512.cpp).
    rows_times_columns(w.qu.data(), pairs, w.kt.data(), key_layout(s), w.k_scale.data(), s.key_cols, w.scores.data(), stride, live);
    const int64_t lo = s.frames - 1 - (i0 + kQueries - 1);
    rows_times_columns(w.qv.data(), pairs, w.pt.data() + kPosFront + lo, position_layout(s), w.p_scale.data() + kPosFront + lo, s.band, w.bd.data(),
                       s.band, live);
    // 3. scores = (AC·s_qu + shifted BD·s_qv)/√dk; softmax numerators over the valid keys as integers.
    float inv_sum[kQueries];
    const int64_t full = s.valid / 16 * 16;
    const __mmask16 tail = __mmask16((1u << (s.valid - full)) - 1u);
    for (int q = 0; q < live; ++q) {
        float * row = w.scores.data() + q * stride;
        const float * bd = w.bd.data() + q * s.band + (kQueries - 1 - q);
        const __m512 a = _mm512_set1_ps(w.qu_scale[q] * scale), b = _mm512_set1_ps(w.qv_scale[q] * scale);
        __m512 mx = _mm512_set1_ps(-INFINITY);
        for (int64_t j = 0; j < full; j += 16) {
            const __m512 x = _mm512_fmadd_ps(_mm512_loadu_ps(bd + j), b, _mm512_mul_ps(_mm512_loadu_ps(row + j), a));
            _mm512_storeu_ps(row + j, x);
            mx = _mm512_max_ps(mx, x);
        }
        if (tail) {
            const __m512 x = _mm512_fmadd_ps(_mm512_loadu_ps(bd + full), b, _mm512_mul_ps(_mm512_loadu_ps(row + full), a));
            _mm512_storeu_ps(row + full, x);
            mx = _mm512_mask_max_ps(mx, tail, mx, x);
        }
        const __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
        __m512 total = _mm512_setzero_ps();
        for (int64_t j = 0; j < s.key_cols; j += 16) {
            const __mmask16 keep = j < full ? __mmask16(0xFFFF) : j == full ? tail : __mmask16(0);
            const __m512 e = _mm512_maskz_mov_ps(keep, exp512(_mm512_sub_ps(_mm512_loadu_ps(row + j), m)));
            _mm512_storeu_ps(row + j, e);
            total = _mm512_add_ps(total, e);
        }
        // e ≤ 1 (the largest is 1): the numerators get min(32767, budget / Σe) levels.
        const __m512 levels = _mm512_set1_ps(std::min(kNumeratorPeak, numerator_budget(s.key_cols) / _mm512_reduce_add_ps(total)));
        int16_t * n = w.numerators.data() + q * s.key_cols;
        __m512i sum = _mm512_setzero_si512();
        for (int64_t j = 0; j < s.key_cols; j += 16) {
            const __m512i e = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(row + j), levels));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(n + j), _mm512_cvtepi32_epi16(e));
            sum = _mm512_add_epi32(sum, e);
        }
        inv_sum[q] = 1.0f / float(_mm512_reduce_add_epi32(sum));
    }
    // 4. context, kContextQueries queries × 32 channels at a time: each slice of V loaded serves them all.
    for (int q0 = 0; q0 < live; q0 += kContextQueries) {
        with_query_count<kContextQueries>(std::min(kContextQueries, live - q0),
                                          [&](auto nq) { weighted_values_all<decltype(nq)::value>(w, dst, h, i0, q0, s, inv_sum); });
    }
}

// (q + bias) of one query row (dk channels) as ±levels pair words; returns its scale.
PARAKEET_VNNI512 float biased_query(const float * q, const float * bias, int64_t dk, int levels, int32_t * words) {
    alignas(64) float x[kMaxHeadDim];
    for (int64_t d = 0; d < dk; d += 16) _mm512_store_ps(x + d, _mm512_add_ps(_mm512_loadu_ps(q + d), _mm512_loadu_ps(bias + d)));
    return quantize_row(x, dk, levels, reinterpret_cast<int16_t *>(words));
}

// The three steps run_blocks (attention_i16_blocks.h) calls, on zmm.
struct Zmm {
    static void quantize_head(const ggml_tensor * k, const ggml_tensor * p, const ggml_tensor * v, int h, const Shapes & s, Scratch & w) {
        parakeet::quantize_head(k, p, v, h, s, w);
    }
    static float biased_query(const float * q, const float * bias, int64_t dk, int levels, int32_t * words) {
        return parakeet::biased_query(q, bias, dk, levels, words);
    }
    static void attend_block(ggml_tensor * dst, int h, int64_t i0, int live, const Shapes & s, Scratch & w, float scale) {
        parakeet::attend_block(dst, h, i0, live, s, w, scale);
    }
};

}  // namespace

void attention_i16_op(ggml_tensor * dst, int ith, int nth, void *) { run_blocks<Zmm>(dst, ith, nth); }

#else

void attention_i16_op(ggml_tensor *, int, int, void *) {}

#endif

namespace {
/** The AttentionInt16 row of the kernel registry this CPU runs (registry.cpp), or nullptr. */
const OpKernelRow * int16_row() {
    static const OpKernelRow * row = choose_op_kernel(FusedOp::AttentionInt16);
    return row;
}
}  // namespace

bool int16_attention_available(int64_t dk) { return int16_row() != nullptr && dk % 16 == 0 && dk <= kMaxHeadDim; }

ggml_custom_op_t attention_i16_body() {
    switch (int16_row() != nullptr ? int16_row()->id : OpKernelId::AttentionI16Vnni) {
        case OpKernelId::AttentionI16AvxVnni: return attention_i16_avx_vnni_vex_op;
        case OpKernelId::AttentionI16AvxVnniEvex: return attention_i16_avx_vnni_evex_op;
        case OpKernelId::AttentionI16Avx2: return attention_i16_avx2_op;
        default: return attention_i16_op;
    }
}

}  // namespace parakeet
