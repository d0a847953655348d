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

/**
 * Makes `v` a register value at this point, so that the compiler cannot move the integer sums of a
 * block around it. The 256-bit integer GEMM tiles (i16/q8_0 ymm) sum products into int32 lanes; integer
 * adds being associative, GCC 12 computed all of a block's products first, spilled them to the stack
 * and summed them afterwards (a 6-frame i16 tile: ≈ 460 stores a block; i16_avx2 ran at 15–20 G
 * multiply-adds/s on Zen 3, 35–50 with this). Emits no instruction; the sums stay exact either way.
 */
template <typename Vector>
static inline __attribute__((always_inline)) void keep_in_register(Vector & v) {
    __asm__("" : "+x"(v));
}

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

// exp512's polynomial on 8 lanes (simd_math.h): e^x as e^r, r = x − n·ln 2 with ln 2 in two parts
// and the Cephes degree-6 polynomial, for n = round(x·log2 e) as the caller found it (times 2^n: the caller's).
PARAKEET_AVX2 static inline __m256 exp_reduced256(__m256 x, __m256 n) {
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    return _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
}

// e^x on 8 lanes: exp512's arithmetic, n from the 1.5·2²³ shifter and 2^n put into the exponent
// field as sigmoid256 does.
PARAKEET_AVX2 static inline __m256 exp256(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-86.0f)), _mm256_set1_ps(88.3f));  // e^−86 ≈ 4e−38 keeps 2^n normal
    const __m256 shifter = _mm256_set1_ps(12582912.0f);                                  // 1.5·2²³: adding it rounds to an integer (nearest even)
    const __m256 shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), shifter);
    const __m256 p = exp_reduced256(x, _mm256_sub_ps(shifted, shifter));
    // n ∈ [−124, 127]: p·2^n through the exponent field (p ∈ [0.7, 1.42]) stays a normal float.
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_castps_si256(shifted), 23)));
}

// e^x on 8 lanes equal to exp512's bit for bit: its clamp, n = x·log2 e rounded to a float and then
// to an integer (the shifter's single rounding of the FMA can differ from that next to a half), and
// p·2^n as one correctly rounded product (VSCALEFPS's; 2^n ≥ 2⁻¹²⁶ is a normal float here). For the
// 256-bit twins of AVX-512 ops whose outputs must equal theirs (attention_i16_ymm.inc).
PARAKEET_AVX2 static inline __m256 exp256_as_exp512(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 two_n = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
    return _mm256_mul_ps(exp_reduced256(x, n), two_n);
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

/**
 * The float sum of 16 lanes held as two halves (lanes 0–7, 8–15) in the order GCC's
 * _mm512_reduce_add_ps adds them (the halves, then the quarters, the pairs, the last two), so a
 * 256-bit twin's sum equals its 512-bit op's bit for bit (attention_i16_ymm.inc).
 */
PARAKEET_AVX2 static inline float reduce_add16_as_zmm(__m256 lo, __m256 hi) {
    const __m256 halves = _mm256_add_ps(hi, lo);
    const __m128 quarters = _mm_add_ps(_mm256_extractf128_ps(halves, 1), _mm256_castps256_ps128(halves));
    const __m128 pairs = _mm_add_ps(quarters, _mm_shuffle_ps(quarters, quarters, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_cvtss_f32(pairs) + _mm_cvtss_f32(_mm_shuffle_ps(pairs, pairs, _MM_SHUFFLE(1, 1, 1, 1)));
}

/** |v| per lane. */
PARAKEET_AVX2 static inline __m256 abs256(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

}  // namespace parakeet

#endif
