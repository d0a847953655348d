// F32 / F16 weights × activations as 14-bit integers per 32-block on AVX2 (kernel id i16_avx2):
// PackedI16Matrix's layout and activation rows (i16_vnni.h) on CPUs with AVX2 + FMA + F16C and no
// VNNI of either width (AMD Zen 2/3, Intel before Ice Lake), and the block quantizer every 256-bit
// kernel (and the packing of their weights) uses. The tile itself is i16_ymm_tile.inc's.
//
// VPMADDWD multiplies 16 int16 pairs and adds each pair into an int32 lane: 16 multiply-adds per
// instruction, as many as one 8-lane FMA does in two, but it needs a VPADDD beside it; the 14-bit
// weights are half the F32 bytes. Whether that beats f32_avx2 is the registry's question (registry.cpp).
#include "i16_ymm.h"

#include <cstring>

#include "block_chunks.h"
#include "i16_vnni.h"
#include "packed_op.h"
#include "simd_math_avx2.h"
#include "weight_prefetch.h"
#include "ymm_tile.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c")

namespace {

#define PARAKEET_I16_YMM_DOT 0
#include "i16_ymm_tile.inc"
#undef PARAKEET_I16_YMM_DOT

constexpr float kLevels = 8191.0f;  // as i16_vnni.cpp's: ±(2¹³ − 1)

}  // namespace

// i16_vnni.cpp's quantize_block on 8-lane vectors, operation for operation (max|v| over the block,
// 8191 / max and max / 8191 as IEEE divisions, products rounded to nearest even), so the bytes
// equal the AVX512-VNNI quantizer's. The values stay within ±8191, so the saturating packs are exact.
float i16_avx2_quantize_block(const float * v, int16_t * q) {
    __m256 x[4];
    for (int i = 0; i < 4; ++i) x[i] = _mm256_loadu_ps(v + 8 * i);
    const float amax = reduce_max256(_mm256_max_ps(_mm256_max_ps(abs256(x[0]), abs256(x[1])), _mm256_max_ps(abs256(x[2]), abs256(x[3]))));
    const __m256 id = _mm256_set1_ps(amax > 0.0f ? kLevels / amax : 0.0f);
    for (int h = 0; h < 2; ++h) {
        const __m256i lo = _mm256_cvtps_epi32(_mm256_mul_ps(x[2 * h], id)), hi = _mm256_cvtps_epi32(_mm256_mul_ps(x[2 * h + 1], id));
        // packs interleaves per 128-bit lane (lo 0–3, hi 0–3, lo 4–7, hi 4–7): the 64-bit quarters back in order
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), _MM_SHUFFLE(3, 1, 2, 0));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(q + 16 * h), packed);
    }
    return amax / kLevels;
}

void i16_avx2_quantize_row(const float * x, int64_t k, uint8_t * out) {
    int16_t * q = reinterpret_cast<int16_t *>(out);
    float * scales = reinterpret_cast<float *>(out + size_t(k) * sizeof(int16_t));
    for (int64_t b = 0; b < k / 32; ++b) scales[b] = i16_avx2_quantize_block(x + b * 32, q + b * 32);
}

PARAKEET_TARGET_END

void i16_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) { share_panels<PackedI16Matrix, gemm_panels>(dst, ith, nth, userdata); }

#else  // not x86: int8_kernel_runs_here is false for every 256-bit kernel, so these are never called

void i16_avx2_gemm_op(ggml_tensor *, int, int, void *) {}
float i16_avx2_quantize_block(const float *, int16_t *) { return 0.0f; }
void i16_avx2_quantize_row(const float *, int64_t, uint8_t *) {}

#endif

}  // namespace parakeet
