// Fused LayerNorm (see layer_norm_op.h). Two passes over each frame's D values: the mean, then the
// variance of the centred values (the numerically safe form, as ggml_norm computes it), then one
// pass writing (x − mean)·rstd·γ + β. Frames are split evenly over the threads.
#include "layer_norm_op.h"
#include "amx_bf16.h"
#include "cpu_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "activation_rows.h"
#include "layer_norm_avx2.h"
#include "simd_math.h"

namespace parakeet {
namespace {

constexpr float kEps = 1e-5f;  // torch.nn.LayerNorm default, as NeMo's ConformerLayer uses it

void norm_row_scalar(const float * x, const float * g, const float * b, float * y, int64_t d) {
    double sum = 0.0;
    for (int64_t i = 0; i < d; ++i) sum += x[i];
    const float mean = float(sum / double(d));
    double var = 0.0;
    for (int64_t i = 0; i < d; ++i) var += double(x[i] - mean) * double(x[i] - mean);
    const float rstd = 1.0f / std::sqrt(float(var / double(d)) + kEps);
    for (int64_t i = 0; i < d; ++i) y[i] = (x[i] - mean) * rstd * g[i] + b[i];
}

#if defined(__x86_64__) || defined(_M_X64)
// The sums run in four accumulators where d allows (d % 64 == 0): one chain of d/16 dependent adds
// waited out each add's latency, and the norms took ≈ 2 % of a 0.6B encoder at 10 s (one thread).
PARAKEET_AVX512 void norm_row_avx512(const float * x, const float * g, const float * b, float * y, int64_t d) {
    const int lanes = d % 64 == 0 ? 4 : 1;
    __m512 s[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int64_t i = 0; i < d; i += 16 * lanes)
        for (int k = 0; k < lanes; ++k) s[k] = _mm512_add_ps(s[k], _mm512_loadu_ps(x + i + 16 * k));
    const float mean = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3]))) / float(d);
    const __m512 m = _mm512_set1_ps(mean);
    __m512 v[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int64_t i = 0; i < d; i += 16 * lanes) {
        for (int k = 0; k < lanes; ++k) {
            const __m512 c = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16 * k), m);
            v[k] = _mm512_fmadd_ps(c, c, v[k]);
        }
    }
    const float var = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(v[0], v[1]), _mm512_add_ps(v[2], v[3]))) / float(d);
    const __m512 rstd = _mm512_set1_ps(1.0f / std::sqrt(var + kEps));
    for (int64_t i = 0; i < d; i += 16) {
        const __m512 c = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), m), rstd);
        _mm512_storeu_ps(y + i, _mm512_fmadd_ps(c, _mm512_loadu_ps(g + i), _mm512_loadu_ps(b + i)));
    }
}
#endif

void layer_norm_op(ggml_tensor * dst, int ith, int nth, void *) {
    static const bool avx512 = cpu_has_avx512f();
    static const bool avx2 = cpu_has_avx2();
    const ggml_tensor * x = dst->src[0];
    const float * g = static_cast<const float *>(dst->src[1]->data);
    const float * b = static_cast<const float *>(dst->src[2]->data);
    const int64_t d = x->ne[0], frames = x->ne[1];
    const ThreadShare share = thread_share(frames, ith, nth);
    const int64_t first = share.begin, last = share.end;
    for (int64_t t = first; t < last; ++t) {
        const float * row = reinterpret_cast<const float *>(static_cast<const char *>(x->data) + size_t(t) * x->nb[1]);
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(t) * dst->nb[1]);
#if defined(__x86_64__) || defined(_M_X64)
        if (avx512 && d % 16 == 0) {
            norm_row_avx512(row, g, b, out, d);
            continue;
        }
        if (avx2 && d % 8 == 0) {
            norm_row_avx2(row, g, b, out, d);
            continue;
        }
#endif
        norm_row_scalar(row, g, b, out, d);
    }
}

