// Shared by the packed matmul kernels: the per-node configuration a ggml custom op reads through
// its userdata pointer (which must outlive every graph), and where the epilogue's tensors sit among
// the node's sources.
#pragma once

#include <deque>
#include <mutex>

#include "cpu_ops.h"
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
            if (c.mode == mode) return &c;
        }
        configs_.push_back({m, mode});
        return &configs_.back();
    }

private:
    mutable std::mutex lock_;
    mutable std::deque<PackedOpConfig<Matrix>> configs_;
};

/**
 * Node sources: [input, bias or null, residual or null, row mask or null]. The output is [rows, frames]
 * F32, or [out_row_bytes, frames] I8 where the kernel writes its outputs quantized (apply_quantized_to).
 */
inline ggml_tensor * packed_matmul_node(ggml_context * ctx, ggml_tensor * input, int64_t rows, int64_t frames, const Epilogue & e,
                                        ggml_custom_op_t fun, const void * config, size_t out_row_bytes = 0) {
    GGML_ASSERT(e.bias == nullptr || (e.bias->type == GGML_TYPE_F32 && ggml_is_contiguous(e.bias) && ggml_nelements(e.bias) == rows));
    GGML_ASSERT(e.residual == nullptr || (e.residual->type == GGML_TYPE_F32 && e.residual->ne[0] == rows && e.residual->ne[1] == frames &&
                                          e.residual->nb[0] == sizeof(float)));
    GGML_ASSERT(e.row_mask == nullptr || (e.row_mask->type == GGML_TYPE_F32 && ggml_is_contiguous(e.row_mask) && e.residual == nullptr &&
                                          e.mask_group > 0 && ggml_nelements(e.row_mask) * e.mask_group >= frames));
    ggml_tensor * args[] = {input, e.bias, e.residual, e.row_mask};
    return out_row_bytes == 0 ? ggml_custom_4d(ctx, GGML_TYPE_F32, rows, frames, 1, 1, args, 4, fun, GGML_N_TASKS_MAX, const_cast<void *>(config))
                              : ggml_custom_4d(ctx, GGML_TYPE_I8, int64_t(out_row_bytes), frames, 1, 1, args, 4, fun, GGML_N_TASKS_MAX,
                                               const_cast<void *>(config));
}

/**
 * The two nodes of a packed int8 matmul: x quantized into rows of `row_bytes` by `quantize`
 * ("<kernel>_quantize:<weight>"), then the GEMM on them (quantized_gemm_node).
 */
inline ggml_tensor * quantize_node(ggml_context * ctx, ggml_tensor * x, int64_t cols, size_t row_bytes, ggml_custom_op_t quantize,
                                   const char * kernel, const char * weight_name) {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && x->ne[0] == cols && x->nb[0] == sizeof(float) && x->ne[2] == 1 && x->ne[3] == 1);
    ggml_tensor * args[] = {x};
    ggml_tensor * xq = ggml_custom_4d(ctx, GGML_TYPE_I8, int64_t(row_bytes), x->ne[1], 1, 1, args, 1, quantize, GGML_N_TASKS_MAX, nullptr);
    ggml_format_name(xq, "%s_quantize:%s", kernel, weight_name);
    return xq;
}

/**
 * A quantize_node body: this thread's share of the rows of x = dst->src[0], each through
 * QuantizeRow(x row, its length, dst row) — the kernel's own activation format.
 */
template <void (*QuantizeRow)(const float *, int64_t, uint8_t *)>
void quantize_rows_op(ggml_tensor * dst, int ith, int nth, void *) {
    const ggml_tensor * x = dst->src[0];
    const ThreadShare share = thread_share(x->ne[1], ith, nth);
    for (int64_t t = share.begin; t < share.end; ++t) {
        QuantizeRow(reinterpret_cast<const float *>(static_cast<const char *>(x->data) + size_t(t) * x->nb[1]), x->ne[0],
                    static_cast<uint8_t *>(dst->data) + size_t(t) * dst->nb[1]);
    }
}

/** The GEMM node on activations already quantized into rows of `row_bytes` ("<kernel>_gemm:<weight>"). */
template <typename Matrix>
ggml_tensor * quantized_gemm_node(ggml_context * ctx, ggml_tensor * xq, const Matrix & m, const PackedOpConfigs<Matrix> & configs, size_t row_bytes,
                                  const Epilogue & e, ggml_custom_op_t gemm, const char * kernel, const char * weight_name) {
    GGML_ASSERT(xq->type == GGML_TYPE_I8 && xq->ne[0] == int64_t(row_bytes));
    ggml_tensor * y = packed_matmul_node(ctx, xq, m.rows(), xq->ne[1], e, gemm, configs.get(&m, EpilogueMode::of(e)));
    ggml_format_name(y, "%s_gemm:%s", kernel, weight_name);
    return y;
}

/** Epilogue pointers for output rows [col, col + 16) of frame t. */
struct EpilogueView {
    const float * bias = nullptr;
    const char * residual = nullptr;
    size_t residual_stride = 0;
    bool silu = false;
    float scale = 1.0f;
    bool relu = false;
    const float * row_mask = nullptr;
    int64_t mask_group = 1;

