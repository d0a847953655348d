// Q8_0 linear_pos on the table's halves (see q8_0_rel_pos_vnni.h).
//
// Table rows: the Q8 activation row format (q8_0_vnni.cpp: K bytes, K/32 block scales, K/32
// int32 −128·Σq, K/32 floats) with the block's inputs sin first, cos second, and the last two
// arrays holding −128·Σq of the block's sin half and of its cos half (int32 both): the two dot
// products start there, as the Q8_0 kernel's one product starts at the whole block's.
#include "q8_0_rel_pos_vnni.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu_ops.h"
#include "simd_math.h"

namespace parakeet {
namespace {

constexpr size_t kQ8BlockBytes = 34;  // ggml's block_q8_0: fp16 scale, 32 int8
constexpr int64_t kChunkBlocks = 16;  // a panel's chunk of blocks stays in L1 (as the Q8_0 kernel's)

// Each block's values reordered: the even inputs (sin columns) first, then the odd (cos).
std::vector<uint8_t> halves_first(const void * q8_0, int64_t rows, int64_t cols) {
    const int64_t blocks = rows * cols / 32;
    std::vector<uint8_t> out(size_t(blocks) * kQ8BlockBytes);
    const uint8_t * src = static_cast<const uint8_t *>(q8_0);
    for (int64_t b = 0; b < blocks; ++b) {
        const uint8_t * s = src + size_t(b) * kQ8BlockBytes;
        uint8_t * d = out.data() + size_t(b) * kQ8BlockBytes;
        std::memcpy(d, s, 2);
        for (int i = 0; i < 16; ++i) {
            d[2 + i] = s[2 + 2 * i];
            d[2 + 16 + i] = s[2 + 2 * i + 1];
        }
    }
    return out;
}

size_t corrections_at(int64_t k) { return size_t(k) + size_t(k / 32) * sizeof(float); }
size_t cos_corrections_at(int64_t k) { return size_t(k) + size_t(k / 32) * (sizeof(float) + sizeof(int32_t)); }

void quantize_table_op(ggml_tensor * dst, int ith, int nth, void *) {
    const ggml_tensor * halves = dst->src[0];
    const int64_t k = halves->ne[0], half = k / 2;
    const ThreadShare share = thread_share(halves->ne[1], ith, nth);
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t p = share.begin; p < share.end; ++p) {
        const float * x = reinterpret_cast<const float *>(static_cast<const char *>(halves->data) + size_t(p) * halves->nb[1]);
        for (int64_t b = 0; b < k / 32; ++b) {
            std::memcpy(row.data() + b * 32, x + b * 16, 16 * sizeof(float));
            std::memcpy(row.data() + b * 32 + 16, x + half + b * 16, 16 * sizeof(float));
        }
        uint8_t * out = static_cast<uint8_t *>(dst->data) + size_t(p) * dst->nb[1];
        quantize_q8_activation_row(row.data(), k, out);
        int32_t * sin_start = reinterpret_cast<int32_t *>(out + corrections_at(k));
        int32_t * cos_start = reinterpret_cast<int32_t *>(out + cos_corrections_at(k));
        for (int64_t b = 0; b < k / 32; ++b) {
            int32_t s = 0, c = 0;
            for (int i = 0; i < 16; ++i) {
                s += int8_t(out[b * 32 + i]);
                c += int8_t(out[b * 32 + 16 + i]);
            }
            sin_start[b] = -128 * s;
            cos_start[b] = -128 * c;
        }
    }
}

#ifdef PARAKEET_X86

float * output_row(ggml_tensor * dst, int64_t row) { return reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(row) * dst->nb[1]); }

