// Fused GLU → mask → depthwise conv → SiLU (see conv_module_op.h).
//
// Each thread takes a stretch of frames and walks it in chunks: the chunk's GLU
// values (with K−1 frames of halo) go to a small per-thread buffer, then every
// output frame is K multiply-adds over contiguous channel vectors. σ and SiLU
// use expf as ggml's scalar sigmoid does (the AVX-512 path a polynomial expf
// within 2 ulp), so results match the unfused graph to float rounding.
#include "conv_module_op.h"
#include "amx_bf16.h"
#include "conv_module_avx2.h"
#include "cpu_ops.h"
#include "simd_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

namespace parakeet {
namespace {

struct ConvParams {
    int kernel;
    int left;
    bool silu;
};

constexpr int kChunk = 32;  // output frames per chunk

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

void glu_scalar(const float * first, const float * second, float mask, float * out, int64_t d) {
    for (int64_t c = 0; c < d; ++c) out[c] = first[c] * sigmoid(second[c]) * mask;
}

void conv_scalar(const float * g, int64_t d, int kernel, const float * w, const float * b, bool silu, float * out) {
    for (int64_t c = 0; c < d; ++c) {
        float s = b[c];
        for (int k = 0; k < kernel; ++k) s += w[size_t(k) * size_t(d) + size_t(c)] * g[size_t(k) * size_t(d) + size_t(c)];
        out[c] = silu ? s * sigmoid(s) : s;
    }
}

#ifdef PARAKEET_X86
PARAKEET_AVX512 void glu_avx512(const float * first, const float * second, float mask, float * out, int64_t d) {
    const __m512 m = _mm512_set1_ps(mask);
    int64_t c = 0;
    for (; c + 16 <= d; c += 16) {
        const __m512 a = _mm512_loadu_ps(first + c), g = _mm512_loadu_ps(second + c);
        _mm512_storeu_ps(out + c, _mm512_mul_ps(_mm512_mul_ps(a, sigmoid512(g)), m));
    }
    glu_scalar(first + c, second + c, mask, out + c, d - c);
}

PARAKEET_AVX512 void conv_avx512(const float * g, int64_t d, int kernel, const float * w, const float * b, bool silu, float * out) {
    int64_t c = 0;
    for (; c + 16 <= d; c += 16) {
        __m512 s = _mm512_loadu_ps(b + c);
        for (int k = 0; k < kernel; ++k) {
            s = _mm512_fmadd_ps(_mm512_loadu_ps(w + size_t(k) * size_t(d) + size_t(c)), _mm512_loadu_ps(g + size_t(k) * size_t(d) + size_t(c)), s);
        }
        if (silu) s = _mm512_mul_ps(s, sigmoid512(s));
        _mm512_storeu_ps(out + c, s);
    }
    if (c < d) {
        // Tail channels: the scalar loop over the same strided buffer.
        for (int64_t cc = c; cc < d; ++cc) {
            float s = b[cc];
            for (int k = 0; k < kernel; ++k) s += w[size_t(k) * size_t(d) + size_t(cc)] * g[size_t(k) * size_t(d) + size_t(cc)];
            out[cc] = silu ? s * sigmoid(s) : s;
        }
    }
}
#endif

void conv_module_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    static const bool avx512 = cpu_has_avx512f();
    static const bool avx2 = cpu_has_avx2();
    const ConvParams & p = *static_cast<const ConvParams *>(userdata);
    const ggml_tensor * a = dst->src[0];
    const float * w = static_cast<const float *>(dst->src[1]->data);
    const float * b = static_cast<const float *>(dst->src[2]->data);
    const ggml_tensor * mask_t = dst->src[3];
    const bool tiles = dst->type == GGML_TYPE_I8;  // the next matmul's BF16 tiles (fused_conv_module's tiles_out)
    const int64_t d = a->ne[0] / 2, frames = a->ne[1];
    const int kernel = p.kernel, left = p.left;
    const ThreadShare share = thread_share(frames, ith, nth);
    const int64_t t_begin = share.begin, t_end = share.end;

    thread_local std::vector<float> g;  // GLU values of a chunk plus its halo, [frames][D]
    const size_t need = size_t(kChunk + kernel - 1) * size_t(d);
    if (g.size() < need) g.resize(need);
    thread_local std::vector<float> row;  // an output row on its way into the tiles
    if (tiles) {
        row.assign(size_t(d), 0.0f);
        // The last tile's rows past the frames are read by the matmul: zero (this thread's share of them).
        for (int64_t t = frames + ith; t < dst->ne[1]; t += nth) amx_tile_row(row.data(), d, static_cast<uint8_t *>(dst->data), t);
    }

