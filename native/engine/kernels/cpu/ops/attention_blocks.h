// What the fused attention ops (attention_f32_avx512.cpp in F32, attention_i16_vnni.cpp in 14-bit integers,
// attention_amx_bf16.cpp in BF16 on AMX tiles) share: the shapes they derive from the op's sources,
// the transposed-column layout their score products read, and the split of the work into (head,
// block of queries) items.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "cpu_ops.h"
#include "ggml.h"
#include "simd_math.h"

namespace parakeet::attention_blocks {

constexpr int kTileQueries = 14;  // queries per score register tile (14 × 32)
constexpr int kQueries = 28;      // queries per work item: two tiles sharing each chunk of Kᵀ / Pᵀ

// Pᵀ rows start after this many slack columns: a block's first position can lie before
// position 0 when the block runs past the last query.
constexpr int64_t kPosFront = 32;

inline int64_t round32(int64_t n) { return (n + 31) / 32 * 32; }

struct Shapes {
    int64_t d_model, dk, frames, valid, positions, key_cols, key_stride, pos_stride, band;
};

// A transposed [dk][columns] matrix (or [dk/2][columns] of pairs) as the score products read it:
// column c, row d at base[(c / 32)·chunk_step + d·row_stride + c % 32].
struct ColumnLayout {
    int64_t row_stride, chunk_step;
    int64_t at(int64_t c, int64_t d) const { return (c / 32) * chunk_step + d * row_stride + c % 32; }
};

// Sources: q, k, v, p, bias_u, bias_v[, frame mask] (attention_op.h).
inline Shapes shapes_of(const ggml_tensor * dst) {
    const ggml_tensor *q = dst->src[0], *bu = dst->src[4], *mask = dst->src[6], *p = dst->src[3];
    Shapes s{};
    s.d_model = q->ne[0];  // from q: the AMX op's output may be tiles (attention_op.h)
    s.dk = bu->ne[0];
    s.frames = q->ne[1];
    s.valid = s.frames;
    if (mask != nullptr) {  // the frame mask is 1 on [0, valid) and 0 after
        const float * m = static_cast<const float *>(mask->data);
        s.valid = 0;
        while (s.valid < s.frames && m[s.valid] != 0.0f) ++s.valid;
    }
    s.positions = p->type == GGML_TYPE_I32 ? p->ne[0] : p->ne[1];  // I32: the AMX op's Pᵀ words (attention_op.h)
    s.key_cols = round32(std::max<int64_t>(s.valid, 1));
    // Score rows one half-chunk longer than the keys: a tile writes and the context loop reads
    // 12–14 of them at once, and a stride of whole 128-byte pairs of lines (any multiple of 32
    // floats) would put them on a few L1 sets (an odd number of lines spreads them).
    s.key_stride = s.key_cols + 16;
    s.band = s.key_cols + 32;  // ≥ key_cols + queries per block − 1 (28 or 32), a multiple of 32
    s.pos_stride = kPosFront + s.positions + s.band;
    return s;
}

// The op's tensors, by name (sources: q, k, v, p, bias_u, bias_v[, frame mask]).
struct OpSources {
    const ggml_tensor *q, *k, *v, *p, *bias_u, *bias_v;
    explicit OpSources(const ggml_tensor * dst)
            : q(dst->src[0]),
              k(dst->src[1]),
              v(dst->src[2]),
              p(dst->src[3]),
              bias_u(dst->src[4]),
              bias_v(dst->src[5]) {}
    const float * u_of(int h, int64_t dk) const { return static_cast<const float *>(bias_u->data) + h * dk; }
    const float * v_of(int h, int64_t dk) const { return static_cast<const float *>(bias_v->data) + h * dk; }
};

inline const float * row_of(const ggml_tensor * t, int64_t row) {
    return reinterpret_cast<const float *>(static_cast<const char *>(t->data) + size_t(row) * t->nb[1]);
}

#if defined(__x86_64__) || defined(_M_X64)
// dst[c][r] = src_r[c] for 16 rows r and 16 columns c (an in-register 16 × 16 transpose; the
// shuffles only move 32-bit lanes, so pairs of int16 travel through it as floats' bits).
PARAKEET_AVX512 inline void transpose16(const float * const (&src)[16], float * dst, int64_t dst_stride) {
    __m512 r[16], t[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src[i]);
    for (int i = 0; i < 16; i += 2) {  // 2 × 2 blocks of singles
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {  // of pairs
        r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
        r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
        r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int base = 0; base < 16; base += 8) {  // of 128-bit lanes: rows 0–3 with 4–7, 8–11 with 12–15
        for (int i = base; i < base + 4; ++i) {
            t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
            t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xDD);
        }
    }
    for (int i = 0; i < 8; ++i) {  // of 256-bit halves: rows 0–7 with 8–15
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
    }
    for (int c = 0; c < 16; ++c) _mm512_storeu_ps(dst + c * dst_stride, r[c]);
}

// One query's scores over the valid keys, (AC + shifted BD)·scale, written back into its AC row
// (`full` keys in whole vectors, then the `tail` mask's); returns their largest. (The F32 and
// AMX ops; the 14-bit op scales AC and BD by the query's own factors.)
PARAKEET_AVX512 inline float scaled_scores(float * row, const float * bd, __m512 scale, int64_t full, __mmask16 tail) {
    __m512 mx = _mm512_set1_ps(-INFINITY);
    for (int64_t j = 0; j < full; j += 16) {
        const __m512 x = _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(row + j), _mm512_loadu_ps(bd + j)), scale);
        _mm512_storeu_ps(row + j, x);
        mx = _mm512_max_ps(mx, x);
    }
    if (tail) {
        const __m512 x = _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(row + full), _mm512_loadu_ps(bd + full)), scale);
        _mm512_storeu_ps(row + full, x);
        mx = _mm512_mask_max_ps(mx, tail, mx, x);
    }
    return _mm512_reduce_max_ps(mx);
}

