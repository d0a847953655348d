// Fused relative-position attention on AMX-BF16 tiles (see attention_op.h): the 14-bit op's
// blocks and band (attention_i16_vnni.cpp), with its products on TDPBF16PS, for files whose matmuls
// run on the tiles already (Q8_0 under 'auto' where the AMX probe passed, model_weights.cpp).
//
//   scores: (q + u), (q + v), K and P rounded to BF16 (8 significant bits, as the matmuls' inputs
//           on the tiles), products summed in F32 over the head's channels;
//   context: the softmax numerators e ∈ (0, 1] rounded to BF16 and V rounded to BF16, F32 sums,
//           divided by the sum of the rounded numerators, so the weights applied add up to 1.
// Per (head, block of 32 queries): two query tiles × two 16-column tiles per pass (tmm0–1 the
// queries' or numerators' A tiles, tmm2–3 B, tmm4–7 the sums), then the F32 softmax between.
// Against the 14-bit op at 0.6B, 10 s: the same blocks in ≈ a third of the time (see the README's
// profile); per value 8 bits where that op keeps 12–14.
#include "attention_blocks.h"
#include "attention_op.h"

#include <cmath>
#include <vector>

#include "amx.h"
#include "amx_bf16.h"
#include "simd_math.h"

namespace parakeet {

using namespace attention_blocks;

#ifdef PARAKEET_AMX
#define PARAKEET_AMX_ATTN __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))

namespace {

constexpr int kBlockQueries = 32;  // two 16-row query tiles per work item
constexpr int64_t kMaxHeadDim = 512;

struct Scratch {
    // BF16 pairs as 32-bit words: (x[2i], x[2i + 1]) in one word, as TDPBF16PS takes its B rows.
    std::vector<uint32_t> kt;                // [dk/2][key_cols]: Kᵀ, keys past the valid ones zero
    std::vector<uint32_t> pt;                // [dk/2][pos_stride]: Pᵀ after kPosFront zero columns, zero after the positions
    const uint32_t * pt_head = nullptr;      // the head's Pᵀ rows: pt, or the kept table's (amx_position_words)
    int64_t pt_stride = 0;                   // words from one of its rows to the next
    std::vector<uint32_t> vt;                // [key_cols/2][dk]: (v[2j][c], v[2j + 1][c]), keys past the valid ones zero
    std::vector<uint16_t> qu, qv;            // [32][dk] BF16: the block's queries plus u, plus v (rows past the live ones zero)
    std::vector<uint16_t> numerators;        // [32][key_cols] BF16
    std::vector<float> scores, bd, context;  // [32][key_stride], [32][band], [32][dk]
    int head = -1;
};

PARAKEET_AMX_ATTN inline __m512i bf16_words(const float * x) {  // 32 floats → 16 words (x[2i], x[2i + 1])
    const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + 16), _mm512_loadu_ps(x));
    return reinterpret_cast<const __m512i &>(v);
}

/**
 * Rows [0, n) of head h of t (dk channels each) as BF16 pair words transposed: row j's word d at
 * dst[d·stride + offset + j]. 16 rows at a time through transpose16; the rest one by one.
 */
PARAKEET_AMX_ATTN void transposed_words(const ggml_tensor * t, int h, int64_t dk, int64_t n, uint32_t * dst, int64_t stride, int64_t offset) {
    alignas(64) uint32_t block[16][kMaxHeadDim / 2];
    const int64_t words = dk / 2;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        for (int i = 0; i < 16; ++i) {
            const float * r = row_of(t, j + i) + h * dk;
            for (int64_t d = 0; d < dk; d += 32) _mm512_store_si512(block[i] + d / 2, bf16_words(r + d));
        }
        for (int64_t d0 = 0; d0 < words; d0 += 16) {
            const float * src[16];
            for (int i = 0; i < 16; ++i) src[i] = reinterpret_cast<const float *>(block[i] + d0);
            transpose16(src, reinterpret_cast<float *>(dst + d0 * stride + offset + j), stride);
        }
    }
    for (; j < n; ++j) {
        const float * r = row_of(t, j) + h * dk;
        for (int64_t d = 0; d < dk; d += 32) _mm512_store_si512(block[0] + d / 2, bf16_words(r + d));
        for (int64_t d = 0; d < words; ++d) dst[d * stride + offset + j] = block[0][d];
    }
}

