// Q8_0 × activations with AVX512-VNNI (see q8_0_vnni.h for why).
//
// Packed weight layout, per panel of 32 output rows and per block of 32 inputs
// (k0 = 32·block): for each group g of 4 inputs, the 32 rows' 4 consecutive
// weights, i.e. bytes [g][row][j] = w[row][k0 + 4g + j] — two 64-byte vectors
// per group, each holding 16 rows × 4 inputs, exactly what VPDPBUSD multiplies
// with a broadcast of 4 activation bytes. VPDPBUSD multiplies unsigned by
// signed bytes, so the weights are stored + 128 (unsigned): Σ (w+128)·x =
// Σ w·x + 128·Σ x, and each block's dot products start from the activations'
// −128·Σ x, one number per frame and block. After each block's weights, its
// 32 rows' scales (float): 9 bits per weight in all, against the file's 8.5 (an
// offset per row and block, as the weights' −128·Σ w would need, made it 10).
// Weights and scales in one stream: one prefetch stream and one pointer per
// block (as two streams, the scales' prefetch ticks cost ≈ 2–3 % of the GEMM).
//
// Quantized activations, one row per frame: K bytes (int8), then K/32 float
// scales (fp16-rounded, as ggml's block_q8_0 stores them), then K/32 int32
// −128·Σ of the block's int8 values, then K/32 floats scale·Σ (what the Q4_K
// kernel's block minimums multiply, q4_k_vnni.h).
#include "q8_0_vnni.h"
#include "cpu_ops.h"
#include "q8_0_ymm.h"
#include "packed_op.h"
#include "simd_math.h"
#include "block_chunks.h"
#include "weight_prefetch.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace parakeet {
namespace {

struct BlockQ8_0 {  // ggml's block_q8_0
    ggml_fp16_t d;
    int8_t qs[32];
};
static_assert(sizeof(BlockQ8_0) == 34, "block_q8_0 layout");

constexpr int kPanel = 32;  // output rows per packed panel (two 16-lane vectors)

size_t quantized_row_bytes(int64_t k) { return size_t(k) + size_t(k / 32) * (2 * sizeof(float) + sizeof(int32_t)); }

}  // namespace

size_t PackedQ8Matrix::storage_bytes(int64_t rows, int64_t cols) {
    // one byte per weight, and four per row and 32 inputs for the scales.
    return size_t(rows) * size_t(cols) + size_t(rows) * size_t(cols / 32) * 4;
}

const char * q8_kernel_layout(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return "q8_0_vnni";
        case Int8Kernel::AvxVnniVex: return "q8_0_avx_vnni";
        case Int8Kernel::AvxVnniEvex: return "q8_0_avx_vnni_evex";
        case Int8Kernel::Avx2: return "q8_0_avx2";
    }
    return "q8_0_avx2";
}

PackedQ8Matrix::PackedQ8Matrix(const void * q8_0, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel)
        : rows_(rows),
          cols_(cols),
          kernel_(kernel) {
    if (rows % kPanel != 0 || cols % 32 != 0) throw std::invalid_argument("PackedQ8Matrix: rows and cols must be multiples of 32");
    const int64_t nb = cols / 32, panels = rows / kPanel;
    packed_ = storage;
    const BlockQ8_0 * src = static_cast<const BlockQ8_0 *>(q8_0);
    for (int64_t p = 0; p < panels; ++p) {
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t * wdst = packed_ + (size_t(p) * size_t(nb) + size_t(b)) * kBlockBytes;
            float * sdst = reinterpret_cast<float *>(wdst + kScalesAt);
            const BlockQ8_0 * rows = src + size_t(p * kPanel) * size_t(nb) + size_t(b);  // row r's block at rows[r * nb]
            // Groups of 4 weights move as one 32-bit word: a 32 × 8 word transpose, written in order.
            for (int g = 0; g < 8; ++g) {
                for (int r = 0; r < kPanel; ++r) {
                    for (int j = 0; j < 4; ++j) {
                        const int8_t q = rows[size_t(r) * size_t(nb)].qs[4 * g + j];
                        reaches_minus_128_ = reaches_minus_128_ || q == -128;
                        wdst[g * 128 + r * 4 + j] = uint8_t(int(q) + 128);
                    }
                }
            }
            for (int r = 0; r < kPanel; ++r) sdst[r] = ggml_fp16_to_fp32(rows[size_t(r) * size_t(nb)].d);
        }
    }
}

