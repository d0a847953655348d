#include "rel_pos_projection.h"

#include <cmath>

#include "cpu_ops.h"

namespace parakeet {
namespace {

// P[:, j] = B[:, p] + σ·A[:, p] with pos = T−1−j, p = |pos|, σ = sign(pos) (A = W_sin·sin, B = W_cos·cos).
void combine_op(ggml_tensor * dst, int ith, int nth, void *) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    const int64_t D = dst->ne[0], rows = dst->ne[1], T = (rows + 1) / 2;
    const ThreadShare share = thread_share(rows, ith, nth);
    for (int64_t j = share.begin; j < share.end; ++j) {
        const int64_t pos = T - 1 - j, p = pos < 0 ? -pos : pos;
        const float * ar = reinterpret_cast<const float *>(static_cast<const char *>(a->data) + size_t(p) * a->nb[1]);
        const float * br = reinterpret_cast<const float *>(static_cast<const char *>(b->data) + size_t(p) * b->nb[1]);
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(j) * dst->nb[1]);
        if (pos >= 0) {
            for (int64_t i = 0; i < D; ++i) out[i] = br[i] + ar[i];
        } else {
            for (int64_t i = 0; i < D; ++i) out[i] = br[i] - ar[i];
        }
    }
}

}  // namespace

ggml_tensor * RelPosProjection::apply(ggml_context * ctx, ggml_tensor * halves, const char * weight_name) const {
    const int64_t D = halves->ne[0], T = halves->ne[1];
    GGML_ASSERT(halves->type == GGML_TYPE_F32 && D % 2 == 0 && halves->nb[0] == sizeof(float));
    ggml_tensor * sin_part = ggml_view_2d(ctx, halves, D / 2, T, halves->nb[1], 0);
    ggml_tensor * cos_part = ggml_view_2d(ctx, halves, D / 2, T, halves->nb[1], size_t(D / 2) * sizeof(float));
    ggml_tensor * a = sin_->apply(ctx, sin_part, weight_name, Epilogue{});
    ggml_tensor * b = cos_->apply(ctx, cos_part, weight_name, Epilogue{});
    ggml_tensor * args[] = {a, b};
    ggml_tensor * p = ggml_custom_4d(ctx, GGML_TYPE_F32, a->ne[0], 2 * T - 1, 1, 1, args, 2, combine_op, GGML_N_TASKS_MAX, nullptr);
    ggml_format_name(p, "rel_pos_combine:%s", weight_name);
    return p;
}

std::vector<float> relative_position_halves(int frames, int d_model) {
    // The same sines and cosines as relative_positions (encoder.cpp), for positions 0 … T−1 only.
    const int half = d_model / 2;
    const std::vector<double> div = position_frequencies(d_model);
    std::vector<float> t(size_t(frames) * size_t(d_model));
    for (int p = 0; p < frames; ++p) {
        for (int i = 0; i < half; ++i) {
            t[size_t(p) * size_t(d_model) + size_t(i)] = float(std::sin(double(p) * div[size_t(i)]));
            t[size_t(p) * size_t(d_model) + size_t(half + i)] = float(std::cos(double(p) * div[size_t(i)]));
        }
    }
    return t;
}

std::vector<double> position_frequencies(int d_model) {
    std::vector<double> div(size_t(d_model / 2));
    for (int i = 0; i < d_model / 2; ++i) div[size_t(i)] = std::exp(-(2.0 * i) * std::log(10000.0) / d_model);
    return div;
}

std::vector<float> every_other_column(const float * w, int64_t rows, int64_t cols, bool odd) {
    const int64_t half = cols / 2;
    std::vector<float> out(size_t(rows) * size_t(half));
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < half; ++i) out[size_t(r * half + i)] = w[size_t(r * cols + 2 * i + (odd ? 1 : 0))];
    }
    return out;
}

}  // namespace parakeet
