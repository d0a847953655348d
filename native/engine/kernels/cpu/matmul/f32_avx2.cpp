// F32 × activations on AVX2 (see f32_avx2.h): f32_avx512.cpp's arithmetic (one FMA chain per output
// over k in order, exact F32; F16 weights widened exactly) with 16 ymm registers instead of 32.
//
// Panel p holds rows [32p, 32p + 32), k-major (data[p][k][r]). A tile is MR ≤ 6 frames × one half
// panel of 16 outputs: 12 accumulators, two weight vectors, one broadcast (15 registers; the
// 512-bit kernel's 14 frames × 32 outputs would spill here). Each tile runs over all of k; a half
// panel's weights (k·64 bytes, 256 KiB at 4096 inputs) stay in L2 while the frame tiles pass.
#include "f32_avx2.h"

#include <algorithm>
#include <type_traits>

#include "packed_op.h"
#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

namespace {

constexpr int kTileFrames = 6;

template <typename Element>
PARAKEET_AVX2 inline __attribute__((always_inline)) __m256 load8(const Element * p) {
    if constexpr (std::is_same<Element, float>::value)
        return _mm256_loadu_ps(p);
    else
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));  // F16 → F32: exact
}

// MR frames (rows of x from `x`) × outputs [col, col + 16) of panel `panel`, over all of k, into y.
template <int MR, typename Element>
PARAKEET_AVX2 void half_tile(const float * x, size_t xs, int64_t k, const Element * panel, int half, float * y, size_t ys, const EpilogueView & ep,
                             int64_t t0, int64_t col) {
    __m256 acc[MR][2];
    for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const Element * wp = panel + 16 * half;
    for (int64_t i = 0; i < k; ++i) {
        const __m256 w0 = load8(wp + size_t(i) * 32), w1 = load8(wp + size_t(i) * 32 + 8);
        for (int r = 0; r < MR; ++r) {
            const __m256 a = _mm256_broadcast_ss(x + size_t(r) * xs + size_t(i));
            acc[r][0] = _mm256_fmadd_ps(a, w0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(a, w1, acc[r][1]);
        }
    }
    for (int r = 0; r < MR; ++r) {
        const bool keep = ep.frame_keep(t0 + r) != 0.0f;
        for (int v = 0; v < 2; ++v) {
            __m256 o = finish_outputs256(acc[r][v], ep.bias_at(col + 8 * v), ep.silu, ep.residual_at(t0 + r, col + 8 * v), ep.scale);
            if (ep.relu) o = _mm256_max_ps(o, _mm256_setzero_ps());
            _mm256_storeu_ps(y + size_t(r) * ys + 8 * v, keep ? o : _mm256_setzero_ps());
        }
    }
}

template <typename Element>
using HalfTileFn = void (*)(const float *, size_t, int64_t, const Element *, int, float *, size_t, const EpilogueView &, int64_t, int64_t);

}  // namespace

template <typename Element>
void f32_avx2_panels(const PackedPanelMatrix<Element> & w, const ggml_tensor * x, ggml_tensor * dst, int64_t p0, int64_t p1,
                     const EpilogueView & ep) {
    static const HalfTileFn<Element> tiles[kTileFrames + 1] = {nullptr,
                                                               half_tile<1, Element>,
                                                               half_tile<2, Element>,
                                                               half_tile<3, Element>,
                                                               half_tile<4, Element>,
                                                               half_tile<5, Element>,
                                                               half_tile<6, Element>};
    const int64_t k = w.cols(), frames = x->ne[1];
    const size_t xs = x->nb[1] / sizeof(float), ys = dst->nb[1] / sizeof(float);
    const float * xb = static_cast<const float *>(x->data);
    float * yb = static_cast<float *>(dst->data);
    for (int64_t p = p0; p < p1; ++p) {
        for (int half = 0; half < 2; ++half) {
            const int64_t col = p * 32 + 16 * half;
            for (int64_t t = 0; t < frames; t += kTileFrames) {
                const int64_t n = std::min<int64_t>(frames - t, kTileFrames);
                tiles[n](xb + size_t(t) * xs, xs, k, w.panel(p), half, yb + size_t(t) * ys + size_t(col), ys, ep, t, col);
            }
        }
    }
}

#else  // not x86: never called (cpu_has_avx2 is false)

template <typename Element>
void f32_avx2_panels(const PackedPanelMatrix<Element> &, const ggml_tensor *, ggml_tensor *, int64_t, int64_t, const EpilogueView &) {}

#endif

template void f32_avx2_panels<float>(const PackedPanelMatrix<float> &, const ggml_tensor *, ggml_tensor *, int64_t, int64_t, const EpilogueView &);
template void f32_avx2_panels<ggml_fp16_t>(const PackedPanelMatrix<ggml_fp16_t> &, const ggml_tensor *, ggml_tensor *, int64_t, int64_t,
                                           const EpilogueView &);

}  // namespace parakeet