    EpilogueView() = default;  // W·x alone
    EpilogueView(const ggml_tensor * dst, const EpilogueMode & mode)
            : bias(dst->src[1] != nullptr ? static_cast<const float *>(dst->src[1]->data) : nullptr),
              residual(dst->src[2] != nullptr ? static_cast<const char *>(dst->src[2]->data) : nullptr),
              residual_stride(dst->src[2] != nullptr ? dst->src[2]->nb[1] : 0),
              silu(mode.silu),
              scale(mode.scale),
              relu(mode.relu),
              row_mask(dst->src[3] != nullptr ? static_cast<const float *>(dst->src[3]->data) : nullptr),
              mask_group(mode.mask_group > 0 ? mode.mask_group : 1) {}
    /** 0 for a frame the mask zeroes, else 1. */
    float frame_keep(int64_t t) const { return row_mask != nullptr ? row_mask[t / mask_group] : 1.0f; }
    const float * bias_at(int64_t col) const { return bias != nullptr ? bias + col : nullptr; }
    const float * residual_at(int64_t t, int64_t col) const {
        return residual != nullptr ? reinterpret_cast<const float *>(residual + size_t(t) * residual_stride) + col : nullptr;
    }
};

/**
 * The ggml op body of a packed GEMM: this thread's share of the matrix's panels of 32 output rows,
 * run by `Panels` (the kernel's traversal: activations node->src[0], output node) with the node's epilogue.
 */
template <typename Matrix, void (*Panels)(const ggml_tensor *, ggml_tensor *, const Matrix &, int64_t, int64_t, const EpilogueView &)>
void split_by_panels(ggml_tensor * dst, int ith, int nth, void * userdata) {
    const auto & config = *static_cast<const PackedOpConfig<Matrix> *>(userdata);
    const ThreadShare share = thread_share(config.matrix->rows() / 32, ith, nth);
    Panels(dst->src[0], dst, *config.matrix, share.begin, share.end, EpilogueView(dst, config.mode));
}

#ifdef PARAKEET_X86
/**
 * Asks for an MR × 32 tile's output lines (two per frame) in the exclusive state, at the tile's start:
 * its stores come a chunk of work later. Stored into cold lines, each waits for its line's read for
 * ownership, and a tile's 2·MR of them stalled it. Zen 4, one thread, Q8_0 at 512 × 512 × 126: 2.46
 * G VPDPBUSD/s into one output buffer, 1.94 into 24 distinct ones (a 24-layer graph's), 2.54 with
 * this; in a graph of 24 GEMMs at 2048 × 512 × 125, 1.78 → 2.22. In the encoder, whose allocator
 * reuses warm buffers, ≈ 2 % (110M Q8_0, 10 s and 60 s). PREFETCHW is a hint (a NOP without it).
 */
inline __attribute__((always_inline)) void prefetch_for_write(const void * line) {
    asm volatile("prefetchw %0" ::"m"(*static_cast<const char *>(line)));
}

template <int MR, int LinesPerFrame = 2>
inline __attribute__((always_inline)) void prefetch_tile_outputs(const float * y, size_t y_stride) {
    for (int r = 0; r < MR; ++r) {
        for (int line = 0; line < LinesPerFrame; ++line) prefetch_for_write(y + size_t(r) * y_stride + 16 * line);
    }
}

/** An MR × 32 tile's accumulators: what y holds (a later chunk of inputs), else zero. */
template <int MR>
PARAKEET_AVX512 inline void start_tile(__m512 (&acc)[MR][2], const float * y, size_t y_stride, bool accumulate) {
    if (!accumulate) prefetch_tile_outputs<MR>(y, y_stride);
    for (int r = 0; r < MR; ++r) {
        acc[r][0] = accumulate ? _mm512_loadu_ps(y + size_t(r) * y_stride) : _mm512_setzero_ps();
        acc[r][1] = accumulate ? _mm512_loadu_ps(y + size_t(r) * y_stride + 16) : _mm512_setzero_ps();
    }
}

template <int MR>
PARAKEET_AVX512 inline void finish_tile(__m512 (&acc)[MR][2], const EpilogueView & ep, int64_t t0, int64_t col0);

/** The tile into y, through the epilogue `ep` (frames from t0, outputs from col0) on the last chunk (else nullptr). */
template <int MR>
PARAKEET_AVX512 inline void end_tile(__m512 (&acc)[MR][2], float * y, size_t y_stride, const EpilogueView * ep, int64_t t0, int64_t col0) {
    if (ep != nullptr) finish_tile<MR>(acc, *ep, t0, col0);
    for (int r = 0; r < MR; ++r) {
        _mm512_storeu_ps(y + size_t(r) * y_stride, acc[r][0]);
        _mm512_storeu_ps(y + size_t(r) * y_stride + 16, acc[r][1]);
    }
}

/** The epilogue on an MR × 32 register tile: frames t0 … t0+MR−1, outputs col0 … col0+31. */
template <int MR>
PARAKEET_AVX512 inline void finish_tile(__m512 (&acc)[MR][2], const EpilogueView & ep, int64_t t0, int64_t col0) {
    for (int r = 0; r < MR; ++r) {
        for (int h = 0; h < 2; ++h) {
            acc[r][h] = finish_outputs(acc[r][h], ep.bias_at(col0 + 16 * h), ep.silu, ep.residual_at(t0 + r, col0 + 16 * h), ep.scale);
            if (ep.relu) acc[r][h] = _mm512_max_ps(acc[r][h], _mm512_setzero_ps());
        }
        if (ep.row_mask != nullptr && ep.frame_keep(t0 + r) == 0.0f) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    }
}
#endif

}  // namespace parakeet
