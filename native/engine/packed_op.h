// Shared by the packed matmul kernels: the per-node configuration a ggml custom op reads through
// its userdata pointer (which must outlive every graph), and where the epilogue's tensors sit among
// the node's sources.
#pragma once

#include <deque>
#include <mutex>

#include "ggml.h"
#include "packed_weights.h"
#include "simd_math.h"

namespace parakeet {

template <typename Matrix>
struct PackedOpConfig {
    const Matrix * matrix;
    EpilogueMode mode;
};

/** One config per distinct epilogue mode of a matrix (a handful), at stable addresses. */
template <typename Matrix>
class PackedOpConfigs {
public:
    const PackedOpConfig<Matrix> * get(const Matrix * m, const EpilogueMode & mode) const {
        std::lock_guard<std::mutex> guard(lock_);
        for (const auto & c : configs_) {
            if (c.mode.silu == mode.silu && c.mode.residual == mode.residual && c.mode.scale == mode.scale) return &c;
        }
        configs_.push_back({m, mode});
        return &configs_.back();
    }

private:
    mutable std::mutex lock_;
    mutable std::deque<PackedOpConfig<Matrix>> configs_;
};

/** Node sources: [input, bias or null, residual or null]. */
inline ggml_tensor * packed_matmul_node(ggml_context * ctx, ggml_tensor * input, int64_t rows, int64_t frames, const Epilogue & e,
                                        ggml_custom_op_t fun, const void * config) {
    GGML_ASSERT(e.bias == nullptr || (e.bias->type == GGML_TYPE_F32 && ggml_is_contiguous(e.bias) && ggml_nelements(e.bias) == rows));
    GGML_ASSERT(e.residual == nullptr || (e.residual->type == GGML_TYPE_F32 && e.residual->ne[0] == rows && e.residual->ne[1] == frames &&
                                          e.residual->nb[0] == sizeof(float)));
    ggml_tensor * args[] = {input, e.bias, e.residual};
    return ggml_custom_4d(ctx, GGML_TYPE_F32, rows, frames, 1, 1, args, 3, fun, GGML_N_TASKS_MAX, const_cast<void *>(config));
}

/** Epilogue pointers for output rows [col, col + 16) of frame t. */
struct EpilogueView {
    const float * bias = nullptr;
    const char * residual = nullptr;
    size_t residual_stride = 0;
    bool silu = false;
    float scale = 1.0f;

    EpilogueView(const ggml_tensor * dst, const EpilogueMode & mode)
        : bias(dst->src[1] != nullptr ? static_cast<const float *>(dst->src[1]->data) : nullptr),
          residual(dst->src[2] != nullptr ? static_cast<const char *>(dst->src[2]->data) : nullptr),
          residual_stride(dst->src[2] != nullptr ? dst->src[2]->nb[1] : 0), silu(mode.silu), scale(mode.scale) {}
    const float * bias_at(int64_t col) const { return bias != nullptr ? bias + col : nullptr; }
    const float * residual_at(int64_t t, int64_t col) const {
        return residual != nullptr ? reinterpret_cast<const float *>(residual + size_t(t) * residual_stride) + col : nullptr;
    }
};

#ifdef PARAKEET_X86
/** The epilogue on an MR × 32 register tile: frames t0 … t0+MR−1, outputs col0 … col0+31. */
template <int MR>
PARAKEET_AVX512 inline void finish_tile(__m512 (&acc)[MR][2], const EpilogueView & ep, int64_t t0, int64_t col0) {
    for (int r = 0; r < MR; ++r) {
        for (int h = 0; h < 2; ++h) {
            acc[r][h] = finish_outputs(acc[r][h], ep.bias_at(col0 + 16 * h), ep.silu, ep.residual_at(t0 + r, col0 + 16 * h), ep.scale);
        }
    }
}
#endif

}  // namespace parakeet
