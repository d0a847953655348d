// conv_module_op.cpp's AVX-512 row steps on 8 lanes (the same arithmetic: σ through the polynomial
// sigmoid256 of simd_math_avx2.h, one FMA chain per channel over the kernel's frames in order), the
// channels past the last multiple of 8 in scalar code with expf as ggml's sigmoid.
#include "conv_module_avx2.h"

#include <cmath>
#include <cstddef>

#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

namespace {
inline float sigmoid_scalar(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace

PARAKEET_AVX2 void glu_row_avx2(const float * first, const float * second, float mask, float * out, int64_t d) {
    const __m256 m = _mm256_set1_ps(mask);
    int64_t c = 0;
    for (; c + 8 <= d; c += 8) {
        const __m256 a = _mm256_loadu_ps(first + c), g = _mm256_loadu_ps(second + c);
        _mm256_storeu_ps(out + c, _mm256_mul_ps(_mm256_mul_ps(a, sigmoid256(g)), m));
    }
    for (; c < d; ++c) out[c] = first[c] * sigmoid_scalar(second[c]) * mask;
}

PARAKEET_AVX2 void depthwise_row_avx2(const float * g, int64_t d, int kernel, const float * w, const float * b, bool silu, float * out) {
    int64_t c = 0;
    for (; c + 8 <= d; c += 8) {
        __m256 s = _mm256_loadu_ps(b + c);
        for (int k = 0; k < kernel; ++k)
            s = _mm256_fmadd_ps(_mm256_loadu_ps(w + size_t(k) * size_t(d) + size_t(c)), _mm256_loadu_ps(g + size_t(k) * size_t(d) + size_t(c)), s);
        if (silu) s = _mm256_mul_ps(s, sigmoid256(s));
        _mm256_storeu_ps(out + c, s);
    }
    for (; c < d; ++c) {
        float s = b[c];
        for (int k = 0; k < kernel; ++k) s += w[size_t(k) * size_t(d) + size_t(c)] * g[size_t(k) * size_t(d) + size_t(c)];
        out[c] = silu ? s * sigmoid_scalar(s) : s;
    }
}

#else  // never called off x86 (cpu_has_avx2 is false)

void glu_row_avx2(const float *, const float *, float, float *, int64_t) {}
void depthwise_row_avx2(const float *, int64_t, int, const float *, const float *, bool, float *) {}

#endif

}  // namespace parakeet
