// Per-channel int8 × per-frame int8 with AVX512-VNNI (see int8_channel_matmul.h for why).
//
// Packed weight layout, per panel of 32 output rows: for each group g of 4 inputs, the 32 rows'
// 4 consecutive weights, bytes [g][row][j] = q[row][4g + j] — two 64-byte vectors per group (16
// rows × 4 inputs each), what VPDPBUSD multiplies with a broadcast of 4 activation bytes. After the
// panels: one float scale and −Σ q[row] (int32) per row.
//
// Activations are quantized per frame asymmetrically to unsigned bytes (VPDPBUSD multiplies unsigned
// by signed bytes, and the ReLU/SiLU outputs the FFN's second linear reads are far from symmetric):
// x ≈ s·(q − z), s = (max − min)/255, z the zero point. Then Σ x·w ≈ s·s_w·(Σ q·w − z·Σ w), so each
// dot product starts from z·(−Σ w). One row per frame: K bytes, the float s, the int32 z.
#include "int8_channel_matmul.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "cpu_ops.h"
#include "simd_math.h"
#include "weight_prefetch.h"

namespace parakeet {
namespace {

constexpr int kPanel = 32;  // output rows per packed panel (two 16-lane vectors)


size_t quantized_row_bytes(int64_t k) { return size_t(k) + sizeof(float) + sizeof(int32_t); }

}  // namespace

size_t PackedI8ChannelMatrix::storage_bytes(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols) + 2 * size_t(rows) * 4; }

namespace {

#ifdef PARAKEET_X86
// One row quantized per channel (symmetric, round to nearest even as onnxruntime's quantize_dynamic
// does per tensor) into q; returns Σ q. The packing at load runs this over every weight, so it is
// vectorized (the constructor runs only where the CPU has the VNNI kernel).
PARAKEET_VNNI512 int32_t quantize_row(const float * wr, int64_t cols, float inv, int8_t * q) {
    const __m512 vinv = _mm512_set1_ps(inv);
    const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
    __m512i sum = _mm512_setzero_si512();
    int64_t k = 0;
    for (; k + 16 <= cols; k += 16) {
        __m512i v = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(wr + k), vinv));
        v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
        sum = _mm512_add_epi32(sum, v);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(q + k), _mm512_cvtepi32_epi8(v));
    }
    int32_t total = _mm512_reduce_add_epi32(sum);
    for (; k < cols; ++k) {
        q[k] = int8_t(std::max(-127.0f, std::min(127.0f, std::nearbyint(wr[k] * inv))));
        total += q[k];
    }
    return total;
}

PARAKEET_VNNI512 float row_amax(const float * wr, int64_t cols) {
    __m512 m = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 16 <= cols; k += 16) m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_loadu_ps(wr + k)));
    float amax = _mm512_reduce_max_ps(m);
    for (; k < cols; ++k) amax = std::max(amax, std::fabs(wr[k]));
    return amax;
}
#else
int32_t quantize_row(const float * wr, int64_t cols, float inv, int8_t * q) {
    int32_t total = 0;
    for (int64_t k = 0; k < cols; ++k) {
        q[k] = int8_t(std::max(-127.0f, std::min(127.0f, std::nearbyint(wr[k] * inv))));
        total += q[k];
    }
    return total;
}
float row_amax(const float * wr, int64_t cols) {
    float amax = 0.0f;
    for (int64_t k = 0; k < cols; ++k) amax = std::max(amax, std::fabs(wr[k]));
    return amax;
}
#endif

}  // namespace

PackedI8ChannelMatrix::PackedI8ChannelMatrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage) : rows_(rows), cols_(cols) {
    if (!fits(rows, cols)) throw std::invalid_argument("PackedI8ChannelMatrix: rows must be a multiple of 32 and cols of 4");
    weights_ = reinterpret_cast<int8_t *>(storage);
    scales_ = reinterpret_cast<float *>(storage + size_t(rows) * size_t(cols));
    offsets_ = reinterpret_cast<int32_t *>(storage + size_t(rows) * size_t(cols) + size_t(rows) * 4);
    const int64_t groups = cols / 4;
    std::vector<int8_t> q(static_cast<size_t>(cols));
    for (int64_t r = 0; r < rows; ++r) {
        const float * wr = w + size_t(r) * size_t(cols);
        const float amax = row_amax(wr, cols);
        scales_[r] = amax / 127.0f;
        offsets_[r] = -quantize_row(wr, cols, amax > 0.0f ? 127.0f / amax : 0.0f, q.data());
        // Groups of 4 weights move as one 32-bit word into the panel's [group][row] order.
        int8_t * panel = weights_ + size_t(r / kPanel) * size_t(cols) * kPanel + size_t(r % kPanel) * 4;
        for (int64_t g = 0; g < groups; ++g) std::memcpy(panel + size_t(g) * 128, q.data() + 4 * g, 4);
    }
}

