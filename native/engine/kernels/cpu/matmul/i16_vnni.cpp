// F32 weights × activations as 14-bit integers per 32-block with AVX512-VNNI (see i16_vnni.h for why).
//
// Packed weight layout, per panel of 32 output rows and per block of 32 inputs (k0 = 32·block):
// for each pair g of inputs, the 32 rows' two weights, i.e. int16 [g][row][j] = q[row][k0 + 2g + j]
// — two 64-byte vectors per pair, each 16 rows × 2 inputs, what VPDPWSSD multiplies with a
// broadcast of two activations. After each block's weights, its rows' scales (float): one prefetch
// stream, one pointer per block (as in q8_0_vnni.cpp).
//
// Activation rows, one per frame: K int16, then K/32 float scales.
#include "i16_vnni.h"
#include "cpu_ops.h"
#include "i16_ymm.h"
#include "packed_op.h"
#include "simd_math.h"
#include "block_chunks.h"
#include "weight_prefetch.h"

#include <cstring>
#include <stdexcept>

namespace parakeet {
namespace {

constexpr int kPanel = 32;          // output rows per packed panel (two 16-lane vectors)
constexpr float kLevels = 8191.0f;  // ±(2¹³ − 1): a block's 32 products of two such values stay below 2³¹

size_t quantized_row_bytes(int64_t k) { return size_t(k) * sizeof(int16_t) + size_t(k / 32) * sizeof(float); }

}  // namespace

size_t PackedI16Matrix::storage_bytes(int64_t rows, int64_t cols) {
    return size_t(rows) * size_t(cols) * sizeof(int16_t) + size_t(rows) * size_t(cols / 32) * sizeof(float);
}

namespace {

#ifdef PARAKEET_X86
// One block of 32 values: d = max|v| / 8191, returned; q = round(v / d) into q[0…31] (nearest, ties
// to even). The activation rows and the weights at load are rounded by this one function.
PARAKEET_VNNI512 inline float quantize_block(const float * v, int16_t * q) {
    const __m512 v0 = _mm512_loadu_ps(v), v1 = _mm512_loadu_ps(v + 16);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
    const __m512 id = _mm512_set1_ps(amax > 0.0f ? kLevels / amax : 0.0f);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(q), _mm512_cvtepi32_epi16(_mm512_cvtps_epi32(_mm512_mul_ps(v0, id))));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(q + 16), _mm512_cvtepi32_epi16(_mm512_cvtps_epi32(_mm512_mul_ps(v1, id))));
    return amax / kLevels;
}
#endif

}  // namespace

const char * i16_kernel_layout(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return "i16_vnni";
        case Int8Kernel::AvxVnniVex: return "i16_avx_vnni";
        case Int8Kernel::AvxVnniEvex: return "i16_avx_vnni_evex";
        case Int8Kernel::Avx2: return "i16_avx2";
    }
    return "i16_avx2";
}

// Built where `kernel` runs (the registry's rows): AVX2 at least. The weights are rounded by the
// 512-bit quantizer where the CPU has it, else by its AVX2 twin: the same bytes either way.
PackedI16Matrix::PackedI16Matrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel)
        : rows_(rows), cols_(cols), kernel_(kernel) {
    if (!fits(rows, cols)) throw std::invalid_argument("PackedI16Matrix: rows and cols must be multiples of 32");
    const int64_t nb = cols / 32, panels = rows / kPanel;
    packed_ = storage;
#ifdef PARAKEET_X86
    static const bool avx512 = cpu_has_avx512_vnni();
    for (int64_t p = 0; p < panels; ++p) {
        for (int64_t b = 0; b < nb; ++b) {
            // Each row's pair g (two int16, one 32-bit word) goes to word g·32 + r: the [pair][row] order VPDPWSSD reads.
            uint8_t * block = packed_ + (size_t(p) * size_t(nb) + size_t(b)) * kBlockBytes;
            auto * pairs = reinterpret_cast<uint32_t *>(block);
            float * sdst = reinterpret_cast<float *>(block + kScalesAt);
            for (int r = 0; r < kPanel; ++r) {
                alignas(64) int16_t q[32];
                const float * v = w + size_t(p * kPanel + r) * size_t(cols) + size_t(b * 32);
                sdst[r] = avx512 ? quantize_block(v, q) : i16_avx2_quantize_block(v, q);
                uint32_t words[16];
                std::memcpy(words, q, sizeof words);
                for (int g = 0; g < 16; ++g) pairs[g * 32 + r] = words[g];
            }
        }
    }
#else
    (void)w, (void)nb, (void)panels;
    throw std::logic_error("PackedI16Matrix needs an x86 CPU with AVX2");
#endif
}

namespace {

#ifdef PARAKEET_X86

// An activation row: its blocks' values, then their scales.
PARAKEET_VNNI512 void quantize_row(const float * x, int64_t k, uint8_t * out) {
    int16_t * q = reinterpret_cast<int16_t *>(out);
    float * scales = reinterpret_cast<float *>(out + size_t(k) * sizeof(int16_t));
    for (int64_t b = 0; b < k / 32; ++b) scales[b] = quantize_block(x + b * 32, q + b * 32);
}

// The same bytes either way (i16_avx2.cpp): the 256-bit kernels' rows may come from here too.
void quantize_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    static const bool avx512 = cpu_has_avx512_vnni();
    if (avx512)
        quantize_rows_op<quantize_row>(dst, ith, nth, userdata);
    else
        quantize_rows_op<i16_avx2_quantize_row>(dst, ith, nth, userdata);
}

