// Per-channel int8 × per-frame int8 with AVX512-VNNI (see int8_channel_vnni.h for why).
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
#include "int8_channel_vnni.h"
#include "amx_bf16.h"
#include "int8_channel_ymm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "cpu_ops.h"
#include "simd_math.h"
#include "block_chunks.h"
#include "weight_prefetch.h"

namespace parakeet {
namespace {

constexpr int kPanel = 32;  // output rows per packed panel (two 16-lane vectors)

size_t quantized_row_bytes(int64_t k) { return size_t(k) + sizeof(float) + sizeof(int32_t); }

}  // namespace

size_t PackedI8ChannelMatrix::storage_bytes(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols) + 2 * size_t(rows) * 4; }

namespace {

// The packing's row quantizer and row maximum without SIMD: the same results as the AVX512 ones below
// (nearbyint rounds to nearest even, as VCVTPS2DQ does), for CPUs without AVX512-VNNI.
int32_t quantize_row_plain(const float * wr, int64_t cols, float inv, int8_t * q) {
    int32_t total = 0;
    for (int64_t k = 0; k < cols; ++k) {
        q[k] = int8_t(std::max(-127.0f, std::min(127.0f, std::nearbyint(wr[k] * inv))));
        total += q[k];
    }
    return total;
}
float row_amax_plain(const float * wr, int64_t cols) {
    float amax = 0.0f;
    for (int64_t k = 0; k < cols; ++k) amax = std::max(amax, std::fabs(wr[k]));
    return amax;
}

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
int32_t quantize_row(const float * wr, int64_t cols, float inv, int8_t * q) { return quantize_row_plain(wr, cols, inv, q); }
float row_amax(const float * wr, int64_t cols) { return row_amax_plain(wr, cols); }
#endif

}  // namespace