/** Head h of p [D, positions] as Pᵀ words: `stride` words a row, kPosFront zero columns, the positions, zeros to the row's end. */
PARAKEET_AMX_ATTN void position_words(const ggml_tensor * p, int h, int64_t dk, int64_t positions, uint32_t * dst, int64_t stride) {
    for (int64_t d = 0; d < dk / 2; ++d) {
        uint32_t * row = dst + d * stride;
        std::fill(row, row + kPosFront, 0u);
        std::fill(row + kPosFront + positions, row + stride, 0u);
    }
    transposed_words(p, h, dk, positions, dst, stride, kPosFront);
}

/** K, P and V of head h as the tiles read them (zero where past the valid keys and the positions). */
PARAKEET_AMX_ATTN void convert_head(const ggml_tensor * k, const ggml_tensor * p, const ggml_tensor * v, int h, const Shapes & s, Scratch & w) {
    const int64_t words = s.dk / 2;
    w.kt.assign(size_t(words * s.key_cols), 0u);
    transposed_words(k, h, s.dk, s.valid, w.kt.data(), s.key_cols, 0);
    if (p->type == GGML_TYPE_I32) {  // kept between runs already as these words (position_table.h)
        w.pt_head = reinterpret_cast<const uint32_t *>(static_cast<const char *>(p->data) + size_t(h * words) * p->nb[1]);
        w.pt_stride = int64_t(p->nb[1] / sizeof(uint32_t));
    } else {
        w.pt.resize(size_t(words * s.pos_stride));
        position_words(p, h, s.dk, s.positions, w.pt.data(), s.pos_stride);
        w.pt_head = w.pt.data();
        w.pt_stride = s.pos_stride;
    }
    w.vt.assign(size_t(s.key_cols / 2 * s.dk), 0u);
    for (int64_t jp = 0; 2 * jp < s.valid; ++jp) {
        const float * lo = row_of(v, 2 * jp) + h * s.dk;
        const float * hi = 2 * jp + 1 < s.valid ? row_of(v, 2 * jp + 1) + h * s.dk : nullptr;
        for (int64_t c = 0; c < s.dk; c += 16) {
            const __m256bh l = _mm512_cvtneps_pbh(_mm512_loadu_ps(lo + c));
            const __m512i low = _mm512_cvtepu16_epi32(reinterpret_cast<const __m256i &>(l));
            __m512i word = low;
            if (hi != nullptr) {
                const __m256bh u = _mm512_cvtneps_pbh(_mm512_loadu_ps(hi + c));
                word = _mm512_or_si512(low, _mm512_slli_epi32(_mm512_cvtepu16_epi32(reinterpret_cast<const __m256i &>(u)), 16));
            }
            _mm512_storeu_si512(w.vt.data() + jp * s.dk + c, word);
        }
    }
    w.head = h;
}

/**
 * out[q][c0 + c] = Σ_steps A[q] · B[c] for the block's query tiles (`two`: both, else the first)
 * and 32 columns from c0: A rows `a_stride` bytes apart (32 BF16 per step, `a_step` bytes from
 * one step to the next), B tiles of 16 pair rows per step (`b_row` bytes apart, `b_step` bytes
 * per step, the second 64 bytes after the first), F32 sums stored `out_stride` bytes apart.
 */