    for (int64_t t0 = t_begin; t0 < t_end; t0 += kChunk) {
        const int64_t t1 = std::min<int64_t>(t_end, t0 + kChunk);
        const int64_t g_first = t0 - left, g_count = (t1 - t0) + kernel - 1;
        for (int64_t i = 0; i < g_count; ++i) {
            const int64_t t = g_first + i;
            float * out = g.data() + size_t(i) * size_t(d);
            if (t < 0 || t >= frames) {
                std::memset(out, 0, size_t(d) * sizeof(float));
                continue;
            }
            const float * row = reinterpret_cast<const float *>(static_cast<const char *>(a->data) + size_t(t) * a->nb[1]);
            const float mask = mask_t != nullptr ? static_cast<const float *>(mask_t->data)[t] : 1.0f;
#ifdef PARAKEET_X86
            if (avx512) {
                glu_avx512(row, row + d, mask, out, d);
                continue;
            }
            if (avx2) {
                glu_row_avx2(row, row + d, mask, out, d);
                continue;
            }
#endif
            glu_scalar(row, row + d, mask, out, d);
        }
        for (int64_t t = t0; t < t1; ++t) {
            float * out = tiles ? row.data() : reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(t) * dst->nb[1]);
            const float * window = g.data() + size_t(t - t0) * size_t(d);
#ifdef PARAKEET_X86
            if (avx512)
                conv_avx512(window, d, kernel, w, b, p.silu, out);
            else if (avx2)
                depthwise_row_avx2(window, d, kernel, w, b, p.silu, out);
            else
                conv_scalar(window, d, kernel, w, b, p.silu, out);
#else
            conv_scalar(window, d, kernel, w, b, p.silu, out);
#endif
            if (tiles) amx_tile_row(out, d, static_cast<uint8_t *>(dst->data), t);
        }
    }
}

// One parameter block per distinct (kernel, left, silu): custom ops take a pointer that must
// outlive the graph, and models have one or two of them.
const ConvParams * params_for(int kernel, int left, bool silu) {
    static std::vector<ConvParams *> all;  // never freed: a handful of bytes for the process
    static std::mutex lock;
    std::lock_guard<std::mutex> guard(lock);
    for (const ConvParams * p : all) {
        if (p->kernel == kernel && p->left == left && p->silu == silu) return p;
    }
    all.push_back(new ConvParams{kernel, left, silu});
    return all.back();
}

}  // namespace

ggml_tensor * fused_conv_module(ggml_context * ctx, ggml_tensor * a, ggml_tensor * dw_w, ggml_tensor * dw_b, ggml_tensor * frame_mask, int kernel,
                                int left, bool apply_silu, bool tiles_out) {
    GGML_ASSERT(a->type == GGML_TYPE_F32 && a->nb[0] == sizeof(float) && a->ne[0] % 2 == 0 && a->ne[2] == 1);
    GGML_ASSERT(dw_w->type == GGML_TYPE_F32 && ggml_is_contiguous(dw_w) && dw_b->type == GGML_TYPE_F32);
    const int64_t d = a->ne[0] / 2;
    GGML_ASSERT(!tiles_out || d % 32 == 0);
    ggml_tensor * args[] = {a, dw_w, dw_b, frame_mask};
    void * params = const_cast<ConvParams *>(params_for(kernel, left, apply_silu));
    ggml_tensor * y = tiles_out ? ggml_custom_4d(ctx, GGML_TYPE_I8, 2 * d, amx_tile_frames(a->ne[1]), 1, 1, args, frame_mask != nullptr ? 4 : 3,
                                                 conv_module_op, GGML_N_TASKS_MAX, params)
                                : ggml_custom_4d(ctx, GGML_TYPE_F32, d, a->ne[1], 1, 1, args, frame_mask != nullptr ? 4 : 3, conv_module_op,
                                                 GGML_N_TASKS_MAX, params);
    ggml_set_name(y, "conv_module_fused");
    return tiles_out ? amx_tiles_view(ctx, y, a->ne[1]) : y;
}

}  // namespace parakeet
