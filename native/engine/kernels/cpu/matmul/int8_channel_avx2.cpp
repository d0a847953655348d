// Per-channel int8 × per-frame int8 on AVX2 (kernel id int8_channel_avx2): PackedI8ChannelMatrix's
// layout and activation rows on CPUs with AVX2 + FMA + F16C and no VNNI of either width, and the
// activation quantizer every 256-bit kernel of this layout uses. The GEMM is int8_channel_ymm_tile.inc's.
#include "int8_channel_ymm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "block_chunks.h"
#include "packed_op.h"
#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c")

namespace {

#define PARAKEET_I8C_YMM_DOT 0
#include "int8_channel_ymm_tile.inc"
#undef PARAKEET_I8C_YMM_DOT

// int8_channel_vnni.cpp's quantize_row on 8 lanes, with the same results: s = (max − min)/255
// over a range that includes 0, z = round(−min/s), q = round(x/s) + z (nearest even) in [0, 255]
// (onnxruntime's DynamicQuantizeLinear, per frame). The extremes do not depend on the order.
void quantize_row(const float * xr, int64_t k, uint8_t * qr) {
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= k; i += 8) {
        const __m256 v = _mm256_loadu_ps(xr + i);
        lo = _mm256_min_ps(lo, v), hi = _mm256_max_ps(hi, v);
    }
    float mn = reduce_min256(lo), mx = reduce_max256(hi);
    for (; i < k; ++i) mn = std::min(mn, xr[i]), mx = std::max(mx, xr[i]);
    const float scale = (mx - mn) / 255.0f;
    const float inv = scale > 0.0f ? 1.0f / scale : 0.0f;
    const int32_t zero = scale > 0.0f ? int32_t(std::max(0.0f, std::min(255.0f, std::nearbyint(-mn * inv)))) : 0;
    const __m256 vinv = _mm256_set1_ps(inv);
    const __m256i vz = _mm256_set1_epi32(zero), floor = _mm256_setzero_si256(), ceiling = _mm256_set1_epi32(255);
    i = 0;
    for (; i + 8 <= k; i += 8) {
        __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(xr + i), vinv)), vz);
        q = _mm256_min_epi32(_mm256_max_epi32(q, floor), ceiling);
        const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        const __m128i bytes = _mm_packus_epi16(words, words);
        _mm_storel_epi64(reinterpret_cast<__m128i *>(qr + i), bytes);
    }
    for (; i < k; ++i) qr[i] = uint8_t(std::max(0, std::min(255, int(std::nearbyint(xr[i] * inv)) + zero)));
    std::memcpy(qr + k, &scale, sizeof(float));
    std::memcpy(qr + k + sizeof(float), &zero, sizeof(int32_t));
}

}  // namespace

PARAKEET_TARGET_END

void channel_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedI8ChannelMatrix, channel_gemm>(dst, ith, nth, userdata);
}

void channel_avx2_quantize_row(const float * x, int64_t k, uint8_t * out) { quantize_row(x, k, out); }

#else  // not x86: int8_kernel_runs_here is false for every 256-bit kernel, so these are never called

void channel_avx2_gemm_op(ggml_tensor *, int, int, void *) {}
void channel_avx2_quantize_row(const float *, int64_t, uint8_t *) {}

#endif

}  // namespace parakeet