inline void tile_pass(const void * a, size_t a_stride, size_t a_step, const void * b, size_t b_row, size_t b_step, int64_t steps, float * out,
                      size_t out_stride, bool two) {
    const char * ap = static_cast<const char *>(a);
    const char * bp = static_cast<const char *>(b);
    const char * a1 = ap + 16 * a_stride;
    asm volatile("tilezero %%tmm4\n\ttilezero %%tmm5\n\ttilezero %%tmm6\n\ttilezero %%tmm7" ::: "memory");
    for (int64_t s = 0; s < steps; ++s) {
        asm volatile(
                "tileloadd (%0,%3,1), %%tmm0\n\t"
                "tileloadd (%1,%4,1), %%tmm2\n\t"
                "tileloadd (%2,%4,1), %%tmm3\n\t"
                "tdpbf16ps %%tmm2, %%tmm0, %%tmm4\n\t"
                "tdpbf16ps %%tmm3, %%tmm0, %%tmm5\n\t" ::"r"(ap + s * a_step),
                "r"(bp + s * b_step), "r"(bp + s * b_step + 64), "r"(a_stride), "r"(b_row)
                : "memory");
        if (two) {
            asm volatile(
                    "tileloadd (%0,%1,1), %%tmm1\n\t"
                    "tdpbf16ps %%tmm2, %%tmm1, %%tmm6\n\t"
                    "tdpbf16ps %%tmm3, %%tmm1, %%tmm7\n\t" ::"r"(a1 + s * a_step),
                    "r"(a_stride)
                    : "memory");
        }
    }
    char * o = reinterpret_cast<char *>(out);
    asm volatile("tilestored %%tmm4, (%0,%2,1)\n\ttilestored %%tmm5, (%1,%2,1)" ::"r"(o), "r"(o + 64), "r"(out_stride) : "memory");
    if (two)
        asm volatile("tilestored %%tmm6, (%0,%2,1)\n\ttilestored %%tmm7, (%1,%2,1)" ::"r"(o + 16 * out_stride), "r"(o + 16 * out_stride + 64),
                     "r"(out_stride)
                     : "memory");
}

/** In a tile output (dst I8: the context as linear_out's BF16 tiles), frame i's 32 channels from c. */
inline uint16_t * tile_line(ggml_tensor * dst, const Shapes & s, int64_t i, int64_t c) {
    return static_cast<uint16_t *>(dst->data) + amx_tile_line(i, s.d_model, c);
}

/** Channels [c0, c1) of frame i in a tile output set to zero. */
PARAKEET_AMX_ATTN void zero_tile_row(ggml_tensor * dst, const Shapes & s, int64_t i, int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; c += 32) _mm512_storeu_si512(tile_line(dst, s, i, c), _mm512_setzero_si512());
}

/** (q + bias) of one query row as dk BF16 values. */
PARAKEET_AMX_ATTN void biased_query(const float * q, const float * bias, int64_t dk, uint16_t * out) {
    for (int64_t d = 0; d < dk; d += 32) {
        const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_add_ps(_mm512_loadu_ps(q + d + 16), _mm512_loadu_ps(bias + d + 16)),
                                               _mm512_add_ps(_mm512_loadu_ps(q + d), _mm512_loadu_ps(bias + d)));
        _mm512_storeu_si512(out + d, reinterpret_cast<const __m512i &>(v));
    }
}

