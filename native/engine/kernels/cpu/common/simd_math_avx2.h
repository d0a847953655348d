// Vector math for the engine's 256-bit kernels (x86 only): the logistic function and a packed
// matmul's epilogue on 8 lanes, compiled for AVX2 + FMA + F16C whatever the build's -march and
// called only after a run-time CPU check (cpu_has_avx2, cpu_ops.h). The kernels built for a wider
// target (AVX-VNNI, AVX512-VL) inline these too: a function may inline one whose ISA is a subset.
#pragma once

#include "simd_math.h"

#ifdef PARAKEET_X86

#if defined(__GNUC__) || defined(__clang__)
#define PARAKEET_AVX2 __attribute__((target("avx2,fma,f16c")))
#else
#define PARAKEET_AVX2
#endif

// A region of functions compiled for `isa` (a string literal, e.g. "avx2,fma,f16c"): the kernels
// whose one source is built per instruction set (q8_0_ymm_tile.inc, int8_channel_ymm_tile.inc)
// include it between these. Templates defined outside keep their own target.
#define PARAKEET_PRAGMA(text) _Pragma(#text)
#if defined(__clang__)
#define PARAKEET_TARGET_BEGIN(isa) PARAKEET_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define PARAKEET_TARGET_END PARAKEET_PRAGMA(clang attribute pop)
#elif defined(__GNUC__)
#define PARAKEET_TARGET_BEGIN(isa) PARAKEET_PRAGMA(GCC push_options) PARAKEET_PRAGMA(GCC target(isa))
#define PARAKEET_TARGET_END PARAKEET_PRAGMA(GCC pop_options)
#else
#define PARAKEET_TARGET_BEGIN(isa)
#define PARAKEET_TARGET_END
#endif

namespace parakeet {

// sigmoid512's arithmetic on 8 lanes (simd_math.h says why each step is as it is), with the
// division exact (VDIVPS on ymm) where AVX2 has no RCP14: within an ulp of sigmoid512's result.
PARAKEET_AVX2 static inline __m256 sigmoid256(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-80.0f)), _mm256_set1_ps(80.0f));
    const __m256 shifter = _mm256_set1_ps(12582912.0f);  // 1.5·2²³: adding it rounds to an integer (nearest even)
    const __m256 shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(-1.44269504088896341f), shifter);
    const __m256 n = _mm256_sub_ps(shifted, shifter);
    __m256 s = _mm256_fmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    s = _mm256_fmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), s);
    __m256 p = _mm256_set1_ps(-8.269592188e-3f);
    p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(4.191133752e-2f));
    p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(-1.666802615e-1f));
    p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(4.999897778e-1f));
    p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(-9.999995828e-1f));
    p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(1.0f));
    const __m256i scaled = _mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_castps_si256(shifted), 23));
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, _mm256_castsi256_ps(scaled)));
}

// e^x on 8 lanes: exp512's arithmetic (simd_math.h: n = round(x·log2 e), r = x − n·ln 2 in two
// parts, the Cephes degree-6 polynomial), 2^n put into the exponent field as sigmoid256 does.
PARAKEET_AVX2 static inline __m256 exp256(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-86.0f)), _mm256_set1_ps(88.3f));  // e^−86 ≈ 4e−38 keeps 2^n normal
    const __m256 shifter = _mm256_set1_ps(12582912.0f);                                  // 1.5·2²³: adding it rounds to an integer (nearest even)
    const __m256 shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), shifter);
    const __m256 n = _mm256_sub_ps(shifted, shifter);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    // n ∈ [−124, 127]: p·2^n through the exponent field (p ∈ [0.7, 1.42]) stays a normal float.
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_castps_si256(shifted), 23)));
}

/** A packed matmul's epilogue on 8 outputs (packed_weights.h): residual + scale · act(v + bias). */
PARAKEET_AVX2 static inline __m256 finish_outputs256(__m256 v, const float * bias8, bool silu, const float * residual8, float scale) {
    if (bias8 != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(bias8));
    if (silu) v = _mm256_mul_ps(v, sigmoid256(v));
    if (residual8 != nullptr) v = _mm256_fmadd_ps(v, _mm256_set1_ps(scale), _mm256_loadu_ps(residual8));
    return v;
}

/** The largest of the 8 lanes. */
PARAKEET_AVX2 static inline float reduce_max256(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

/** The smallest of the 8 lanes. */
PARAKEET_AVX2 static inline float reduce_min256(__m256 v) {
    __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_min_ps(m, _mm_movehl_ps(m, m));
    m = _mm_min_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

/** The int32 sum of the 8 lanes. */
PARAKEET_AVX2 static inline int32_t reduce_add256(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s);
}

/** |v| per lane. */
PARAKEET_AVX2 static inline __m256 abs256(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

}  // namespace parakeet

#endif
