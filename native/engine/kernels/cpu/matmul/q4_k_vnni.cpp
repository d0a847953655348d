// Q4_K × activations with AVX512-VNNI (see q4_k_vnni.h for the arithmetic).
//
// Packed layout, per panel of 32 output rows and per block of 32 inputs (one Q4_K
// sub-block): 8 groups of 4 inputs, each a 64-byte vector whose byte 4r + j holds
// row r's 4-bit q at input 4g + j in its low nibble and row r + 16's in its high
// nibble, so one load and two masks give the two 16-row vectors VPDPBUSD
// multiplies with a broadcast of 4 activation bytes. Beside it the rows' D and M
// as floats: 4.5 bits of quants and scales per weight in the file, 6 here.
#include "q4_k_vnni.h"
#include "cpu_ops.h"
#include "q4_k_ymm.h"
#include "q8_0_vnni.h"
#include "simd_math.h"
#include "block_chunks.h"
#include "weight_prefetch.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace parakeet {
namespace {

struct BlockQ4K {        // ggml's block_q4_K: 256 weights in 8 sub-blocks of 32
    ggml_fp16_t d;       // multiplies the sub-blocks' 6-bit scales
    ggml_fp16_t dmin;    // multiplies their 6-bit minimums
    uint8_t scales[12];  // 8 scales and 8 minimums, 6 bits each
    uint8_t qs[128];     // sub-blocks 2i and 2i+1 in the low and high nibbles of bytes 32i…32i+31
};
static_assert(sizeof(BlockQ4K) == 144, "block_q4_K layout");

constexpr int kPanel = 32;

/** Sub-block j's 6-bit scale and minimum: the first four sit in the low 6 bits of bytes j and j + 4;
 *  the last four take a nibble of byte j + 4 and the top 2 bits of bytes j − 4 (scale) and j (minimum). */
void scale_and_min(const uint8_t * s, int j, int & scale, int & min) {
    if (j < 4) {
        scale = s[j] & 63;
        min = s[j + 4] & 63;
    } else {
        scale = (s[j + 4] & 0x0F) | ((s[j - 4] >> 6) << 4);
        min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

}  // namespace

size_t PackedQ4KMatrix::storage_bytes(int64_t rows, int64_t cols) {
    // Half a byte per weight, then two floats per row and 32 inputs.
    return size_t(rows) * size_t(cols) / 2 + size_t(rows) * size_t(cols / 32) * 8;
}

const char * q4_k_kernel_layout(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return "q4_k_vnni";
        case Int8Kernel::AvxVnniVex: return "q4_k_avx_vnni";
        case Int8Kernel::AvxVnniEvex: return "q4_k_avx_vnni_evex";
        case Int8Kernel::Avx2: return "q4_k_avx2";
    }
    return "q4_k_avx2";
}

PackedQ4KMatrix::PackedQ4KMatrix(const void * q4_k, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel)
        : rows_(rows),
          cols_(cols),
          kernel_(kernel) {
    if (!fits(rows, cols)) throw std::invalid_argument("PackedQ4KMatrix: rows must be a multiple of 32 and cols of 256");
    const int64_t nb = cols / 32, super_blocks = cols / 256, panels = rows / kPanel;
    quants_ = storage;
    scales_ = reinterpret_cast<float *>(storage + size_t(rows) * size_t(cols) / 2);
    const BlockQ4K * src = static_cast<const BlockQ4K *>(q4_k);
    uint8_t q[kPanel][32];
    for (int64_t p = 0; p < panels; ++p) {
        for (int64_t b = 0; b < nb; ++b) {
            const int j = int(b % 8);
            float * d_out = scales_ + (size_t(p) * size_t(nb) + size_t(b)) * 64;
            for (int r = 0; r < kPanel; ++r) {
                const BlockQ4K & blk = src[size_t(p * kPanel + r) * size_t(super_blocks) + size_t(b / 8)];
                int scale = 0, min = 0;
                scale_and_min(blk.scales, j, scale, min);
                d_out[r] = ggml_fp16_to_fp32(blk.d) * float(scale);
                d_out[32 + r] = ggml_fp16_to_fp32(blk.dmin) * float(min);
                const uint8_t * bytes = blk.qs + 32 * (j / 2);
                for (int i = 0; i < 32; ++i) q[r][i] = (j % 2 == 0) ? (bytes[i] & 0x0F) : (bytes[i] >> 4);
            }
            uint8_t * dst = quants_ + (size_t(p) * size_t(nb) + size_t(b)) * 512;
            for (int g = 0; g < 8; ++g)
                for (int r = 0; r < 16; ++r)
                    for (int t = 0; t < 4; ++t) dst[g * 64 + r * 4 + t] = uint8_t(q[r][4 * g + t] | (q[r + 16][4 * g + t] << 4));
        }
    }
}

namespace {

#ifdef PARAKEET_X86

// MR frames × one panel of 32 output rows, over blocks [b0, b1); `accumulate` adds to y (later chunks).
template <int MR>
PARAKEET_VNNI512 void gemm_tile(const uint8_t * xq, size_t x_stride, int64_t k, const PackedQ4KMatrix & w, int64_t panel, int64_t b0, int64_t b1,
                                float * y, size_t y_stride, bool accumulate, const EpilogueView * ep, int64_t t0, PrefetchShare next_quants,
                                PrefetchShare next_scales) {
    const uint8_t * wq = w.panel_quants(panel);
    const float * ws = w.panel_scales(panel);
    // The activation row: k int8, k/32 scales dx, k/32 int32 (the Q8_0 kernel's), k/32 floats dx·Σ qx.
    const size_t scales_at = size_t(k), sums_at = size_t(k) + size_t(k / 32) * 8;
    const __m512i low = _mm512_set1_epi8(0x0F);
    __m512 acc[MR][2];
    start_tile<MR>(acc, y, y_stride, accumulate);
    for (int64_t b = b0; b < b1; ++b) {
        __m512i dot[MR][2];
        for (int r = 0; r < MR; ++r) dot[r][0] = dot[r][1] = _mm512_setzero_si512();
        const uint8_t * wb = wq + b * 512;
        next_quants.tick();  // this tile's slices of the next chunk (weight_prefetch.h)
        next_scales.tick();
        for (int g = 0; g < 8; ++g) {
            const __m512i v = _mm512_loadu_si512(wb + g * 64);
            const __m512i w0 = _mm512_and_si512(v, low);                        // rows 0–15
            const __m512i w1 = _mm512_and_si512(_mm512_srli_epi16(v, 4), low);  // rows 16–31
            for (int r = 0; r < MR; ++r) {
                int32_t four;
                std::memcpy(&four, xq + size_t(r) * x_stride + size_t(b * 32 + g * 4), 4);
                const __m512i a = _mm512_set1_epi32(four);
                dot[r][0] = _mm512_dpbusd_epi32(dot[r][0], w0, a);  // unsigned 4-bit q × signed activations
                dot[r][1] = _mm512_dpbusd_epi32(dot[r][1], w1, a);
            }
        }
        const float * s = ws + b * 64;
        const __m512 d0 = _mm512_loadu_ps(s), d1 = _mm512_loadu_ps(s + 16), m0 = _mm512_loadu_ps(s + 32), m1 = _mm512_loadu_ps(s + 48);
        for (int r = 0; r < MR; ++r) {
            const uint8_t * row = xq + size_t(r) * x_stride;
            float dx = 0.0f, dx_sum = 0.0f;
            std::memcpy(&dx, row + scales_at + size_t(b) * 4, 4);
            std::memcpy(&dx_sum, row + sums_at + size_t(b) * 4, 4);
            const __m512 sx = _mm512_set1_ps(dx), zx = _mm512_set1_ps(dx_sum);
            acc[r][0] = _mm512_fnmadd_ps(m0, zx, _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r][0]), _mm512_mul_ps(d0, sx), acc[r][0]));
            acc[r][1] = _mm512_fnmadd_ps(m1, zx, _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r][1]), _mm512_mul_ps(d1, sx), acc[r][1]));
        }
    }
    end_tile<MR>(acc, y, y_stride, ep, t0, panel * 32);  // the epilogue on the last chunk
}