namespace {

// Blocks per k chunk: 64 KiB of a panel's weights (72 with their scales) (the whole row up to 2048 inputs), which the frame
// tiles read from L2. Fewer, longer tiles won over keeping a chunk in L1, as in the 14-bit kernel:
// min of interleaved runs on cold weights, 126 frames, 1024 outputs × 4096 inputs, chunks of 16,
// 32, 64 and 128 blocks: 2.92, 2.68, 2.57, 2.57 ms (750 frames: 17.8, 16.8, 16.1, 15.8); 4096 × 1024
// the same within noise. 64 keeps a chunk and the next one's prefetch well inside a 1 MiB L2.
constexpr int64_t kChunkBlocks = 64;

/** The weights and scales as one prefetch stream; the scales' own stream is empty. */
BlockStream weight_stream(const PackedQ8Matrix & w) { return BlockStream{w.block_weights(0, 0), PackedQ8Matrix::kBlockBytes}; }
BlockStream scale_stream(const PackedQ8Matrix & w) { return BlockStream{w.block_weights(0, 0), 0}; }

/** Output rows in the Q8 row format above, of k values each (apply_quantized_to). */
struct QuantizedRows {
    uint8_t * data;
    size_t stride;
    int64_t k;
};

#ifdef PARAKEET_X86

template <bool Sum>
PARAKEET_VNNI512 inline __m512 combine(__m512 p, __m512 q) {
    return Sum ? _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), _mm512_castps_si512(q))) : _mm512_max_ps(p, q);
}