// MR frames × one panel of 32 output rows, over blocks [b0, b1); `accumulate` adds to y (later chunks).
template <int MR>
PARAKEET_VNNI512 void gemm_tile(const uint8_t * xq, size_t x_stride, int64_t k, const PackedI16Matrix & w, int64_t panel, int64_t b0, int64_t b1,
                                float * y, size_t y_stride, bool accumulate, const EpilogueView * ep, int64_t t0, PrefetchShare next_weights,
                                PrefetchShare next_scales) {
    (void)next_scales;  // the scales travel in the weights' stream (the layout above)
    next_weights.front();
    const uint8_t * wp = w.block_weights(panel, 0);
    const size_t scales_at = size_t(k) * sizeof(int16_t);
    __m512 acc[MR][2];
    start_tile<MR>(acc, y, y_stride, accumulate);
    for (int64_t b = b0; b < b1; ++b) {
        __m512i dot[MR][2];
        for (int r = 0; r < MR; ++r) dot[r][0] = dot[r][1] = _mm512_setzero_si512();
        const uint8_t * wb = wp + size_t(b) * PackedI16Matrix::kBlockBytes;
        next_weights.tick_line();  // this tile's slice of the next chunk (weight_prefetch.h)
                                   // Unrolled: a rolled loop made GCC 12 copy the 12 accumulators in and out of other registers every pair.
#pragma GCC unroll 16
        for (int g = 0; g < 16; ++g) {
            const __m512i w0 = _mm512_loadu_si512(wb + g * 128);
            const __m512i w1 = _mm512_loadu_si512(wb + g * 128 + 64);
            for (int r = 0; r < MR; ++r) {
                int32_t two;
                std::memcpy(&two, xq + size_t(r) * x_stride + size_t(b * 32 + g * 2) * sizeof(int16_t), 4);
                const __m512i a = _mm512_set1_epi32(two);
                dot[r][0] = _mm512_dpwssd_epi32(dot[r][0], w0, a);
                dot[r][1] = _mm512_dpwssd_epi32(dot[r][1], w1, a);
            }
        }
        add_scaled_block<MR>(acc, dot, reinterpret_cast<const float *>(wb + PackedI16Matrix::kScalesAt), xq, x_stride, scales_at, b);
    }
    end_tile<MR>(acc, y, y_stride, ep, t0, panel * 32);  // the epilogue on the last chunk
}

// Blocks per k chunk: 32 KiB of a panel's weights, which the frame tiles read from L1 or L2. Fewer,
// longer tiles won over L1 residency: 4, 8 and 16 blocks ran 102, 113 and 119 GMAC/s here (1024 → 4096).
constexpr int64_t kChunkBlocks = 16;

PARAKEET_VNNI512 void gemm_panels(const ggml_tensor * xq, ggml_tensor * dst, const PackedI16Matrix & w, PanelItems & items,
                                  const EpilogueView & view) {
    block_chunk_gemm<kChunkBlocks>(xq, dst, w, items, view, BlockStream{w.block_weights(0, 0), PackedI16Matrix::kBlockBytes},
                                   BlockStream{w.block_weights(0, 0), 0},
                                   [](auto rows, auto &&... args) { gemm_tile<decltype(rows)::value>(args...); });
}

void gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) { share_panels<PackedI16Matrix, gemm_panels>(dst, ith, nth, userdata); }

/** The GEMM op body of each kernel. */
ggml_custom_op_t gemm_op_of(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return gemm_op;
        case Int8Kernel::AvxVnniVex: return i16_avx_vnni_vex_gemm_op;
        case Int8Kernel::AvxVnniEvex: return i16_avx_vnni_evex_gemm_op;
        case Int8Kernel::Avx2: return i16_avx2_gemm_op;
    }
    return gemm_op;
}

#else

void quantize_op(ggml_tensor *, int, int, void *) {}
ggml_custom_op_t gemm_op_of(Int8Kernel) { return nullptr; }

#endif  // PARAKEET_X86

/** The nodes' name prefix: "i16" for the 512-bit kernel (as before the 256-bit ones), else the kernel id. */
const char * node_prefix(Int8Kernel k) { return k == Int8Kernel::Vnni512 ? "i16" : i16_kernel_layout(k); }

}  // namespace

// W·x in two custom ops: the activations into 14-bit blocks, then the GEMM. CPU backend only; the
// nodes are named "i16_quantize:<weight>" and "i16_gemm:<weight>" (profiles; the 256-bit kernels'
// "i16_avx2_…" and "i16_avx_vnni_…").
ggml_tensor * PackedI16Matrix::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    return apply_quantized(ctx, quantize(ctx, x, weight_name), weight_name, e);
}

ggml_tensor * PackedI16Matrix::quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const {
    return quantize_node(ctx, x, cols(), quantized_row_bytes(cols()), quantize_op, node_prefix(kernel_), weight_name);
}

ggml_tensor * PackedI16Matrix::apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & e) const {
    return quantized_gemm_node(ctx, xq, *this, configs_, quantized_row_bytes(cols()), e, gemm_op_of(kernel_), node_prefix(kernel_), weight_name);
}

size_t i16_activation_row_bytes(int64_t k) { return quantized_row_bytes(k); }

void quantize_i16_activation_row(const float * x, int64_t k, uint8_t * out) {
#ifdef PARAKEET_X86
    static const bool avx512 = cpu_has_avx512_vnni();
    if (avx512)
        quantize_row(x, k, out);
    else
        i16_avx2_quantize_row(x, k, out);
#else
    (void)x, (void)k, (void)out;
#endif
}

}  // namespace parakeet