// MR positions p0 … p0+MR−1 × one panel of 32 outputs over blocks [b0, b1). Between chunks the
// cos and sin sums wait in the +p and −p rows (position 0 has no sin part: its sines are 0).
template <int MR>
PARAKEET_VNNI512 void halves_tile(const uint8_t * xq, size_t x_stride, int64_t k, const PackedQ8Matrix & w, int64_t panel, int64_t b0, int64_t b1,
                                  ggml_tensor * dst, int64_t p0, bool accumulate, bool last) {
    const int64_t T = (dst->ne[1] + 1) / 2;
    const uint8_t * wp = w.block_weights(panel, 0);
    float * plus[MR];
    float * minus[MR];
    __m512 o[MR][2], e[MR][2];
    for (int r = 0; r < MR; ++r) {
        const int64_t p = p0 + r;
        plus[r] = output_row(dst, T - 1 - p) + panel * 32;
        minus[r] = p > 0 ? output_row(dst, T - 1 + p) + panel * 32 : nullptr;
        for (int c = 0; c < 2; ++c) {
            o[r][c] = accumulate ? _mm512_loadu_ps(plus[r] + 16 * c) : _mm512_setzero_ps();
            e[r][c] = accumulate && minus[r] != nullptr ? _mm512_loadu_ps(minus[r] + 16 * c) : _mm512_setzero_ps();
        }
    }
    for (int64_t b = b0; b < b1; ++b) {
        __m512i de[MR][2], dO[MR][2];
        for (int r = 0; r < MR; ++r) {
            const uint8_t * x = xq + size_t(r) * x_stride;
            int32_t s, c;
            std::memcpy(&s, x + corrections_at(k) + size_t(b) * 4, 4);
            std::memcpy(&c, x + cos_corrections_at(k) + size_t(b) * 4, 4);
            de[r][0] = de[r][1] = _mm512_set1_epi32(s);
            dO[r][0] = dO[r][1] = _mm512_set1_epi32(c);
        }
        const uint8_t * wb = wp + size_t(b) * PackedQ8Matrix::kBlockBytes;
        for (int g = 0; g < 4; ++g) {  // group g of the sin half with group g of the cos half: 4·MR chains of VPDPBUSD
            const __m512i ws0 = _mm512_loadu_si512(wb + g * 128), ws1 = _mm512_loadu_si512(wb + g * 128 + 64);
            const __m512i wc0 = _mm512_loadu_si512(wb + (g + 4) * 128), wc1 = _mm512_loadu_si512(wb + (g + 4) * 128 + 64);
            for (int r = 0; r < MR; ++r) {
                int32_t fs, fc;
                std::memcpy(&fs, xq + size_t(r) * x_stride + size_t(b * 32 + g * 4), 4);
                std::memcpy(&fc, xq + size_t(r) * x_stride + size_t(b * 32 + 16 + g * 4), 4);
                const __m512i as = _mm512_set1_epi32(fs), ac = _mm512_set1_epi32(fc);
                dpbusd_into(de[r][0], ws0, as);
                dpbusd_into(de[r][1], ws1, as);
                dpbusd_into(dO[r][0], wc0, ac);
                dpbusd_into(dO[r][1], wc1, ac);
            }
        }
        const __m512 s0 = _mm512_loadu_ps(reinterpret_cast<const float *>(wb + PackedQ8Matrix::kScalesAt)),
                     s1 = _mm512_loadu_ps(reinterpret_cast<const float *>(wb + PackedQ8Matrix::kScalesAt) + 16);
        for (int r = 0; r < MR; ++r) {
            const float * xs = reinterpret_cast<const float *>(xq + size_t(r) * x_stride + size_t(k));
            const __m512 sx = _mm512_set1_ps(xs[b]);
            const __m512 c0 = _mm512_mul_ps(s0, sx), c1 = _mm512_mul_ps(s1, sx);
            o[r][0] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dO[r][0]), c0, o[r][0]);
            o[r][1] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dO[r][1]), c1, o[r][1]);
            e[r][0] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(de[r][0]), c0, e[r][0]);
            e[r][1] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(de[r][1]), c1, e[r][1]);
        }
    }
    for (int r = 0; r < MR; ++r) {
        for (int c = 0; c < 2; ++c) {
            _mm512_storeu_ps(plus[r] + 16 * c, last ? _mm512_add_ps(o[r][c], e[r][c]) : o[r][c]);
            if (minus[r] != nullptr) _mm512_storeu_ps(minus[r] + 16 * c, last ? _mm512_sub_ps(o[r][c], e[r][c]) : e[r][c]);
        }
    }
}

