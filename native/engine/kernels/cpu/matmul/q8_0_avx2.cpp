// Q8_0 × activations on AVX2 (kernel id q8_0_avx2): PackedQ8Matrix's layout and activation rows on
// CPUs with AVX2 + FMA + F16C and no VNNI of either width (AMD Zen 2/3, Intel before Ice Lake), and
// the activation quantizer every 256-bit kernel uses. The tile itself is q8_0_ymm_tile.inc's.
#include "q8_0_ymm.h"

#include <cstring>

#include "block_chunks.h"
#include "packed_op.h"
#include "simd_math_avx2.h"
#include "ymm_tile.h"
#include "weight_prefetch.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c")

namespace {

#define PARAKEET_Q8_YMM_DOT 0
#include "q8_0_ymm_tile.inc"
#undef PARAKEET_Q8_YMM_DOT

}  // namespace

// q8_0_vnni.cpp's quantize_block on 8-lane vectors, operation for operation (max|x| over the
// block, d = max/127 and 127/max as IEEE divisions, products rounded to nearest even, d kept
// through fp16 as block_q8_0 keeps it), so the bytes equal the AVX512-VNNI quantizer's:
// ggml quantize_row_q8_0 per 32-block, with −128·Σq and d·Σq after the scales.
void q8_avx2_quantize_block(const float * x, uint8_t * qr, int64_t k, int64_t b) {
    const int64_t nb = k / 32;
    float * sr = reinterpret_cast<float *>(qr + k);
    int32_t * cr = reinterpret_cast<int32_t *>(qr + k + size_t(nb) * sizeof(float));
    float * zr = reinterpret_cast<float *>(qr + k + size_t(nb) * (sizeof(float) + sizeof(int32_t)));
    // packs leave 4-value groups in the order q0 q1 q2 q3 per 128-bit lane: low halves, then high
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256 v[4];
    for (int i = 0; i < 4; ++i) v[i] = _mm256_loadu_ps(x + 8 * i);
    const float amax = reduce_max256(_mm256_max_ps(_mm256_max_ps(abs256(v[0]), abs256(v[1])), _mm256_max_ps(abs256(v[2]), abs256(v[3]))));
    const float d = amax / 127.0f;
    const __m256 id = _mm256_set1_ps(amax != 0.0f ? 127.0f / amax : 0.0f);
    __m256i q[4];
    for (int i = 0; i < 4; ++i) q[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], id));
    const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(qr + b * 32), _mm256_permutevar8x32_epi32(bytes, order));
    const int32_t sum = reduce_add256(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
    sr[b] = _cvtsh_ss(_cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT));
    cr[b] = -128 * sum;
    zr[b] = sr[b] * float(sum);
}

namespace {

void quantize_row(const float * xr, int64_t k, uint8_t * qr) {
    for (int64_t b = 0; b < k / 32; ++b) q8_avx2_quantize_block(xr + b * 32, qr, k, b);
}

}  // namespace

PARAKEET_TARGET_END

void q8_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) { share_panels<PackedQ8Matrix, gemm_panels>(dst, ith, nth, userdata); }
void q8_avx2_gemm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedQ8Matrix, gemm_panels_quantized, kQuantizedGroup>(dst, ith, nth, userdata);
}

void q8_avx2_multiply(const PackedQ8Matrix & w, const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride, int64_t panel_begin,
                      int64_t panel_end) {
    multiply_panels(w, xq, x_stride, frames, y, y_stride, panel_begin, panel_end);
}

void q8_avx2_quantize_row(const float * x, int64_t k, uint8_t * out) { quantize_row(x, k, out); }

#else  // not x86: int8_kernel_runs_here is false for every 256-bit kernel, so these are never called

void q8_avx2_gemm_op(ggml_tensor *, int, int, void *) {}
void q8_avx2_gemm_quantized_op(ggml_tensor *, int, int, void *) {}
void q8_avx2_quantize_block(const float *, uint8_t *, int64_t, int64_t) {}
void q8_avx2_multiply(const PackedQ8Matrix &, const uint8_t *, size_t, int64_t, float *, size_t, int64_t, int64_t) {}
void q8_avx2_quantize_row(const float *, int64_t, uint8_t *) {}

#endif

}  // namespace parakeet
