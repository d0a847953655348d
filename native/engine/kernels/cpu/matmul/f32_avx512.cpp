// F32 × activations with AVX-512 (see f32_avx512.h for why).
//
// Panel p holds output rows [32p, 32p + 32): data[p][k][r] = w[32p + r][k].
// The kernel computes MR frames × 32 outputs: for each k, two 16-lane weight
// vectors and one broadcast activation per frame, 2·MR independent FMA chains
// (MR = 14 fills the register file: 28 accumulators, 2 weights, 1 broadcast).
// Work is split over panels (each thread owns whole output columns).
#include "f32_avx512.h"
#include "cpu_ops.h"
#include "f32_avx2.h"
#include "packed_op.h"
#include "simd_math.h"
#include "weight_prefetch.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

namespace parakeet {

template <typename Element>
PackedPanelMatrix<Element>::PackedPanelMatrix(const Element * w, int64_t rows, int64_t cols, uint8_t * storage, F32Kernel kernel)
        : rows_(rows),
          cols_(cols),
          kernel_(kernel) {
    if (rows % 32 != 0) throw std::invalid_argument("PackedPanelMatrix: rows must be a multiple of 32");
    data_ = reinterpret_cast<Element *>(storage);
    for (int64_t p = 0; p < rows / 32; ++p) {
        Element * dst = data_ + size_t(p) * size_t(cols) * 32;
        const Element * src = w + size_t(p * 32) * size_t(cols);
        // Writes in order (reads from 32 row streams): the destination is fresh memory, whose
        // first touch is the expensive part.
        for (int64_t k = 0; k < cols; ++k)
            for (int64_t r = 0; r < 32; ++r) dst[size_t(k) * 32 + size_t(r)] = src[size_t(r) * size_t(cols) + size_t(k)];
    }
}

template <>
const char * PackedPanelMatrix<float>::layout_name() const {
    return kernel_ == F32Kernel::Avx512 ? "f32_avx512" : "f32_avx2";
}
template <>
const char * PackedPanelMatrix<ggml_fp16_t>::layout_name() const {
    return kernel_ == F32Kernel::Avx512 ? "f16_avx512" : "f16_avx2";
}

namespace {

#ifdef PARAKEET_X86

// Rows [0, n) of an F16 panel block as F32 into `out` (n·32 floats): widened once per block and
// read by every frame tile, rather than converted in each tile (12 % of the FMA ports' time).
PARAKEET_AVX512 void widen_block(const ggml_fp16_t * block, int64_t n, float * out) {
    for (int64_t j = 0; j < n * 32; j += 16)
        _mm512_store_ps(out + j, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(block + j))));
}

// Inputs [k0, k1) of MR frames into 32 outputs; `accumulate` adds to what y holds (later k blocks);
// `ep` (the last block only) applies the epilogue for frames from t0 and outputs from col0.
template <int MR>
PARAKEET_AVX512 void tile(const float * x, size_t x_stride, int64_t k0, int64_t k1, const float * panel, float * y, size_t y_stride, bool accumulate,
                          const EpilogueView * ep, int64_t t0, int64_t col0, PrefetchShare prefetch) {
    __m512 acc[MR][2];
    start_tile<MR>(acc, y, y_stride, accumulate);
    for (int64_t i = k0; i < k1; ++i) {
        prefetch.tick();
        const __m512 w0 = _mm512_loadu_ps(panel + size_t(i) * 32);
        const __m512 w1 = _mm512_loadu_ps(panel + size_t(i) * 32 + 16);
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_set1_ps(x[size_t(r) * x_stride + size_t(i)]);
            acc[r][0] = _mm512_fmadd_ps(a, w0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(a, w1, acc[r][1]);
        }
    }
    end_tile<MR>(acc, y, y_stride, ep, t0, col0);  // the epilogue on the last chunk
}

// 14 frames × 32 outputs: 28 accumulators, two weight vectors and one broadcast fill the 32 registers.
constexpr int kTile = 14;
// Inputs per k block: a block of a panel (kBlock·32 floats, 32 KB) stays in L1 while every frame tile passes.
constexpr int64_t kBlock = 256;
// Frames per block (nine tiles) and inputs per span of the outer blocking (see panels()).
constexpr int64_t kFrameBlock = 9 * kTile;
constexpr int64_t kSpan = 1024;
using TileFn = void (*)(const float *, size_t, int64_t, int64_t, const float *, float *, size_t, bool, const EpilogueView *, int64_t, int64_t,
                        PrefetchShare);