namespace {

#ifdef PARAKEET_X86

// Per frame: s = (max − min)/255 over a range that includes 0, z = round(−min/s), q = round(x/s) + z
// (nearest even) in [0, 255]: onnxruntime's DynamicQuantizeLinear, per frame instead of per tensor.
PARAKEET_VNNI512 void quantize_row(const float * xr, int64_t k, uint8_t * qr) {
    {
        // Four independent min/max chains (one is bound by the instructions' latency); the result
        // does not depend on the order.
        __m512 lo0 = _mm512_setzero_ps(), hi0 = _mm512_setzero_ps(), lo1 = lo0, hi1 = hi0, lo2 = lo0, hi2 = hi0, lo3 = lo0, hi3 = hi0;
        int64_t i = 0;
        for (; i + 64 <= k; i += 64) {
            const __m512 v0 = _mm512_loadu_ps(xr + i), v1 = _mm512_loadu_ps(xr + i + 16);
            const __m512 v2 = _mm512_loadu_ps(xr + i + 32), v3 = _mm512_loadu_ps(xr + i + 48);
            lo0 = _mm512_min_ps(lo0, v0), hi0 = _mm512_max_ps(hi0, v0);
            lo1 = _mm512_min_ps(lo1, v1), hi1 = _mm512_max_ps(hi1, v1);
            lo2 = _mm512_min_ps(lo2, v2), hi2 = _mm512_max_ps(hi2, v2);
            lo3 = _mm512_min_ps(lo3, v3), hi3 = _mm512_max_ps(hi3, v3);
        }
        for (; i + 16 <= k; i += 16) {
            const __m512 v = _mm512_loadu_ps(xr + i);
            lo0 = _mm512_min_ps(lo0, v), hi0 = _mm512_max_ps(hi0, v);
        }
        const __m512 lo = _mm512_min_ps(_mm512_min_ps(lo0, lo1), _mm512_min_ps(lo2, lo3));
        const __m512 hi = _mm512_max_ps(_mm512_max_ps(hi0, hi1), _mm512_max_ps(hi2, hi3));
        float mn = _mm512_reduce_min_ps(lo), mx = _mm512_reduce_max_ps(hi);
        for (; i < k; ++i) mn = std::min(mn, xr[i]), mx = std::max(mx, xr[i]);
        const float scale = (mx - mn) / 255.0f;
        const float inv = scale > 0.0f ? 1.0f / scale : 0.0f;
        const int32_t zero = scale > 0.0f ? int32_t(std::max(0.0f, std::min(255.0f, std::nearbyint(-mn * inv)))) : 0;
        const __m512 vinv = _mm512_set1_ps(inv);
        const __m512i vz = _mm512_set1_epi32(zero), v0 = _mm512_setzero_si512();
        i = 0;
        for (; i + 16 <= k; i += 16) {
            // Clamped below at 0, then narrowed with unsigned saturation (VPMOVUSDB) at 255.
            const __m512i q = _mm512_max_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(xr + i), vinv)), vz), v0);
            _mm_storeu_si128(reinterpret_cast<__m128i *>(qr + i), _mm512_cvtusepi32_epi8(q));
        }
        for (; i < k; ++i) qr[i] = uint8_t(std::max(0, std::min(255, int(std::nearbyint(xr[i] * inv)) + zero)));
        std::memcpy(qr + k, &scale, sizeof(float));
        std::memcpy(qr + k + sizeof(float), &zero, sizeof(int32_t));
    }
}

/** The zero point stored after a quantized activation row of k bytes and its scale. */
inline int32_t zero_point(const uint8_t * row, int64_t k) {
    int32_t z;
    std::memcpy(&z, row + k + sizeof(float), sizeof(z));
    return z;
}