// Blocks per k chunk: a chunk of a panel (32 × 512 B of quants, 32 × 256 B of scales) stays in L1
// while every frame tile passes.
constexpr int64_t kChunkBlocks = 32;

PARAKEET_VNNI512 void gemm_panels(const ggml_tensor * xq, ggml_tensor * dst, const PackedQ4KMatrix & w, PanelItems & items,
                                  const EpilogueView & view) {
    block_chunk_gemm<kChunkBlocks>(xq, dst, w, items, view, BlockStream{w.panel_quants(0), 512}, BlockStream{w.panel_scales(0), 256},
                                   [](auto rows, auto &&... args) { gemm_tile<decltype(rows)::value>(args...); });
}

#endif  // PARAKEET_X86

void gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    share_panels<PackedQ4KMatrix, gemm_panels>(dst, ith, nth, userdata);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

/** The GEMM op body of each kernel. */
ggml_custom_op_t gemm_op_of(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return gemm_op;
        case Int8Kernel::AvxVnniVex: return q4_k_avx_vnni_vex_gemm_op;
        case Int8Kernel::AvxVnniEvex: return q4_k_avx_vnni_evex_gemm_op;
        case Int8Kernel::Avx2: return q4_k_avx2_gemm_op;
    }
    return gemm_op;
}

}  // namespace

// W·x in two custom ops: the activations quantized per 32-block (the Q8_0 kernel's rows), then the
// GEMM. CPU backend only; nodes "q4k_quantize:<weight>" and "q4k_gemm:<weight>" (profiles).
ggml_tensor * PackedQ4KMatrix::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    return apply_quantized(ctx, quantize(ctx, x, weight_name), weight_name, e);
}

ggml_tensor * PackedQ4KMatrix::quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const {
    return quantize_node(ctx, x, cols(), q8_activation_row_bytes(cols()), q8_activation_quantize_op, "q4k", weight_name);
}

ggml_tensor * PackedQ4KMatrix::apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & e) const {
    return quantized_gemm_node(ctx, xq, *this, configs_, q8_activation_row_bytes(cols()), e, gemm_op_of(kernel_), "q4k", weight_name);
}

}  // namespace parakeet