// The first two steps of a reduction of N (8 or 16) vectors' lanes: vectors paired across 256-bit
// halves, then across 128-bit quarters, leaving in v[i] (i < N/4) the 4-lane partials of vectors
// 4i … 4i+3, one per quarter.
template <bool Sum, int N>
PARAKEET_VNNI512 inline void fold_quarters(__m512 (&v)[N]) {
    for (int i = 0; i < N / 2; ++i)
        v[i] = combine<Sum>(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                            _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    for (int i = 0; i < N / 4; ++i)
        v[i] = combine<Sum>(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                            _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
}

// Lane j of the result: the reduction (max, or int32 sum) of vector j's 16 lanes, for 16 vectors in
// 15 two-vector steps (a horizontal reduction per vector takes 4 steps of its own). The steps leave
// vector j in lane (j % 4)·4 + j / 4; the last permutation puts it back in lane j. Int32 sums travel
// as floats' bits (Sum): the shuffles only move lanes.
template <bool Sum>
PARAKEET_VNNI512 inline __m512 reduce16(__m512 (&v)[16]) {
    fold_quarters<Sum>(v);
    for (int i = 0; i < 2; ++i)
        v[i] = combine<Sum>(_mm512_shuffle_ps(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                            _mm512_shuffle_ps(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 r = combine<Sum>(_mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), r);
}

/** Sixteen blocks' scales from their max|x|: d = max/127 kept as block_q8_0 keeps it (fp16), and 127/max (0 for an all-zero block). */
struct BlockScales {
    __m512 d16, id;
};
PARAKEET_VNNI512 inline BlockScales block_scales(__m512 amax) {
    const __m512 d = _mm512_div_ps(amax, _mm512_set1_ps(127.0f));
    const __m512 id = _mm512_maskz_div_ps(_mm512_cmpneq_ps_mask(amax, _mm512_setzero_ps()), _mm512_set1_ps(127.0f), amax);
    return {_mm512_cvtph_ps(_mm512_cvtps_ph(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)), id};
}

// The same for 8 vectors (reduce16's first three steps, then one within the vector): vector j < 4
// ends in lane 4j, vector 4 + j in lane 4j + 1 (kLaneOfVector8).
constexpr int kLaneOfVector8[8] = {0, 4, 8, 12, 1, 5, 9, 13};
template <bool Sum>
PARAKEET_VNNI512 inline __m512 reduce8(__m512 (&v)[8]) {
    fold_quarters<Sum>(v);
    const __m512 r = combine<Sum>(_mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(1, 0, 1, 0)), _mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(3, 2, 3, 2)));
    return combine<Sum>(_mm512_shuffle_ps(r, r, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_ps(r, r, _MM_SHUFFLE(3, 1, 3, 1)));
}

// Block `block` of MR (≤ 8) rows from their 32 values each (a frame tile's outputs, acc[r][0..1]):
// quantize_block's arithmetic, operation for operation, but the rows' horizontal max and sum go
// through one reduction network (reduce8) and their divisions are two vector divisions: one row at a
// time, the quantizing took ≈ 5 % of the feed-forward linear1 at 1024 inputs (10 % at 512).
template <int MR>
PARAKEET_VNNI512 inline __attribute__((always_inline)) void quantize_tile_block(const __m512 (&acc)[MR][2], uint8_t * row0, size_t stride, int64_t k,
                                                                                int64_t block) {
    static_assert(MR >= 1 && MR <= 8, "one reduction of 8 vectors");
    __m512 lanes[8];
    for (int r = 0; r < 8; ++r) lanes[r] = r < MR ? _mm512_max_ps(_mm512_abs_ps(acc[r][0]), _mm512_abs_ps(acc[r][1])) : _mm512_setzero_ps();
    const BlockScales rows_scales = block_scales(reduce8<false>(lanes));
    alignas(64) float ids[16];
    _mm512_store_ps(ids, rows_scales.id);
    // 16 int32 of each half → 32 bytes in order: two saturating packs leave each 128-bit lane's
    // first 4 bytes from q0 and next 4 from q1; the permutation gathers them.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int r = MR; r < 8; ++r) lanes[r] = _mm512_setzero_ps();  // the reduction overwrote them
    for (int r = 0; r < MR; ++r) {
        const __m512 vid = _mm512_set1_ps(ids[kLaneOfVector8[r]]);
        const __m512i q0 = _mm512_cvtps_epi32(_mm512_mul_ps(acc[r][0], vid));
        const __m512i q1 = _mm512_cvtps_epi32(_mm512_mul_ps(acc[r][1], vid));
        const __m512i packed = _mm512_packs_epi16(_mm512_packs_epi32(q0, q1), _mm512_setzero_si512());
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(row0 + size_t(r) * stride + size_t(block) * 32),
                            _mm512_castsi512_si256(_mm512_permutexvar_epi32(order, packed)));
        lanes[r] = _mm512_castsi512_ps(_mm512_add_epi32(q0, q1));
    }
    const __m512i sum = _mm512_castps_si512(reduce8<true>(lanes));
    alignas(64) float scales[16], zs[16];
    alignas(64) int32_t corrections[16];
    _mm512_store_ps(scales, rows_scales.d16);
    _mm512_store_si512(corrections, _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(sum, 7)));
    _mm512_store_ps(zs, _mm512_mul_ps(rows_scales.d16, _mm512_cvtepi32_ps(sum)));
    const int64_t nb = k / 32;
    for (int r = 0; r < MR; ++r) {
        uint8_t * qr = row0 + size_t(r) * stride;
        const int lane = kLaneOfVector8[r];
        std::memcpy(qr + k + block * 4, &scales[lane], 4);
        std::memcpy(qr + k + nb * 4 + block * 4, &corrections[lane], 4);
        std::memcpy(qr + k + nb * 8 + block * 4, &zs[lane], 4);
    }
}

// Block b of a row in the format above from its 32 values v0, v1: the same arithmetic, operation for
// operation, as the sixteen-block path of quantize_row below (max, then d = max/127 and 127/max as
// IEEE divisions, rounded the same way), so either writes the same bytes.
PARAKEET_VNNI512 inline __attribute__((always_inline)) void quantize_block(__m512 v0, __m512 v1, uint8_t * qr, float * sr, int32_t * cr, float * zr,
                                                                           int64_t b) {
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
    const float d = amax / 127.0f;
    const __m512 vid = _mm512_set1_ps(amax != 0.0f ? 127.0f / amax : 0.0f);
    const __m512i q0 = _mm512_cvtps_epi32(_mm512_mul_ps(v0, vid));
    const __m512i q1 = _mm512_cvtps_epi32(_mm512_mul_ps(v1, vid));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(qr + b * 32), _mm512_cvtepi32_epi8(q0));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(qr + b * 32 + 16), _mm512_cvtepi32_epi8(q1));
    sr[b] = _cvtsh_ss(_cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT));  // through fp16, as block_q8_0 keeps d
    const int32_t sum = _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
    cr[b] = -128 * sum;
    zr[b] = sr[b] * float(sum);
}