template <typename Element>
PARAKEET_AVX512 void panels(const PackedPanelMatrix<Element> & w, const ggml_tensor * x, ggml_tensor * dst, int64_t p0, int64_t p1,
                            const EpilogueView & ep) {
    static const TileFn tiles[kTile + 1] = {nullptr, tile<1>, tile<2>,  tile<3>,  tile<4>,  tile<5>,  tile<6>, tile<7>,
                                            tile<8>, tile<9>, tile<10>, tile<11>, tile<12>, tile<13>, tile<14>};
    constexpr bool widens = !std::is_same<Element, float>::value;
    alignas(64) float widened[widens ? kBlock * 32 : 1];
    const int64_t k = w.cols(), frames = x->ne[1];
    const size_t xs = x->nb[1] / sizeof(float), ys = dst->nb[1] / sizeof(float);
    const float * xb = static_cast<const float *>(x->data);
    float * yb = static_cast<float *>(dst->data);
    // Blocking: frames in blocks of kFrameBlock, inputs in spans of kSpan, then this thread's panels,
    // then k blocks. The activations a span of a frame block needs (kFrameBlock × kSpan floats,
    // 0.5 MB) stay in L2 while every panel passes; without the blocking each panel re-read all of
    // them from L3 (60 s of audio, or the 2048–4096 inputs of FF linear2: 15–20 % of the rate).
    // Each weight still serves kFrameBlock frames per read from DRAM, enough to keep the FMAs busy.
    for (int64_t f0 = 0; f0 < frames; f0 += kFrameBlock) {
        const int64_t f1 = std::min(frames, f0 + kFrameBlock), tiles_per_block = (f1 - f0 + kTile - 1) / kTile;
        for (int64_t s0 = 0; s0 < k; s0 += kSpan) {
            const int64_t s1 = std::min(k, s0 + kSpan);
            for (int64_t p = p0; p < p1; ++p) {
                const Element * panel = w.panel(p);
                for (int64_t k0 = s0; k0 < s1; k0 += kBlock) {
                    const int64_t k1 = std::min(s1, k0 + kBlock);
                    // The weights come from DRAM (a model is larger than L3). The block used after this one
                    // is pulled into L2 a few lines per step, shared out over every frame tile of this
                    // block: prefetching it all in the first tile filled the core's miss buffers and
                    // stalled that tile's own loads (≈ 10 % of the kernel's rate).
                    // That block: the rest of this span, else the next panel's part of it, else the first
                    // panel's next span, else the next frame block's first span; none at the very end.
                    int64_t next_p = p, next_k0 = k1, next_end = s1;
                    if (k1 >= s1 && p + 1 < p1) {
                        next_p = p + 1;
                        next_k0 = s0;
                    } else if (k1 >= s1) {
                        next_p = p0;
                        next_k0 = s1 < k ? s1 : 0;
                        next_end = s1 < k || f1 < frames ? std::min(k, next_k0 + kSpan) : next_k0;
                    }
                    const PrefetchBlock prefetch{reinterpret_cast<const char *>(w.panel(next_p) + size_t(next_k0) * 32),
                                                 size_t(std::min(kBlock, next_end - next_k0)) * 32 * sizeof(Element), tiles_per_block, k1 - k0};
                    // The tiles read inputs [i0, i1) of x from `x_at` and of the weights from `block`: the
                    // panel itself (F32), or this block widened (F16, rows from 0).
                    const float * block = nullptr;
                    int64_t x_at = 0, i0 = k0, i1 = k1;
                    if constexpr (widens) {
                        widen_block(panel + size_t(k0) * 32, k1 - k0, widened);
                        block = widened;
                        x_at = k0, i0 = 0, i1 = k1 - k0;
                    } else {
                        block = panel;
                    }
                    int64_t tile_index = 0;
                    for (int64_t t = f0; t < f1;) {
                        const int64_t n = std::min<int64_t>(f1 - t, kTile);
                        tiles[n](xb + size_t(t) * xs + size_t(x_at), xs, i0, i1, block, yb + size_t(t) * ys + size_t(p) * 32, ys, k0 > 0,
                                 k1 == k ? &ep : nullptr, t, p * 32, prefetch.share(tile_index++));
                        t += n;
                    }
                }
            }
        }
    }
}
#endif

template <typename Element>
void panel_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    const auto & config = *static_cast<const PackedOpConfig<PackedPanelMatrix<Element>> *>(userdata);
    const PackedPanelMatrix<Element> & w = *config.matrix;
    const int64_t n_panels = w.rows() / 32;
    const ThreadShare share = thread_share(n_panels, ith, nth);
    const int64_t p0 = share.begin, p1 = share.end;
    if (w.kernel() == F32Kernel::Avx2)
        f32_avx2_panels(w, dst->src[0], dst, p0, p1, EpilogueView(dst, config.mode));
    else
        panels(w, dst->src[0], dst, p0, p1, EpilogueView(dst, config.mode));
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

}  // namespace

template <typename Element>
ggml_tensor * PackedPanelMatrix<Element>::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && x->ne[0] == cols_ && x->nb[0] == sizeof(float) && x->ne[2] == 1 && x->ne[3] == 1);
    const auto * config = configs_.get(this, EpilogueMode::of(e));
    ggml_tensor * y = packed_matmul_node(ctx, x, rows_, x->ne[1], e, panel_gemm_op<Element>, config);
    ggml_format_name(y, "%s:%s", std::is_same<Element, float>::value ? "f32_gemm" : "f16_gemm", weight_name);
    return y;
}

template class PackedPanelMatrix<float>;
template class PackedPanelMatrix<ggml_fp16_t>;

}  // namespace parakeet