inline int32_t load_u32(const uint8_t * p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The int32 dot products of a finished tile → scaled floats, epilogue, stored.
template <int MR>
PARAKEET_VNNI512 inline void finish_dots(const __m512i (&dot)[MR][2], const uint8_t * xq, size_t x_stride, int64_t k,
                                         const PackedI8ChannelMatrix & w, int64_t panel, float * y, size_t y_stride, const EpilogueView * ep,
                                         int64_t t0) {
    const __m512 s0 = _mm512_loadu_ps(w.row_scales() + panel * kPanel), s1 = _mm512_loadu_ps(w.row_scales() + panel * kPanel + 16);
    __m512 acc[MR][2];
    for (int r = 0; r < MR; ++r) {
        float xs;
        std::memcpy(&xs, xq + size_t(r) * x_stride + size_t(k), sizeof(float));
        const __m512 sx = _mm512_set1_ps(xs);
        acc[r][0] = _mm512_mul_ps(_mm512_cvtepi32_ps(dot[r][0]), _mm512_mul_ps(s0, sx));
        acc[r][1] = _mm512_mul_ps(_mm512_cvtepi32_ps(dot[r][1]), _mm512_mul_ps(s1, sx));
    }
    finish_tile<MR>(acc, *ep, t0, panel * kPanel);
    for (int r = 0; r < MR; ++r) {
        _mm512_storeu_ps(y + size_t(r) * y_stride, acc[r][0]);
        _mm512_storeu_ps(y + size_t(r) * y_stride + 16, acc[r][1]);
    }
}

// A tile of MR ≤ 6 frames × 32 rows, its accumulators as named variables (rows past MR compiled
// away): GCC 12 keeps
// arrays of vectors in memory or shuffles them between registers at every loop back edge (measured:
// a third of the loop's vector uops, on the ports VPDPBUSD needs).
#define PARAKEET_ROWS6(X) X(0) X(1) X(2) X(3) X(4) X(5)
template <int MR>
PARAKEET_VNNI512 void gemm_tile_rows(const uint8_t * xq, size_t x_stride, int64_t k, const PackedI8ChannelMatrix & w, int64_t panel, int64_t g0,
                                 int64_t g1, float * y, size_t y_stride, const EpilogueView * ep, int64_t t0, PrefetchShare prefetch) {
    const int8_t * wp = w.panel_weights(panel);
#define PARAKEET_DECLARE(r)                                             \
    const uint8_t * x##r = xq + size_t(std::min(r, MR - 1)) * x_stride; \
    float * y##r = y + size_t(std::min(r, MR - 1)) * y_stride;          \
    __m512i d##r##0 = _mm512_setzero_si512(), d##r##1 = _mm512_setzero_si512();
    PARAKEET_ROWS6(PARAKEET_DECLARE)
#undef PARAKEET_DECLARE
    if (g0 == 0) {
        const __m512i o0 = _mm512_loadu_si512(w.row_offsets() + panel * kPanel), o1 = _mm512_loadu_si512(w.row_offsets() + panel * kPanel + 16);
#define PARAKEET_INIT(r)                                                   \
    if constexpr (r < MR) {                                                \
        const __m512i z = _mm512_set1_epi32(zero_point(x##r, k));          \
        d##r##0 = _mm512_mullo_epi32(z, o0);                               \
        d##r##1 = _mm512_mullo_epi32(z, o1);                               \
    }
        PARAKEET_ROWS6(PARAKEET_INIT)
#undef PARAKEET_INIT
    } else {
#define PARAKEET_RELOAD(r) \
    if constexpr (r < MR) d##r##0 = _mm512_loadu_si512(y##r), d##r##1 = _mm512_loadu_si512(y##r + 16);
        PARAKEET_ROWS6(PARAKEET_RELOAD)
#undef PARAKEET_RELOAD
    }
    for (int64_t g = g0; g < g1; ++g) {
        const __m512i w0 = _mm512_load_si512(wp + g * 128);
        const __m512i w1 = _mm512_load_si512(wp + g * 128 + 64);
        prefetch.tick();  // this tile's slice of the next chunk (weight_prefetch.h)
#define PARAKEET_STEP(r)                                                 \
    if constexpr (r < MR) {                                              \
        const __m512i a = _mm512_set1_epi32(load_u32(x##r + g * 4));     \
        d##r##0 = _mm512_dpbusd_epi32(d##r##0, a, w0);                   \
        d##r##1 = _mm512_dpbusd_epi32(d##r##1, a, w1);                   \
    }
        PARAKEET_ROWS6(PARAKEET_STEP)
#undef PARAKEET_STEP
    }
    if (g1 * 4 < k) {
#define PARAKEET_PARK(r) \
    if constexpr (r < MR) _mm512_storeu_si512(y##r, d##r##0), _mm512_storeu_si512(y##r + 16, d##r##1);
        PARAKEET_ROWS6(PARAKEET_PARK)
#undef PARAKEET_PARK
        return;
    }
    __m512i dot[MR][2];
#define PARAKEET_GATHER(r) \
    if constexpr (r < MR) dot[r][0] = d##r##0, dot[r][1] = d##r##1;
    PARAKEET_ROWS6(PARAKEET_GATHER)
#undef PARAKEET_GATHER
    finish_dots<MR>(dot, xq, x_stride, k, w, panel, y, y_stride, ep, t0);
}
#undef PARAKEET_ROWS6

// Frames per main tile: 12 int32 accumulators, two weight vectors, a broadcast.
constexpr int kTileFrames = 6;
// Groups per k chunk: 128 × 128 B = 16 KiB of a panel stays in L1 while every frame tile passes.
constexpr int64_t kChunkGroups = 128;

PARAKEET_VNNI512 void gemm_panels(const ggml_tensor * xq, ggml_tensor * dst, const PackedI8ChannelMatrix & w, int64_t p0, int64_t p1,
                                  const EpilogueView & view) {
    const int64_t k = w.cols(), frames = xq->ne[1], groups = k / 4;
    const size_t xs = xq->nb[1], ys = dst->nb[1] / sizeof(float);
    const uint8_t * xbase = static_cast<const uint8_t *>(xq->data);
    float * ybase = static_cast<float *>(dst->data);
    for (int64_t p = p0; p < p1; ++p) {
        float * ycol = ybase + size_t(p) * kPanel;
        for (int64_t g0 = 0; g0 < groups; g0 += kChunkGroups) {
            const int64_t g1 = std::min(groups, g0 + kChunkGroups);
            // The next chunk (the next panel's first after the last): 128 B per group, contiguous.
            const int64_t next_groups = std::min(kChunkGroups, g1 < groups ? groups - g1 : groups);
            const PrefetchBlock next{reinterpret_cast<const char *>(w.panel_weights(p) + g1 * 128), size_t(next_groups) * 128,
                                     (frames + kTileFrames - 1) / kTileFrames, g1 - g0};
            int64_t t = 0, tile = 0;
            for (; t + kTileFrames <= frames; t += kTileFrames) {
                gemm_tile_rows<kTileFrames>(xbase + size_t(t) * xs, xs, k, w, p, g0, g1, ycol + size_t(t) * ys, ys, &view, t, next.share(tile++));
            }
            const uint8_t * xt = xbase + size_t(t) * xs;
            float * yt = ycol + size_t(t) * ys;
            const PrefetchShare last = next.share(tile);
            switch (frames - t) {  // the last 1–5 frames
                case 5: gemm_tile_rows<5>(xt, xs, k, w, p, g0, g1, yt, ys, &view, t, last); break;
                case 4: gemm_tile_rows<4>(xt, xs, k, w, p, g0, g1, yt, ys, &view, t, last); break;
                case 3: gemm_tile_rows<3>(xt, xs, k, w, p, g0, g1, yt, ys, &view, t, last); break;
                case 2: gemm_tile_rows<2>(xt, xs, k, w, p, g0, g1, yt, ys, &view, t, last); break;
                case 1: gemm_tile_rows<1>(xt, xs, k, w, p, g0, g1, yt, ys, &view, t, last); break;
                default: break;
            }
        }
    }
}

#endif  // PARAKEET_X86

void quantize_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    quantize_rows_op<quantize_row>(dst, ith, nth, userdata);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

void gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    split_by_panels<PackedI8ChannelMatrix, gemm_panels>(dst, ith, nth, userdata);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

}  // namespace

// W·x in two custom ops: the activations quantized per frame, then the VNNI GEMM. CPU backend only;
// the nodes are named "i8c_quantize:<weight>" and "i8c_gemm:<weight>" (profiles).
ggml_tensor * PackedI8ChannelMatrix::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    return apply_quantized(ctx, quantize(ctx, x, weight_name), weight_name, e);
}

ggml_tensor * PackedI8ChannelMatrix::quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const {
    return quantize_node(ctx, x, cols_, quantized_row_bytes(cols_), quantize_op, "i8c", weight_name);
}

ggml_tensor * PackedI8ChannelMatrix::apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & e) const {
    return quantized_gemm_node(ctx, xq, *this, configs_, quantized_row_bytes(cols_), e, gemm_op, "i8c", weight_name);
}

size_t channel_activation_row_bytes(int64_t k) { return quantized_row_bytes(k); }

void quantize_channel_activation_row(const float * x, int64_t k, uint8_t * out) {
#ifdef PARAKEET_X86
    quantize_row(x, k, out);
#else
    (void)x, (void)k, (void)out;
#endif
}

}  // namespace parakeet