// ggml quantize_row_q8_0 per 32-block: d = max|x|/127, q = round(x/d) (nearest even, as its SIMD
// path rounds); the scale kept as ggml keeps it (fp16); −128·Σq, where the block's dot products
// with the unsigned (+128) weights start; and d·Σq (the Q4_K kernel's minimums). Sixteen blocks at a
// time share their horizontal reductions and their scalar work (reduce16): the quantizer was
// 5–8 % of a Q8_0 encoder, two thirds of it in per-block reductions and divisions.
PARAKEET_VNNI512 void quantize_row(const float * xr, int64_t k, uint8_t * qr) {
    float * sr = reinterpret_cast<float *>(qr + k);
    int32_t * cr = reinterpret_cast<int32_t *>(qr + k + size_t(k / 32) * sizeof(float));
    float * zr = reinterpret_cast<float *>(qr + k + size_t(k / 32) * (sizeof(float) + sizeof(int32_t)));
    const int64_t nb = k / 32;
    int64_t b = 0;
    for (; b + 16 <= nb; b += 16) {
        const float * x = xr + b * 32;
        __m512 lanes[16];
        for (int j = 0; j < 16; ++j)
            lanes[j] = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + j * 32)), _mm512_abs_ps(_mm512_loadu_ps(x + j * 32 + 16)));
        const BlockScales blocks = block_scales(reduce16<false>(lanes));
        alignas(64) float ids[16];
        _mm512_store_ps(ids, blocks.id);
        for (int j = 0; j < 16; ++j) {
            const __m512 vid = _mm512_set1_ps(ids[j]);
            const __m512i q0 = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + j * 32), vid));
            const __m512i q1 = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + j * 32 + 16), vid));
            _mm_storeu_si128(reinterpret_cast<__m128i *>(qr + (b + j) * 32), _mm512_cvtepi32_epi8(q0));
            _mm_storeu_si128(reinterpret_cast<__m128i *>(qr + (b + j) * 32 + 16), _mm512_cvtepi32_epi8(q1));
            lanes[j] = _mm512_castsi512_ps(_mm512_add_epi32(q0, q1));
        }
        const __m512i sum = _mm512_castps_si512(reduce16<true>(lanes));
        _mm512_storeu_ps(sr + b, blocks.d16);
        _mm512_storeu_si512(cr + b, _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(sum, 7)));
        _mm512_storeu_ps(zr + b, _mm512_mul_ps(blocks.d16, _mm512_cvtepi32_ps(sum)));
    }
    for (; b < nb; ++b) quantize_block(_mm512_loadu_ps(xr + b * 32), _mm512_loadu_ps(xr + b * 32 + 16), qr, sr, cr, zr, b);  // past 512s
}

