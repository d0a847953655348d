// norm_row_avx512's arithmetic (layer_norm_op.cpp) on 8 lanes: the mean, then the variance of the
// centred values (the numerically safe form, as ggml_norm computes it), then one pass writing
// (x − mean)·rstd·γ + β; the sums in four accumulators where d % 32 == 0 (one dependent chain of
// adds waits out each add's latency).
#include "layer_norm_avx2.h"

#include <cmath>

#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

namespace {

constexpr float kEps = 1e-5f;  // torch.nn.LayerNorm default, as NeMo's ConformerLayer uses it

PARAKEET_AVX2 float reduce_add_ps256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

PARAKEET_AVX2 void norm_row(const float * x, const float * g, const float * b, float * y, int64_t d) {
    const int lanes = d % 32 == 0 ? 4 : 1;
    __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t i = 0; i < d; i += 8 * lanes)
        for (int k = 0; k < lanes; ++k) s[k] = _mm256_add_ps(s[k], _mm256_loadu_ps(x + i + 8 * k));
    const float mean = reduce_add_ps256(_mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3]))) / float(d);
    const __m256 m = _mm256_set1_ps(mean);
    __m256 v[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t i = 0; i < d; i += 8 * lanes) {
        for (int k = 0; k < lanes; ++k) {
            const __m256 c = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8 * k), m);
            v[k] = _mm256_fmadd_ps(c, c, v[k]);
        }
    }
    const float var = reduce_add_ps256(_mm256_add_ps(_mm256_add_ps(v[0], v[1]), _mm256_add_ps(v[2], v[3]))) / float(d);
    const __m256 rstd = _mm256_set1_ps(1.0f / std::sqrt(var + kEps));
    for (int64_t i = 0; i < d; i += 8) {
        const __m256 c = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), rstd);
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(c, _mm256_loadu_ps(g + i), _mm256_loadu_ps(b + i)));
    }
}

}  // namespace

void norm_row_avx2(const float * x, const float * gamma, const float * beta, float * y, int64_t d) { norm_row(x, gamma, beta, y, d); }

#else

void norm_row_avx2(const float *, const float *, const float *, float *, int64_t) {}  // never called: no AVX2 off x86

#endif

}  // namespace parakeet