#endif

// f(std::integral_constant<int, n>{}) for 1 ≤ n ≤ N: a context tile's query count as a
// compile-time constant, so its accumulators stay in registers.
template <int N, typename F>
void with_query_count(int n, F && f) {
    if constexpr (N > 1) {
        if (n < N) return with_query_count<N - 1>(n, std::forward<F>(f));
    }
    f(std::integral_constant<int, N>{});
}

// Head h of query row i in an F32 context dst set to zero.
struct ZeroF32Row {
    ggml_tensor * dst;
    int64_t dk;
    void operator()(int64_t i, int h) const {
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(i) * dst->nb[1]) + h * dk;
        std::memset(out, 0, size_t(dk) * sizeof(float));
    }
};

// Calls block(h, i0, live) for this thread's share of the (head, block of Queries queries) items
// in order, after zero(i, h) for the padded query rows (i ≥ valid; NeMo masks the whole row).
template <int Queries = kQueries, typename Block, typename Zero>
void for_each_block(const Shapes & s, int heads, int ith, int nth, Block && block, Zero && zero) {
    const int64_t blocks = (s.frames + Queries - 1) / Queries;
    const ThreadShare share = thread_share(int64_t(heads) * blocks, ith, nth);
    for (int64_t item = share.begin; item < share.end; ++item) {
        const int h = int(item / blocks);
        const int64_t i0 = (item % blocks) * Queries;
        const int nq = int(std::min<int64_t>(Queries, s.frames - i0));
        const int live = int(std::clamp<int64_t>(s.valid - i0, 0, nq));
        for (int r = live; r < nq; ++r) zero(i0 + r, h);
        if (live > 0) block(h, i0, live);
    }
}
template <int Queries = kQueries, typename Block>
void for_each_block(ggml_tensor * dst, const Shapes & s, int heads, int ith, int nth, Block && block) {
    for_each_block<Queries>(s, heads, ith, nth, std::forward<Block>(block), ZeroF32Row{dst, s.dk});
}

}  // namespace parakeet::attention_blocks

namespace parakeet {
/** The 14-bit op's body (attention_i16_vnni.cpp), a ggml custom op like attention_f32_avx512.cpp's. */
void attention_i16_op(ggml_tensor * dst, int ith, int nth, void * userdata);
/** The 14-bit body this CPU runs: attention_i16_op, or its 256-bit twin (attention_i16_ymm.h) where the registry's row says. */
ggml_custom_op_t attention_i16_body();
/** The AMX-BF16 op's body (attention_amx_bf16.cpp). */
void attention_amx_op(ggml_tensor * dst, int ith, int nth, void * userdata);
}  // namespace parakeet