// The norm of each frame into a per-thread row, then that row quantized as the format says. Only
// graphs whose readers run on a packed int8 kernel build this node (normed_for); the 256-bit Q8_0
// kernels (q8_0_avx2.cpp) run where the CPU has no AVX-512, and their rows take the AVX2 norm.
void layer_norm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    static const bool avx512 = cpu_has_avx512f();
    const auto format = static_cast<ActivationFormat>(reinterpret_cast<intptr_t>(userdata));
    const ggml_tensor * x = dst->src[0];
    const float * g = static_cast<const float *>(dst->src[1]->data);
    const float * b = static_cast<const float *>(dst->src[2]->data);
    const int64_t d = x->ne[0], frames = x->ne[1];
    thread_local std::vector<float> normed;
    normed.resize(size_t(d));
    const ThreadShare share = thread_share(frames, ith, nth);
    for (int64_t t = share.begin; t < share.end; ++t) {
        const float * row = reinterpret_cast<const float *>(static_cast<const char *>(x->data) + size_t(t) * x->nb[1]);
        uint8_t * out = static_cast<uint8_t *>(dst->data) + size_t(t) * dst->nb[1];
#if defined(__x86_64__) || defined(_M_X64)
        if (avx512)
            norm_row_avx512(row, g, b, normed.data(), d);
        else
            norm_row_avx2(row, g, b, normed.data(), d);
#else
        norm_row_scalar(row, g, b, normed.data(), d);
#endif
        if (format == ActivationFormat::Bf16Tiles)
            amx_tile_row(normed.data(), d, static_cast<uint8_t *>(dst->data), t);
        else
            quantize_activation_row(format, normed.data(), d, out);
    }
}

}  // namespace

ggml_tensor * fused_layer_norm_quantized(ggml_context * ctx, ggml_tensor * x, ggml_tensor * gamma, ggml_tensor * beta, ActivationFormat format) {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && x->nb[0] == sizeof(float) && x->ne[2] == 1 && x->ne[3] == 1 && x->ne[0] % 32 == 0);
    GGML_ASSERT(ggml_is_contiguous(gamma) && ggml_is_contiguous(beta) && ggml_nelements(gamma) == x->ne[0]);
    GGML_ASSERT(format == ActivationFormat::Q8Blocks || format == ActivationFormat::ChannelRows || format == ActivationFormat::I16Blocks ||
                format == ActivationFormat::Bf16Tiles);
    ggml_tensor * args[] = {x, gamma, beta};
    if (format == ActivationFormat::Bf16Tiles) {  // AMX tiles: frames padded to whole tiles, a view of the frames (amx_bf16.h)
        ggml_tensor * tiles = ggml_custom_4d(ctx, GGML_TYPE_I8, 2 * x->ne[0], amx_tile_frames(x->ne[1]), 1, 1, args, 3, layer_norm_quantized_op,
                                             GGML_N_TASKS_MAX, reinterpret_cast<void *>(intptr_t(format)));
        ggml_set_name(tiles, "layer_norm_quantized");
        return amx_tiles_view(ctx, tiles, x->ne[1]);
    }
    const int64_t bytes = int64_t(activation_row_bytes(format, x->ne[0]));
    ggml_tensor * y = ggml_custom_4d(ctx, GGML_TYPE_I8, bytes, x->ne[1], 1, 1, args, 3, layer_norm_quantized_op, GGML_N_TASKS_MAX,
                                     reinterpret_cast<void *>(intptr_t(format)));
    ggml_set_name(y, "layer_norm_quantized");
    return y;
}

ggml_tensor * fused_layer_norm(ggml_context * ctx, ggml_tensor * x, ggml_tensor * gamma, ggml_tensor * beta) {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && x->nb[0] == sizeof(float) && x->ne[2] == 1 && x->ne[3] == 1);
    GGML_ASSERT(ggml_is_contiguous(gamma) && ggml_is_contiguous(beta) && ggml_nelements(gamma) == x->ne[0]);
    ggml_tensor * args[] = {x, gamma, beta};
    ggml_tensor * y = ggml_custom_4d(ctx, GGML_TYPE_F32, x->ne[0], x->ne[1], 1, 1, args, 3, layer_norm_op, GGML_N_TASKS_MAX, nullptr);
    ggml_set_name(y, "layer_norm_fused");
    return y;
}

}  // namespace parakeet
