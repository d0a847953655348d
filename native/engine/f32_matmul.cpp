// F32 × activations with AVX-512 (see f32_matmul.h for why).
//
// Panel p holds output rows [32p, 32p + 32): data[p][k][r] = w[32p + r][k].
// The kernel computes MR frames × 32 outputs: for each k, two 16-lane weight
// vectors and one broadcast activation per frame, 2·MR independent FMA chains.
// Work is split over panels (each thread owns whole output columns).
#include "f32_matmul.h"
#include "cpu_ops.h"
#include "packed_op.h"
#include "simd_math.h"

#include <algorithm>
#include <stdexcept>


namespace parakeet {

PackedF32Matrix::PackedF32Matrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage) : rows_(rows), cols_(cols) {
    if (rows % 32 != 0) throw std::invalid_argument("PackedF32Matrix: rows must be a multiple of 32");
    data_ = reinterpret_cast<float *>(storage);
    for (int64_t p = 0; p < rows / 32; ++p) {
        float * dst = data_ + size_t(p) * size_t(cols) * 32;
        const float * src = w + size_t(p * 32) * size_t(cols);
        // Writes in order (reads from 32 row streams): the destination is fresh memory, whose
        // first touch is the expensive part.
        for (int64_t k = 0; k < cols; ++k)
            for (int64_t r = 0; r < 32; ++r) dst[size_t(k) * 32 + size_t(r)] = src[size_t(r) * size_t(cols) + size_t(k)];
    }
}

namespace {

#ifdef PARAKEET_X86

constexpr int64_t kPrefetchAhead = 256;

// Inputs [k0, k1) of MR frames into 32 outputs; `accumulate` adds to what y holds (later k blocks);
// `ep` (the last block only) applies the epilogue for frames from t0 and outputs from col0.
template <int MR>
PARAKEET_AVX512 void tile(const float * x, size_t x_stride, int64_t k0, int64_t k1, const float * panel, float * y, size_t y_stride,
                          bool accumulate, const EpilogueView * ep, int64_t t0, int64_t col0) {
    __m512 acc[MR][2];
    for (int r = 0; r < MR; ++r) {
        acc[r][0] = accumulate ? _mm512_loadu_ps(y + size_t(r) * y_stride) : _mm512_setzero_ps();
        acc[r][1] = accumulate ? _mm512_loadu_ps(y + size_t(r) * y_stride + 16) : _mm512_setzero_ps();
    }
    for (int64_t i = k0; i < k1; ++i) {
        // The next block of the panel (or the next panel) is pulled towards L2 while this one computes.
        _mm_prefetch(reinterpret_cast<const char *>(panel + size_t(i + kPrefetchAhead) * 32), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char *>(panel + size_t(i + kPrefetchAhead) * 32 + 16), _MM_HINT_T1);
        const __m512 w0 = _mm512_loadu_ps(panel + size_t(i) * 32);
        const __m512 w1 = _mm512_loadu_ps(panel + size_t(i) * 32 + 16);
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_set1_ps(x[size_t(r) * x_stride + size_t(i)]);
            acc[r][0] = _mm512_fmadd_ps(a, w0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(a, w1, acc[r][1]);
        }
    }
    if (ep != nullptr) finish_tile<MR>(acc, *ep, t0, col0);
    for (int r = 0; r < MR; ++r) {
        _mm512_storeu_ps(y + size_t(r) * y_stride, acc[r][0]);
        _mm512_storeu_ps(y + size_t(r) * y_stride + 16, acc[r][1]);
    }
}

constexpr int kTile = 12;
// Inputs per k block: a block of a panel (kBlock·32 floats, 32 KB) stays in L1 while every frame tile passes.
constexpr int64_t kBlock = 256;
using TileFn = void (*)(const float *, size_t, int64_t, int64_t, const float *, float *, size_t, bool, const EpilogueView *, int64_t, int64_t);

PARAKEET_AVX512 void panels(const PackedF32Matrix & w, const ggml_tensor * x, ggml_tensor * dst, int64_t p0, int64_t p1, const EpilogueView & ep) {
    static const TileFn tiles[kTile + 1] = {nullptr, tile<1>, tile<2>, tile<3>, tile<4>, tile<5>, tile<6>,
                                            tile<7>, tile<8>, tile<9>, tile<10>, tile<11>, tile<12>};
    const int64_t k = w.cols(), frames = x->ne[1];
    const size_t xs = x->nb[1] / sizeof(float), ys = dst->nb[1] / sizeof(float);
    const float * xb = static_cast<const float *>(x->data);
    float * yb = static_cast<float *>(dst->data);
    for (int64_t p = p0; p < p1; ++p) {
        const float * panel = w.panel(p);
        for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
            const int64_t k1 = std::min(k, k0 + kBlock);
            for (int64_t t = 0; t < frames;) {
                const int64_t n = std::min<int64_t>(frames - t, kTile);
                tiles[n](xb + size_t(t) * xs, xs, k0, k1, panel, yb + size_t(t) * ys + size_t(p) * 32, ys, k0 > 0, k1 == k ? &ep : nullptr, t,
                         p * 32);
                t += n;
            }
        }
    }
}
#endif

void f32_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    const auto & config = *static_cast<const PackedOpConfig<PackedF32Matrix> *>(userdata);
    const PackedF32Matrix & w = *config.matrix;
    const int64_t n_panels = w.rows() / 32;
    const ThreadShare share = thread_share(n_panels, ith, nth);
    const int64_t p0 = share.begin, p1 = share.end;
    panels(w, dst->src[0], dst, p0, p1, EpilogueView(dst, config.mode));
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

}  // namespace

ggml_tensor * PackedF32Matrix::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && x->ne[0] == cols_ && x->nb[0] == sizeof(float) && x->ne[2] == 1 && x->ne[3] == 1);
    const auto * config = configs_.get(this, EpilogueMode::of(e));
    ggml_tensor * y = packed_matmul_node(ctx, x, rows_, x->ne[1], e, f32_gemm_op, config);
    ggml_format_name(y, "f32_gemm:%s", weight_name);
    return y;
}

}  // namespace parakeet