// Weights into ggml's block_q8_0 (a load-time conversion): as ggml's quantize_row_q8_0_ref, d =
// max|x|/127 stored as fp16, q = x/d rounded, but with the rounding in SIMD (nearest even where
// roundf goes away from zero, at exact halves only): half the load time of a 0.6B file
// requantized from a 4–6 bit type went to the scalar loop.
PARAKEET_VNNI512 void quantize_weights(const float * x, int64_t n, BlockQ8_0 * out) {
    for (int64_t b = 0; b < n / 32; ++b) {
        const __m512 v0 = _mm512_loadu_ps(x + b * 32), v1 = _mm512_loadu_ps(x + b * 32 + 16);
        const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
        const float d = amax / 127.0f;
        const __m512 id = _mm512_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
        out[b].d = ggml_fp32_to_fp16(d);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out[b].qs), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(v0, id))));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out[b].qs + 16), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(v1, id))));
    }
}

// MR frames × one panel of 32 output rows, over blocks [b0, b1); `accumulate` adds to y (later chunks).
// QuantizedOut (one chunk, no y): the outputs into *quantized_out's rows instead (apply_quantized_to).
template <int MR, bool QuantizedOut = false>
PARAKEET_VNNI512 void gemm_tile(const uint8_t * xq, size_t x_stride, int64_t k, const PackedQ8Matrix & w, int64_t panel, int64_t b0, int64_t b1,
                                float * y, size_t y_stride, bool accumulate, const EpilogueView * ep, int64_t t0, PrefetchShare next_weights,
                                PrefetchShare next_scales, const QuantizedRows * quantized_out = nullptr) {
    (void)next_scales;  // the scales travel in the weights' stream (the layout above)
    next_weights.front();
    const uint8_t * wp = w.block_weights(panel, 0);
    const size_t corrections_at = size_t(k) + size_t(k / 32) * sizeof(float);
    __m512 acc[MR][2];
    if constexpr (QuantizedOut) {  // the lines this tile writes: its block of each row and the block's three numbers
        const QuantizedRows & out = *quantized_out;
        const size_t nb = size_t(out.k / 32);
        for (int r = 0; r < MR; ++r) {
            const uint8_t * qr = out.data + size_t(t0 + r) * out.stride;
            prefetch_for_write(qr + panel * 32);
            for (size_t at = size_t(out.k); at < size_t(out.k) + 12 * nb; at += 4 * nb) prefetch_for_write(qr + at + size_t(panel) * 4);
            acc[r][0] = acc[r][1] = _mm512_setzero_ps();
        }
    } else {
        start_tile<MR>(acc, y, y_stride, accumulate);
    }
    for (int64_t b = b0; b < b1; ++b) {
        // The dot products start at the frame's −128·Σx (the unsigned weights' offset), so no
        // subtraction is left.
        __m512i dot[MR][2];
        for (int r = 0; r < MR; ++r) {
            int32_t start;
            std::memcpy(&start, xq + size_t(r) * x_stride + corrections_at + size_t(b) * 4, 4);
            dot[r][0] = dot[r][1] = _mm512_set1_epi32(start);
        }
        const uint8_t * wb = wp + size_t(b) * PackedQ8Matrix::kBlockBytes;
        next_weights.tick_line();  // this tile's slice of the next chunk (weight_prefetch.h)
        for (int g = 0; g < 8; ++g) {
            const __m512i w0 = _mm512_loadu_si512(wb + g * 128);
            const __m512i w1 = _mm512_loadu_si512(wb + g * 128 + 64);
            for (int r = 0; r < MR; ++r) {
                int32_t four;
                std::memcpy(&four, xq + size_t(r) * x_stride + size_t(b * 32 + g * 4), 4);
                const __m512i a = _mm512_set1_epi32(four);
                dot[r][0] = _mm512_dpbusd_epi32(dot[r][0], w0, a);  // unsigned weights × signed activations
                dot[r][1] = _mm512_dpbusd_epi32(dot[r][1], w1, a);
            }
        }
        add_scaled_block<MR>(acc, dot, reinterpret_cast<const float *>(wb + PackedQ8Matrix::kScalesAt), xq, x_stride, size_t(k), b);
    }
    if constexpr (QuantizedOut) {  // the panel's 32 outputs are block `panel` of each row
        finish_tile<MR>(acc, *ep, t0, panel * 32);
        const QuantizedRows & out = *quantized_out;
        quantize_tile_block<MR>(acc, out.data + size_t(t0) * out.stride, out.stride, out.k, panel);
    } else {
        end_tile<MR>(acc, y, y_stride, ep, t0, panel * 32);  // the epilogue on the last chunk
    }
}