// The same for 3 positions (12 chains of VPDPBUSD, enough to cover the instruction's latency where
// the 8 of halves_tile<2> are not), its 24 accumulators as named variables and the weight vectors
// pinned in registers: GCC 12 keeps arrays of them in memory at this register pressure.
PARAKEET_VNNI512 void halves_tile3(const uint8_t * xq, size_t x_stride, int64_t k, const PackedQ8Matrix & w, int64_t panel, int64_t b0, int64_t b1,
                                   ggml_tensor * dst, int64_t p0, bool accumulate, bool last) {
    const int64_t T = (dst->ne[1] + 1) / 2;
    const uint8_t * wp = w.block_weights(panel, 0);
#define PARAKEET_POSITIONS(X) X(0) X(1) X(2)
#define PARAKEET_DECLARE(r)                                                                               \
    const uint8_t * x##r = xq + size_t(r) * x_stride;                                                     \
    float * plus##r = output_row(dst, T - 1 - (p0 + r)) + panel * 32;                                     \
    float * minus##r = p0 + r > 0 ? output_row(dst, T - 1 + (p0 + r)) + panel * 32 : nullptr;             \
    __m512 o##r##0 = accumulate ? _mm512_loadu_ps(plus##r) : _mm512_setzero_ps();                         \
    __m512 o##r##1 = accumulate ? _mm512_loadu_ps(plus##r + 16) : _mm512_setzero_ps();                    \
    __m512 e##r##0 = accumulate && minus##r != nullptr ? _mm512_loadu_ps(minus##r) : _mm512_setzero_ps(); \
    __m512 e##r##1 = accumulate && minus##r != nullptr ? _mm512_loadu_ps(minus##r + 16) : _mm512_setzero_ps();
    PARAKEET_POSITIONS(PARAKEET_DECLARE)
#undef PARAKEET_DECLARE
    for (int64_t b = b0; b < b1; ++b) {
#define PARAKEET_START(r)                                                        \
    int32_t sin_start##r, cos_start##r;                                          \
    std::memcpy(&sin_start##r, x##r + corrections_at(k) + size_t(b) * 4, 4);     \
    std::memcpy(&cos_start##r, x##r + cos_corrections_at(k) + size_t(b) * 4, 4); \
    __m512i de##r##0 = _mm512_set1_epi32(sin_start##r), de##r##1 = de##r##0;     \
    __m512i do##r##0 = _mm512_set1_epi32(cos_start##r), do##r##1 = do##r##0;
        PARAKEET_POSITIONS(PARAKEET_START)
#undef PARAKEET_START
        const uint8_t * wb = wp + size_t(b) * PackedQ8Matrix::kBlockBytes;
        for (int g = 0; g < 4; ++g) {
            __m512i ws0 = _mm512_loadu_si512(wb + g * 128), ws1 = _mm512_loadu_si512(wb + g * 128 + 64);
            __m512i wc0 = _mm512_loadu_si512(wb + (g + 4) * 128), wc1 = _mm512_loadu_si512(wb + (g + 4) * 128 + 64);
            pin_register(ws0), pin_register(ws1), pin_register(wc0), pin_register(wc1);
#define PARAKEET_STEP(r)                                                                                       \
    {                                                                                                          \
        int32_t fs, fc;                                                                                        \
        std::memcpy(&fs, x##r + size_t(b * 32 + g * 4), 4);                                                    \
        std::memcpy(&fc, x##r + size_t(b * 32 + 16 + g * 4), 4);                                               \
        const __m512i as = _mm512_set1_epi32(fs);                                                              \
        de##r##0 = _mm512_dpbusd_epi32(de##r##0, ws0, as), de##r##1 = _mm512_dpbusd_epi32(de##r##1, ws1, as);  \
        const __m512i ac = _mm512_set1_epi32(fc);                                                              \
        do ##r##0 = _mm512_dpbusd_epi32(do##r##0, wc0, ac), do##r##1 = _mm512_dpbusd_epi32(do##r##1, wc1, ac); \
    }
            PARAKEET_POSITIONS(PARAKEET_STEP)
#undef PARAKEET_STEP
        }
        const __m512 s0 = _mm512_loadu_ps(reinterpret_cast<const float *>(wb + PackedQ8Matrix::kScalesAt)),
                     s1 = _mm512_loadu_ps(reinterpret_cast<const float *>(wb + PackedQ8Matrix::kScalesAt) + 16);
#define PARAKEET_SCALE(r)                                                                       \
    {                                                                                           \
        const __m512 sx = _mm512_set1_ps(reinterpret_cast<const float *>(x##r + size_t(k))[b]); \
        const __m512 c0 = _mm512_mul_ps(s0, sx), c1 = _mm512_mul_ps(s1, sx);                    \
        o##r##0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(do##r##0), c0, o##r##0);                   \
        o##r##1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(do##r##1), c1, o##r##1);                   \
        e##r##0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(de##r##0), c0, e##r##0);                   \
        e##r##1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(de##r##1), c1, e##r##1);                   \
    }
        PARAKEET_POSITIONS(PARAKEET_SCALE)
#undef PARAKEET_SCALE
    }
#define PARAKEET_STORE(r)                                                                  \
    _mm512_storeu_ps(plus##r, last ? _mm512_add_ps(o##r##0, e##r##0) : o##r##0);           \
    _mm512_storeu_ps(plus##r + 16, last ? _mm512_add_ps(o##r##1, e##r##1) : o##r##1);      \
    if (minus##r != nullptr) {                                                             \
        _mm512_storeu_ps(minus##r, last ? _mm512_sub_ps(o##r##0, e##r##0) : e##r##0);      \
        _mm512_storeu_ps(minus##r + 16, last ? _mm512_sub_ps(o##r##1, e##r##1) : e##r##1); \
    }
    PARAKEET_POSITIONS(PARAKEET_STORE)
#undef PARAKEET_STORE
#undef PARAKEET_POSITIONS
}

void halves_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    const PackedQ8Matrix & w = *static_cast<const PackedQ8Matrix *>(userdata);
    const ggml_tensor * table = dst->src[0];
    const uint8_t * xq = static_cast<const uint8_t *>(table->data);
    const size_t xs = table->nb[1];
    const int64_t k = w.cols(), blocks = k / 32, T = table->ne[1];
    const ThreadShare share = thread_share(w.rows() / 32, ith, nth);
    for (int64_t panel = share.begin; panel < share.end; ++panel) {
        for (int64_t b0 = 0; b0 < blocks; b0 += kChunkBlocks) {
            const int64_t b1 = std::min(blocks, b0 + kChunkBlocks);
            const bool accumulate = b0 > 0, last = b1 == blocks;
            // Tiles of 3 positions (halves_tile3: 24 accumulators, 12 chains), the last 1–2 as one tile.
            // 0.6B Q8_0 at 10 s, one thread, Ice Lake-SP: linear_pos 2.4× → 1.4× linear_q's time,
            // encoder 528 → 506 ms (min of interleaved runs).
            int64_t p = 0;
            for (; p + 3 <= T; p += 3) halves_tile3(xq + size_t(p) * xs, xs, k, w, panel, b0, b1, dst, p, accumulate, last);
            if (T - p == 2) halves_tile<2>(xq + size_t(p) * xs, xs, k, w, panel, b0, b1, dst, p, accumulate, last);
            if (T - p == 1) halves_tile<1>(xq + size_t(p) * xs, xs, k, w, panel, b0, b1, dst, p, accumulate, last);
        }
    }
}

#else

void halves_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace

bool Q8RelPosProjection::fits(int64_t rows, int64_t cols) { return cpu_has_avx512_vnni() && rows % 32 == 0 && cols % 32 == 0; }

Q8RelPosProjection::Q8RelPosProjection(const void * q8_0, int64_t rows, int64_t cols, uint8_t * storage)
        : matrix_(halves_first(q8_0, rows, cols).data(), rows, cols, storage) {}

ggml_tensor * Q8RelPosProjection::quantize_table(ggml_context * ctx, ggml_tensor * halves) {
    GGML_ASSERT(halves->type == GGML_TYPE_F32 && halves->ne[0] % 32 == 0 && halves->nb[0] == sizeof(float));
    ggml_tensor * args[] = {halves};
    ggml_tensor * t = ggml_custom_4d(ctx, GGML_TYPE_I8, int64_t(q8_activation_row_bytes(halves->ne[0])), halves->ne[1], 1, 1, args, 1,
                                     quantize_table_op, GGML_N_TASKS_MAX, nullptr);
    ggml_set_name(t, "vnni_quantize:pos_halves");
    return t;
}

ggml_tensor * Q8RelPosProjection::apply(ggml_context * ctx, ggml_tensor * table, const char * weight_name) const {
    GGML_ASSERT(table->type == GGML_TYPE_I8 && size_t(table->ne[0]) == q8_activation_row_bytes(matrix_.cols()));
    ggml_tensor * args[] = {table};
    ggml_tensor * y = ggml_custom_4d(ctx, GGML_TYPE_F32, matrix_.rows(), 2 * table->ne[1] - 1, 1, 1, args, 1, halves_op, GGML_N_TASKS_MAX,
                                     const_cast<PackedQ8Matrix *>(&matrix_));
    ggml_format_name(y, "vnni_gemm:%s", weight_name);
    return y;
}

}  // namespace parakeet