PARAKEET_AMX_ATTN void attend_block(ggml_tensor * dst, int h, int64_t i0, int live, const Shapes & s, Scratch & w, float scale) {
    const bool two = live > 16;
    const int64_t steps = s.dk / 32;
    const size_t q_row = size_t(s.dk) * 2;
    // 1. AC = (q + u)·Kᵀ over all key columns, 2. the block's band of (q + v)·Pᵀ: band column c of
    // query q is position lo + c, its key j at column (31 − q) + j (attention_f32_avx512.cpp).
    for (int64_t c0 = 0; c0 < s.key_cols; c0 += 32) {
        tile_pass(w.qu.data(), q_row, 64, w.kt.data() + c0, size_t(s.key_cols) * 4, size_t(s.key_cols) * 64, steps, w.scores.data() + c0,
                  size_t(s.key_stride) * 4, two);
    }
    const int64_t lo = s.frames - 1 - (i0 + kBlockQueries - 1);
    for (int64_t c0 = 0; c0 < s.band; c0 += 32) {
        tile_pass(w.qv.data(), q_row, 64, w.pt_head + kPosFront + lo + c0, size_t(w.pt_stride) * 4, size_t(w.pt_stride) * 64, steps, w.bd.data() + c0,
                  size_t(s.band) * 4, two);
    }
    // 3. scores = (AC + shifted BD)/√dk over the valid keys; softmax numerators as BF16, and their sum.
    float inv_sum[kBlockQueries];
    const int64_t full = s.valid / 16 * 16;
    const __mmask16 tail = __mmask16((1u << (s.valid - full)) - 1u);
    const __m512 k = _mm512_set1_ps(scale);
    for (int q = 0; q < live; ++q) {
        float * row = w.scores.data() + q * s.key_stride;
        const float * bd = w.bd.data() + q * s.band + (kBlockQueries - 1 - q);
        const __m512 m = _mm512_set1_ps(scaled_scores(row, bd, k, full, tail));
        __m512 total = _mm512_setzero_ps();
        uint16_t * n = w.numerators.data() + q * s.key_cols;
        for (int64_t j = 0; j < s.key_cols; j += 32) {
            __m512 e[2];
            for (int half = 0; half < 2; ++half) {
                const int64_t jj = j + 16 * half;
                const __mmask16 keep = jj < full ? __mmask16(0xFFFF) : jj == full ? tail : __mmask16(0);
                e[half] = _mm512_maskz_mov_ps(keep, exp512(_mm512_sub_ps(_mm512_loadu_ps(row + jj), m)));
            }
            const __m512bh b = _mm512_cvtne2ps_pbh(e[1], e[0]);
            const __m512i bits = reinterpret_cast<const __m512i &>(b);
            _mm512_storeu_si512(n + j, bits);
            // The sum of the numerators as rounded, so the weights applied add up to 1.
            total = _mm512_add_ps(total, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(bits)), 16)));
            total = _mm512_add_ps(total, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(bits, 1)), 16)));
        }
        inv_sum[q] = 1.0f / _mm512_reduce_add_ps(total);
    }
    // 4. context = numerators · V, 32 channels a pass, then each live query's row divided by its sum.
    for (int64_t c0 = 0; c0 < s.dk; c0 += 32) {
        tile_pass(w.numerators.data(), size_t(s.key_cols) * 2, 64, w.vt.data() + c0, size_t(s.dk) * 4, size_t(s.dk) * 64, s.key_cols / 32,
                  w.context.data() + c0, size_t(s.dk) * 4, two);
    }
    for (int q = 0; q < live; ++q) {
        const float * context = w.context.data() + q * s.dk;
        const __m512 r = _mm512_set1_ps(inv_sum[q]);
        if (dst->type == GGML_TYPE_I8) {  // linear_out's BF16 tiles (amx_bf16.h), as amx_tile_row writes a row
            for (int64_t c = 0; c < s.dk; c += 32) {
                const __m512bh v =
                        _mm512_cvtne2ps_pbh(_mm512_mul_ps(_mm512_loadu_ps(context + c + 16), r), _mm512_mul_ps(_mm512_loadu_ps(context + c), r));
                _mm512_storeu_si512(tile_line(dst, s, i0 + q, h * s.dk + c), reinterpret_cast<const __m512i &>(v));
            }
            continue;
        }
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i0 + q) * dst->nb[1]) + h * s.dk;
        for (int64_t c = 0; c < s.dk; c += 16) _mm512_storeu_ps(out + c, _mm512_mul_ps(_mm512_loadu_ps(context + c), r));
    }
}

}  // namespace