PARAKEET_VNNI512 void gemm_panels(const ggml_tensor * xq, ggml_tensor * dst, const PackedQ8Matrix & w, PanelItems & items,
                                  const EpilogueView & view) {
    block_chunk_gemm<kChunkBlocks>(xq, dst, w, items, view, weight_stream(w), scale_stream(w),
                                   [](auto rows, auto &&... args) { gemm_tile<decltype(rows)::value>(args...); });
}

// The same into dst's rows in the Q8 row format (apply_quantized_to): every row in one chunk.
PARAKEET_VNNI512 void gemm_panels_quantized(const ggml_tensor * xq, ggml_tensor * dst, const PackedQ8Matrix & w, PanelItems & items,
                                            const EpilogueView & view) {
    const QuantizedRows out{static_cast<uint8_t *>(dst->data), dst->nb[1], w.rows()};
    const uint8_t * x = static_cast<const uint8_t *>(xq->data);
    const size_t xs = xq->nb[1];
    const int64_t k = w.cols();
    for_each_block_chunk<kChunkBlocks>(items, w.blocks(), xq->ne[1], weight_stream(w), scale_stream(w), view,
                                       [&](auto rows, int64_t t, int64_t p, int64_t b0, int64_t b1, bool accumulate, const EpilogueView * ep,
                                           PrefetchShare next_weights, PrefetchShare next_scales) {
                                           gemm_tile<decltype(rows)::value, true>(x + size_t(t) * xs, xs, k, w, p, b0, b1, nullptr, 0, accumulate, ep,
                                                                                  t, next_weights, next_scales, &out);
                                       });
}

#endif  // PARAKEET_X86

}  // namespace

void q8_activation_quantize_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    // The same bytes either way (q8_0_avx2.cpp): the 256-bit kernels' rows may come from here too.
    static const bool avx512 = cpu_has_avx512_vnni();
    if (avx512)
        quantize_rows_op<quantize_row>(dst, ith, nth, userdata);
    else
        quantize_rows_op<q8_avx2_quantize_row>(dst, ith, nth, userdata);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

namespace {

void gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    share_panels<PackedQ8Matrix, gemm_panels>(dst, ith, nth, userdata);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

// Groups of 16 panels: each panel writes 4 bytes of each row's three per-block arrays (scale,
// −128·Σ, d·Σ), so with groups of 8 the two threads wrote the two halves of the same lines, every
// frame tile of every row (false sharing): the 0.6B feed-forward linear1 ran 1.59× as fast on two
// threads as on one, against 1.78× for linear2; the VNNI Q8_0 encoder at 10 s: 171 → 157 ms.
void gemm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    share_panels<PackedQ8Matrix, gemm_panels_quantized, 16>(dst, ith, nth, userdata);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

}  // namespace

namespace {

/** The GEMM op body of each kernel. */
ggml_custom_op_t gemm_op_of(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return gemm_op;
        case Int8Kernel::AvxVnniVex: return q8_avx_vnni_vex_gemm_op;
        case Int8Kernel::AvxVnniEvex: return q8_avx_vnni_evex_gemm_op;
        case Int8Kernel::Avx2: return q8_avx2_gemm_op;
    }
    return gemm_op;
}

/** The GEMM op body writing Q8 rows (apply_quantized_to), per kernel. */
ggml_custom_op_t gemm_quantized_op_of(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return gemm_quantized_op;
        case Int8Kernel::AvxVnniVex: return q8_avx_vnni_vex_gemm_quantized_op;
        case Int8Kernel::AvxVnniEvex: return q8_avx_vnni_evex_gemm_quantized_op;
        case Int8Kernel::Avx2: return q8_avx2_gemm_quantized_op;
    }
    return gemm_quantized_op;
}