PackedI8ChannelMatrix::PackedI8ChannelMatrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel)
        : rows_(rows),
          cols_(cols),
          kernel_(kernel) {
    if (!fits(rows, cols)) throw std::invalid_argument("PackedI8ChannelMatrix: rows must be a multiple of 32 and cols of 4");
    weights_ = reinterpret_cast<int8_t *>(storage);
    scales_ = reinterpret_cast<float *>(storage + size_t(rows) * size_t(cols));
    offsets_ = reinterpret_cast<int32_t *>(storage + size_t(rows) * size_t(cols) + size_t(rows) * 4);
    const int64_t groups = cols / 4;
    std::vector<int8_t> q(static_cast<size_t>(cols));
    const bool avx512 = cpu_has_avx512_vnni();
    for (int64_t r = 0; r < rows; ++r) {
        const float * wr = w + size_t(r) * size_t(cols);
        const float amax = avx512 ? row_amax(wr, cols) : row_amax_plain(wr, cols);
        scales_[r] = amax / 127.0f;
        const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
        offsets_[r] = -(avx512 ? quantize_row(wr, cols, inv, q.data()) : quantize_row_plain(wr, cols, inv, q.data()));
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
PARAKEET_VNNI512 inline void finish_dots(const __m512i (&dot)[MR][2], const uint8_t * xq, size_t x_stride, int64_t k, const PackedI8ChannelMatrix & w,
                                         int64_t panel, float * y, size_t y_stride, const EpilogueView * ep, int64_t t0) {
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
        prefetch_tile_outputs<MR>(y, y_stride);
        const __m512i o0 = _mm512_loadu_si512(w.row_offsets() + panel * kPanel), o1 = _mm512_loadu_si512(w.row_offsets() + panel * kPanel + 16);
#define PARAKEET_INIT(r)                                          \
    if constexpr (r < MR) {                                       \
        const __m512i z = _mm512_set1_epi32(zero_point(x##r, k)); \
        d##r##0 = _mm512_mullo_epi32(z, o0);                      \
        d##r##1 = _mm512_mullo_epi32(z, o1);                      \
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
#define PARAKEET_STEP(r)                                             \
    if constexpr (r < MR) {                                          \
        const __m512i a = _mm512_set1_epi32(load_u32(x##r + g * 4)); \
        d##r##0 = _mm512_dpbusd_epi32(d##r##0, a, w0);               \
        d##r##1 = _mm512_dpbusd_epi32(d##r##1, a, w1);               \
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

// A tile of MR ≤ 3 frames × two panels (64 rows): 12 int32 accumulators, four weight vectors and
// one broadcast per frame and group, so each broadcast feeds four VPDPBUSD instead of two. A
// broadcast from memory costs the VNNI ports about a seventh of a VPDPBUSD: an L1 loop of 6 frames ×
// 32 rows ran 4.75 G VPDPBUSD/s against 5.55 for the instruction alone, one of 3 frames × 64 rows
// 5.3–5.4 (this CPU, Ice Lake-SP). Accumulators as named variables, as in gemm_tile_rows.
#define PARAKEET_ROWS3(X) X(0) X(1) X(2)
template <int MR>
PARAKEET_VNNI512 void gemm_tile_pair(const uint8_t * xq, size_t x_stride, int64_t k, const PackedI8ChannelMatrix & w, int64_t panel, int64_t g0,
                                     int64_t g1, float * y, size_t y_stride, const EpilogueView * ep, int64_t t0, PrefetchShare prefetch0,
                                     PrefetchShare prefetch1) {
    const int8_t * wp = w.panel_weights(panel);
    const int8_t * wq = w.panel_weights(panel + 1);
#define PARAKEET_DECLARE(r)                                             \
    const uint8_t * x##r = xq + size_t(std::min(r, MR - 1)) * x_stride; \
    float * y##r = y + size_t(std::min(r, MR - 1)) * y_stride;          \
    __m512i d##r##0 = _mm512_setzero_si512(), d##r##1 = _mm512_setzero_si512(), d##r##2 = _mm512_setzero_si512(), d##r##3 = _mm512_setzero_si512();
    PARAKEET_ROWS3(PARAKEET_DECLARE)
#undef PARAKEET_DECLARE
    if (g0 == 0) {
        prefetch_tile_outputs<MR, 4>(y, y_stride);
        const int32_t * offsets = w.row_offsets() + panel * kPanel;
        const __m512i o0 = _mm512_loadu_si512(offsets), o1 = _mm512_loadu_si512(offsets + 16), o2 = _mm512_loadu_si512(offsets + 32),
                      o3 = _mm512_loadu_si512(offsets + 48);
#define PARAKEET_INIT(r)                                                          \
    if constexpr (r < MR) {                                                       \
        const __m512i z = _mm512_set1_epi32(zero_point(x##r, k));                 \
        d##r##0 = _mm512_mullo_epi32(z, o0), d##r##1 = _mm512_mullo_epi32(z, o1); \
        d##r##2 = _mm512_mullo_epi32(z, o2), d##r##3 = _mm512_mullo_epi32(z, o3); \
    }
        PARAKEET_ROWS3(PARAKEET_INIT)
#undef PARAKEET_INIT
    } else {
#define PARAKEET_RELOAD(r)                                                                \
    if constexpr (r < MR) {                                                               \
        d##r##0 = _mm512_loadu_si512(y##r), d##r##1 = _mm512_loadu_si512(y##r + 16);      \
        d##r##2 = _mm512_loadu_si512(y##r + 32), d##r##3 = _mm512_loadu_si512(y##r + 48); \
    }
        PARAKEET_ROWS3(PARAKEET_RELOAD)
#undef PARAKEET_RELOAD
    }
    prefetch0.burst();
    prefetch1.burst();
    for (int64_t g = g0; g < g1; ++g) {
        __m512i w0 = _mm512_load_si512(wp + g * 128), w1 = _mm512_load_si512(wp + g * 128 + 64);
        __m512i w2 = _mm512_load_si512(wq + g * 128), w3 = _mm512_load_si512(wq + g * 128 + 64);
        // In registers: built with the target attributes alone, GCC 12 folds each load into every
        // VPDPBUSD that reads it (three loads where one does, indexed: 2× slower).
        pin_register(w0), pin_register(w1), pin_register(w2), pin_register(w3);
#define PARAKEET_STEP(r)                                                                              \
    if constexpr (r < MR) {                                                                           \
        const __m512i a = _mm512_set1_epi32(load_u32(x##r + g * 4));                                  \
        d##r##0 = _mm512_dpbusd_epi32(d##r##0, a, w0), d##r##1 = _mm512_dpbusd_epi32(d##r##1, a, w1); \
        d##r##2 = _mm512_dpbusd_epi32(d##r##2, a, w2), d##r##3 = _mm512_dpbusd_epi32(d##r##3, a, w3); \
    }
        PARAKEET_ROWS3(PARAKEET_STEP)
#undef PARAKEET_STEP
    }
    if (g1 * 4 < k) {
#define PARAKEET_PARK(r)                                                                  \
    if constexpr (r < MR) {                                                               \
        _mm512_storeu_si512(y##r, d##r##0), _mm512_storeu_si512(y##r + 16, d##r##1);      \
        _mm512_storeu_si512(y##r + 32, d##r##2), _mm512_storeu_si512(y##r + 48, d##r##3); \
    }
        PARAKEET_ROWS3(PARAKEET_PARK)
#undef PARAKEET_PARK
        return;
    }
    __m512i first[MR][2], second[MR][2];
#define PARAKEET_GATHER(r) \
    if constexpr (r < MR) first[r][0] = d##r##0, first[r][1] = d##r##1, second[r][0] = d##r##2, second[r][1] = d##r##3;
    PARAKEET_ROWS3(PARAKEET_GATHER)
#undef PARAKEET_GATHER
    finish_dots<MR>(first, xq, x_stride, k, w, panel, y, y_stride, ep, t0);
    finish_dots<MR>(second, xq, x_stride, k, w, panel + 1, y + kPanel, y_stride, ep, t0);
}
#undef PARAKEET_ROWS3

// Frames per main tile: 12 int32 accumulators, two weight vectors, a broadcast.
constexpr int kTileFrames = 6;
// Frames per tile of a panel pair: 12 int32 accumulators, four weight vectors, a broadcast.
constexpr int kPairFrames = 3;
// Groups per k chunk: 128 × 128 B = 16 KiB of a panel stays in L1 while every frame tile passes.
constexpr int64_t kChunkGroups = 128;

/** One GEMM node's operands, as its items read them. */
struct ChannelGemm {
    const PackedI8ChannelMatrix & w;
    const uint8_t * x;
    size_t x_stride;
    float * y;
    size_t y_stride;
    const EpilogueView & view;
};

// The item of panels p, p + 1 over frames [f0, f1), in tiles of 3 frames (gemm_tile_pair). During the
// last chunk the first chunk of the panel pair at `upcoming` (−1: none) is prefetched.
PARAKEET_VNNI512 void pair_item(const ChannelGemm & m, int64_t p, int64_t f0, int64_t f1, int64_t upcoming) {
    const PackedI8ChannelMatrix & w = m.w;
    const int64_t k = w.cols(), groups = k / 4, panels = w.rows() / kPanel;
    float * ycol = m.y + size_t(p) * kPanel;
    const int64_t tiles = (f1 - f0 + kPairFrames - 1) / kPairFrames;
    for (int64_t g0 = 0; g0 < groups; g0 += kChunkGroups) {
        const int64_t g1 = std::min(groups, g0 + kChunkGroups);
        // Each panel's next chunk: 128 B per group.
        const bool last = g1 == groups;
        const int64_t q = last ? upcoming : p, qg = last ? 0 : g1;
        const int64_t next_groups = q < 0 ? 0 : std::min(kChunkGroups, groups - qg);
        const auto next = [&](int64_t panel) {
            const bool real = q >= 0 && panel < panels;
            return PrefetchBlock{reinterpret_cast<const char *>(w.panel_weights(real ? panel : 0) + qg * 128), size_t(real ? next_groups : 0) * 128,
                                 tiles, g1 - g0};
        };
        const PrefetchBlock next0 = next(q), next1 = next(q + 1);
        int64_t t = f0, tile = 0;
        for (; t + kPairFrames <= f1; t += kPairFrames, ++tile) {
            gemm_tile_pair<kPairFrames>(m.x + size_t(t) * m.x_stride, m.x_stride, k, w, p, g0, g1, ycol + size_t(t) * m.y_stride, m.y_stride, &m.view,
                                        t, next0.share(tile), next1.share(tile));
        }
        const uint8_t * xt = m.x + size_t(t) * m.x_stride;
        float * yt = ycol + size_t(t) * m.y_stride;
        switch (f1 - t) {  // the last 1–2 frames
            case 2: gemm_tile_pair<2>(xt, m.x_stride, k, w, p, g0, g1, yt, m.y_stride, &m.view, t, next0.share(tile), next1.share(tile)); break;
            case 1: gemm_tile_pair<1>(xt, m.x_stride, k, w, p, g0, g1, yt, m.y_stride, &m.view, t, next0.share(tile), next1.share(tile)); break;
            default: break;
        }
    }
}

// A lone last panel p (an odd panel count) over frames [f0, f1), in tiles of 6 frames.
PARAKEET_VNNI512 void lone_item(const ChannelGemm & m, int64_t p, int64_t f0, int64_t f1, int64_t upcoming) {
    const PackedI8ChannelMatrix & w = m.w;
    const int64_t k = w.cols(), groups = k / 4;
    float * ycol = m.y + size_t(p) * kPanel;
    for (int64_t g0 = 0; g0 < groups; g0 += kChunkGroups) {
        const int64_t g1 = std::min(groups, g0 + kChunkGroups);
        const bool last = g1 == groups;
        const int64_t q = last ? upcoming : p, qg = last ? 0 : g1;
        const int64_t next_groups = q < 0 ? 0 : std::min(kChunkGroups, groups - qg);
        const PrefetchBlock next{reinterpret_cast<const char *>(w.panel_weights(std::max<int64_t>(q, 0)) + qg * 128), size_t(next_groups) * 128,
                                 (f1 - f0 + kTileFrames - 1) / kTileFrames, g1 - g0};
        int64_t t = f0, tile = 0;
        for (; t + kTileFrames <= f1; t += kTileFrames) {
            gemm_tile_rows<kTileFrames>(m.x + size_t(t) * m.x_stride, m.x_stride, k, w, p, g0, g1, ycol + size_t(t) * m.y_stride, m.y_stride, &m.view,
                                        t, next.share(tile++));
        }
        const uint8_t * xt = m.x + size_t(t) * m.x_stride;
        float * yt = ycol + size_t(t) * m.y_stride;
        const PrefetchShare rest = next.share(tile);
        switch (f1 - t) {  // the last 1–5 frames
            case 5: gemm_tile_rows<5>(xt, m.x_stride, k, w, p, g0, g1, yt, m.y_stride, &m.view, t, rest); break;
            case 4: gemm_tile_rows<4>(xt, m.x_stride, k, w, p, g0, g1, yt, m.y_stride, &m.view, t, rest); break;
            case 3: gemm_tile_rows<3>(xt, m.x_stride, k, w, p, g0, g1, yt, m.y_stride, &m.view, t, rest); break;
            case 2: gemm_tile_rows<2>(xt, m.x_stride, k, w, p, g0, g1, yt, m.y_stride, &m.view, t, rest); break;
            case 1: gemm_tile_rows<1>(xt, m.x_stride, k, w, p, g0, g1, yt, m.y_stride, &m.view, t, rest); break;
            default: break;
        }
    }
}

// The (span, panel pair) items this thread takes: spans of frames as the block-scaled kernels go
// (block_chunks.h, kFrameSpan: a span's activation rows stay in L2 while every panel passes over
// them), the pairs handed out one at a time among the node's threads (PanelItems: on a busy machine
// a thread that loses its core holds up one item, not half the node).
PARAKEET_VNNI512 void gemm_items(const ChannelGemm & m, int64_t frames, PanelItems & items) {
    const int64_t panels = m.w.rows() / kPanel;
    const int64_t spans = std::max<int64_t>(1, frames / kFrameSpan);
    const int64_t span = ((frames + spans - 1) / spans + kTileFrames - 1) / kTileFrames * kTileFrames;
    items.start(spans);
    for (int64_t s = 0, pair = 0; items.next(s, pair);) {
        const int64_t f0 = s * span, f1 = std::min(frames, f0 + span);
        if (f0 >= f1) continue;
        int64_t upcoming = -1;
        if (!items.upcoming_panel(upcoming)) upcoming = -1;
        const int64_t p = 2 * pair, next_panel = upcoming >= 0 ? 2 * upcoming : -1;
        if (p + 1 < panels)
            pair_item(m, p, f0, f1, next_panel);
        else
            lone_item(m, p, f0, f1, next_panel);
    }
    items.finish();
}

#endif  // PARAKEET_X86

void quantize_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    // The same bytes either way (int8_channel_avx2.cpp): the 256-bit kernels' rows may come from here too.
    static const bool avx512 = cpu_has_avx512_vnni();
    if (avx512)
        quantize_rows_op<quantize_row>(dst, ith, nth, userdata);
    else
        quantize_rows_op<channel_avx2_quantize_row>(dst, ith, nth, userdata);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

void gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    (void)ith;
    const auto & config = *static_cast<const PackedOpConfig<PackedI8ChannelMatrix> *>(userdata);
    const PackedI8ChannelMatrix & w = *config.matrix;
    const ggml_tensor * xq = dst->src[0];
    const EpilogueView view(dst, config.mode);
    const ChannelGemm m{w, static_cast<const uint8_t *>(xq->data), xq->nb[1], static_cast<float *>(dst->data), dst->nb[1] / sizeof(float), view};
    PanelItems items = PanelItems::shared(dst, (w.rows() / kPanel + 1) / 2, nth);
    gemm_items(m, xq->ne[1], items);
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

/** The GEMM op body of each kernel. */
ggml_custom_op_t gemm_op_of(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return gemm_op;
        case Int8Kernel::AvxVnniVex: return channel_avx_vnni_vex_gemm_op;
        case Int8Kernel::AvxVnniEvex: return channel_avx_vnni_evex_gemm_op;
        case Int8Kernel::Avx2: return channel_avx2_gemm_op;
    }
    return gemm_op;
}

}  // namespace

const char * PackedI8ChannelMatrix::layout_of(Int8Kernel kernel) {
    switch (kernel) {
        case Int8Kernel::Vnni512: return "int8_channel_vnni";
        case Int8Kernel::AvxVnniVex: return "int8_channel_avx_vnni";
        case Int8Kernel::AvxVnniEvex: return "int8_channel_avx_vnni_evex";
        case Int8Kernel::Avx2: return "int8_channel_avx2";
    }
    return "int8_channel_vnni";
}

// W·x in two custom ops: the activations quantized per frame, then the GEMM. CPU backend only;
// the nodes are named "i8c_quantize:<weight>" and "i8c_gemm:<weight>" (profiles).
ggml_tensor * PackedI8ChannelMatrix::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    return apply_quantized(ctx, quantize(ctx, x, weight_name), weight_name, e);
}

ggml_tensor * PackedI8ChannelMatrix::quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const {
    return quantize_node(ctx, x, cols_, quantized_row_bytes(cols_), quantize_op, "i8c", weight_name);
}

ggml_tensor * PackedI8ChannelMatrix::apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & e) const {
    if (amx_) return channel_amx_apply(ctx, xq, *this, configs_, weight_name, e);
    return quantized_gemm_node(ctx, xq, *this, configs_, quantized_row_bytes(cols_), e, gemm_op_of(kernel_), "i8c", weight_name);
}

size_t channel_activation_row_bytes(int64_t k) { return quantized_row_bytes(k); }

void quantize_channel_activation_row(const float * x, int64_t k, uint8_t * out) {
#ifdef PARAKEET_X86
    static const bool avx512 = cpu_has_avx512_vnni();
    if (avx512)
        quantize_row(x, k, out);
    else
        channel_avx2_quantize_row(x, k, out);
#else
    (void)x, (void)k, (void)out;
#endif
}

}  // namespace parakeet
