// Vector math for the engine's AVX-512 custom ops (x86 only): expf and the
// logistic function, compiled for AVX-512 whatever the build's -march, and
// called only after a run-time CPU check.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define PARAKEET_X86 1

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 AVX-512 headers build vectors from undefined values
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PARAKEET_AVX512 __attribute__((target("avx512f")))
#else
// MSVC compiles AVX-512 intrinsics without per-function targets; cpu_ops.h reports no AVX-512
// there (no __builtin_cpu_supports), so these paths are built but never taken.
#define PARAKEET_AVX512
#endif

namespace parakeet {

#if defined(__GNUC__) || defined(__clang__)
#define PARAKEET_VNNI512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,f16c")))
#else
#define PARAKEET_VNNI512
#endif

// acc += a·b (F32), acc += Σ4 a·w (u8 × s8 → int32) and acc += Σ2 a·b (s16 × s16 → int32) in place. Through the intrinsics, GCC 12
// copies loop-carried accumulators to fresh registers and back at every step of some kernels'
// runtime-length loops (measured: one register move per FMA, on the same ports); the asm forms
// pin each accumulator to its register.
PARAKEET_AVX512 static inline __attribute__((always_inline)) void fma_into(__m512 & acc, __m512 a, __m512 b) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("vfmadd231ps %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
#else
    acc = _mm512_fmadd_ps(a, b, acc);
#endif
}

PARAKEET_VNNI512 static inline __attribute__((always_inline)) void dpbusd_into(__m512i & acc, __m512i a, __m512i w) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w));
#else
    acc = _mm512_dpbusd_epi32(acc, a, w);
#endif
}

// Makes a vector an opaque value in a register: GCC may otherwise rematerialize a loaded vector
// (load it again at every use) instead of keeping it, which multiplies a kernel's loads.
template <typename V>
PARAKEET_AVX512 static inline __attribute__((always_inline)) void pin_register(V & v) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+v"(v));
#else
    (void)v;
#endif
}

PARAKEET_VNNI512 static inline __attribute__((always_inline)) void dpwssd_into(__m512i & acc, __m512i a, __m512i b) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
#else
    acc = _mm512_dpwssd_epi32(acc, a, b);
#endif
}

// expf for AVX-512: 2^n · p(r), n = round(x·log2 e), r = x − n·ln 2 (two-part ln 2), p a degree-6
// polynomial (Cephes expf coefficients); inputs clamped to expf's finite range.
PARAKEET_AVX512 static inline __m512 exp512(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(p, n);
}

// 1 / (1 + e^−x) for x clamped to [−80, 80] (σ(±80) is 1.8e−35 and 1): e^−x then stays a normal
// float, as does its reciprocal; a subnormal operand costs a microcode assist in every later
// multiply (SiLU's x·σ, the LSTM's gates; measured: SiLU on inputs beyond −90 ran 10× slower).
//
// e^−x = 2^n · e^−s with n = round(−x·log2 e) and s = x + n·ln 2 (two-part ln 2), |s| ≤ ln 2 / 2;
// e^−s is a degree-5 polynomial fitted for minimax relative error on that range (5.4e−8), so σ is
// within ≈ 2.4e−7 of the exact value (the Cephes degree-7 form it replaced: 1.6e−7). n comes from
// the 1.5·2²³ shifter (its low bits are n as an integer, shifted into p's exponent), not
// VRNDSCALEPS and VSCALEFPS: SiLU on every feed-forward's linear1 outputs is ≈ 9 % of that GEMM
// at 1024 inputs and the short form takes a quarter fewer instructions.
//
// The quotient is RCP14 (relative error < 2⁻¹⁴) and one Newton step y·(2 − a·y) (error ≈ 2⁻²⁸,
// within an ulp or two of the division): VDIVPS on zmm is one per 10–16 cycles.
PARAKEET_AVX512 static inline __m512 sigmoid512(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-80.0f)), _mm512_set1_ps(80.0f));
    const __m512 shifter = _mm512_set1_ps(12582912.0f);  // 1.5·2²³: adding it rounds to an integer (nearest even)
    const __m512 shifted = _mm512_fmadd_ps(x, _mm512_set1_ps(-1.44269504088896341f), shifter);
    const __m512 n = _mm512_sub_ps(shifted, shifter);
    __m512 s = _mm512_fmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    s = _mm512_fmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), s);
    __m512 p = _mm512_set1_ps(-8.269592188e-3f);
    p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(4.191133752e-2f));
    p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(-1.666802615e-1f));
    p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(4.999897778e-1f));
    p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(-9.999995828e-1f));
    p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(1.0f));
    // 2^n: n (|n| ≤ 116) from the shifter's low bits into p's exponent field; p ∈ [0.70, 1.42].
    const __m512i scaled = _mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(_mm512_castps_si512(shifted), 23));
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 a = _mm512_add_ps(one, _mm512_castsi512_ps(scaled));  // in [1, 1 + e⁸⁰]: its reciprocal stays a normal float
    const __m512 y = _mm512_rcp14_ps(a);
    return _mm512_mul_ps(y, _mm512_fnmadd_ps(a, y, _mm512_set1_ps(2.0f)));
}

/** A packed matmul's epilogue on 16 outputs (packed_weights.h): residual + scale · act(v + bias). */
PARAKEET_AVX512 static inline __m512 finish_outputs(__m512 v, const float * bias16, bool silu, const float * residual16, float scale) {
    if (bias16 != nullptr) v = _mm512_add_ps(v, _mm512_loadu_ps(bias16));
    if (silu) v = _mm512_mul_ps(v, sigmoid512(v));
    if (residual16 != nullptr) v = _mm512_fmadd_ps(v, _mm512_set1_ps(scale), _mm512_loadu_ps(residual16));
    return v;
}

}  // namespace parakeet

#endif