/** The nodes' name prefix: "vnni" for the 512-bit kernel (as before the 256-bit ones), else the kernel id. */
const char * node_prefix(Int8Kernel k) { return k == Int8Kernel::Vnni512 ? "vnni" : q8_kernel_layout(k); }

}  // namespace

// W·x in two custom ops: the activations quantized per 32-block, then the GEMM. CPU backend only;
// the nodes are named "vnni_quantize:<weight>" and "vnni_gemm:<weight>" (profiles; the 256-bit
// kernels' "q8_0_avx2_…" and "q8_0_avx_vnni_…").
ggml_tensor * PackedQ8Matrix::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    return apply_quantized(ctx, quantize(ctx, x, weight_name), weight_name, e);
}

ggml_tensor * PackedQ8Matrix::quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const {
    return quantize_node(ctx, x, cols(), quantized_row_bytes(cols()), q8_activation_quantize_op, node_prefix(kernel_), weight_name);
}

ggml_tensor * PackedQ8Matrix::apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & e) const {
    return quantized_gemm_node(ctx, xq, *this, configs_, quantized_row_bytes(cols()), e, gemm_op_of(kernel_), node_prefix(kernel_), weight_name);
}

ggml_tensor * PackedQ8Matrix::apply_quantized_to(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & e,
                                                 ActivationFormat out) const {
    if (out != ActivationFormat::Q8Blocks || blocks() > kChunkBlocks) return nullptr;
    GGML_ASSERT(xq->type == GGML_TYPE_I8 && xq->ne[0] == int64_t(quantized_row_bytes(cols())));
    ggml_tensor * y = packed_matmul_node(ctx, xq, rows(), xq->ne[1], e, gemm_quantized_op_of(kernel_), configs_.get(this, EpilogueMode::of(e)),
                                         quantized_row_bytes(rows()));
    ggml_format_name(y, "%s_gemm:%s", node_prefix(kernel_), weight_name);
    return y;
}

void PackedQ8Matrix::multiply(const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride, int64_t panel_begin,
                              int64_t panel_end) const {
#ifdef PARAKEET_X86
    switch (kernel_) {
        case Int8Kernel::Vnni512: break;
        case Int8Kernel::AvxVnniVex: return q8_avx_vnni_vex_multiply(*this, xq, x_stride, frames, y, y_stride, panel_begin, panel_end);
        case Int8Kernel::AvxVnniEvex: return q8_avx_vnni_evex_multiply(*this, xq, x_stride, frames, y, y_stride, panel_begin, panel_end);
        case Int8Kernel::Avx2: return q8_avx2_multiply(*this, xq, x_stride, frames, y, y_stride, panel_begin, panel_end);
    }
    PanelItems items = PanelItems::range(panel_begin, panel_end);
    block_chunk_rows<kChunkBlocks>(xq, x_stride, frames, y, y_stride, *this, items, EpilogueView(), weight_stream(*this), scale_stream(*this),
                                   [](auto rows, auto &&... args) { gemm_tile<decltype(rows)::value>(args...); });
#else
    (void)xq, (void)x_stride, (void)frames, (void)y, (void)y_stride, (void)panel_begin, (void)panel_end;
#endif
}

size_t q8_activation_row_bytes(int64_t k) { return quantized_row_bytes(k); }

void quantize_q8_0_weights(const float * x, int64_t n, void * blocks) {
#ifdef PARAKEET_X86
    if (n % 32 == 0 && cpu_has_avx512_vnni()) {
        quantize_weights(x, n, static_cast<BlockQ8_0 *>(blocks));
        return;
    }
#endif
    ggml_quantize_chunk(GGML_TYPE_Q8_0, x, blocks, 0, 1, n, nullptr);
}

void quantize_q8_activation_row(const float * x, int64_t k, uint8_t * out) {
#ifdef PARAKEET_X86
    static const bool avx512 = cpu_has_avx512_vnni();
    if (avx512)
        quantize_row(x, k, out);
    else
        q8_avx2_quantize_row(x, k, out);
#else
    (void)x, (void)k, (void)out;
#endif
}

}  // namespace parakeet