void attention_amx_op(ggml_tensor * dst, int ith, int nth, void *) {
    const OpSources in(dst);
    const ggml_tensor *q = in.q, *k = in.k, *v = in.v, *p = in.p, *bu = in.bias_u;
    const Shapes s = shapes_of(dst);
    const float scale = 1.0f / std::sqrt(float(s.dk));
    thread_local Scratch w;
    w.head = -1;
    w.scores.resize(size_t(kBlockQueries) * size_t(s.key_stride));
    w.bd.resize(size_t(kBlockQueries) * size_t(s.band));
    w.context.resize(size_t(kBlockQueries) * size_t(s.dk));
    w.numerators.assign(size_t(kBlockQueries) * size_t(s.key_cols), 0);
    w.qu.assign(size_t(kBlockQueries) * size_t(s.dk), 0);
    w.qv.assign(size_t(kBlockQueries) * size_t(s.dk), 0);
    const TileConfig config = full_tiles();
    load_tile_config(config);
    const bool tiles_out = dst->type == GGML_TYPE_I8;
    if (tiles_out && ith == 0) {  // the last tile's rows past the frames: zero, as the GEMM reads them
        for (int64_t i = s.frames; i < dst->ne[1]; ++i) zero_tile_row(dst, s, i, 0, s.d_model);
    }
    auto zero = [&](int64_t i, int h) {
        if (tiles_out)
            zero_tile_row(dst, s, i, h * s.dk, (h + 1) * s.dk);
        else
            ZeroF32Row{dst, s.dk}(i, h);
    };
    for_each_block<kBlockQueries>(
            s, int(bu->ne[1]), ith, nth,
            [&](int h, int64_t i0, int live) {
                if (w.head != h) convert_head(k, p, v, h, s, w);
                for (int r = 0; r < kBlockQueries; ++r) {
                    uint16_t *qu = w.qu.data() + r * s.dk, *qv = w.qv.data() + r * s.dk;
                    if (r < live) {
                        const float * qi = row_of(q, i0 + r) + h * s.dk;
                        biased_query(qi, in.u_of(h, s.dk), s.dk, qu);
                        biased_query(qi, in.v_of(h, s.dk), s.dk, qv);
                    } else {
                        std::fill(qu, qu + s.dk, uint16_t(0));
                        std::fill(qv, qv + s.dk, uint16_t(0));
                    }
                }
                attend_block(dst, h, i0, live, s, w, scale);
            },
            zero);
    release_tiles();
}

bool amx_attention_available(int64_t dk) { return amx_bf16_usable() && dk % 32 == 0 && dk <= kMaxHeadDim; }

namespace {
void position_words_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    const ggml_tensor * p = dst->src[0];
    ggml_tensor * words = dst->src[1];
    const int64_t dk = *static_cast<const int64_t *>(userdata);
    const int heads = int(p->ne[0] / dk);
    for (int h = ith; h < heads; h += nth) {
        uint32_t * head = reinterpret_cast<uint32_t *>(static_cast<char *>(words->data) + size_t(h * dk / 2) * words->nb[1]);
        position_words(p, h, dk, p->ne[1], head, int64_t(words->nb[1] / sizeof(uint32_t)));
    }
}
}  // namespace

ggml_tensor * amx_position_words(ggml_context * ctx, ggml_tensor * p, ggml_tensor * words, int64_t dk) {
    GGML_ASSERT(p->type == GGML_TYPE_F32 && words->type == GGML_TYPE_I32 && p->ne[0] % dk == 0 && words->ne[1] == p->ne[0] / 2 &&
                words->ne[0] == amx_position_columns((p->ne[1] + 1) / 2) && dk % 32 == 0 && dk <= kMaxHeadDim);
    // The op's userdata is a pointer that must outlive the graph: one constant per head width.
    static const int64_t kHeadWidths[kMaxHeadDim / 32] = {32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480, 512};
    ggml_tensor * args[] = {p, words};
    ggml_tensor * done = ggml_custom_4d(ctx, GGML_TYPE_I32, 1, 1, 1, 1, args, 2, position_words_op, GGML_N_TASKS_MAX,
                                        const_cast<int64_t *>(&kHeadWidths[dk / 32 - 1]));
    ggml_format_name(done, "amx_position_words");
    return done;
}

#else

void attention_amx_op(ggml_tensor *, int, int, void *) {}
bool amx_attention_available(int64_t) { return false; }
ggml_tensor * amx_position_words(ggml_context *, ggml_tensor * p, ggml_tensor *, int64_t) { return p; }

#endif

int64_t amx_position_columns(int64_t frames) { return kPosFront + (2 * frames - 1) + round32(frames) + 32; }

}  // namespace parakeet
