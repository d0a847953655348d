// Q8_0 weights × activations on AVX512-VNNI, as ggml custom ops.
//
// ggml 0.25's CPU kernels for Q8_0 (llamafile tinyBLAS and vec_dot) use 256-bit
// vectors even on AVX-512 CPUs, so a Q8_0 matmul there runs no faster than F32.
// This path keeps ggml's Q8_0 numerics exactly — the file's weights with their
// per-32 block scales, activations quantized per 32-block to int8 with scale
// max|x|/127 as ggml's quantize_row_q8_0 does — and computes the integer dot
// products with 512-bit VPDPBUSD on a packed copy of the weights made at load.
// Only the summation order differs from ggml's own Q8_0 path.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ggml.h"

namespace parakeet {

/** The CPU runs AVX512F/BW/VL and AVX512-VNNI (checked at run time, whatever the build flags). */
bool cpu_has_int8_vnni512();

/** A Q8_0 matrix [rows out][cols in] repacked for the VNNI kernel (see int8_matmul.cpp for the layout). */
class PackedQ8Matrix {
public:
    /** `rows` % 32 == 0 and `cols` % 32 == 0; `q8_0` is ggml's block_q8_0 data, row-major. */
    PackedQ8Matrix(const void * q8_0, int64_t rows, int64_t cols);

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    size_t bytes() const { return weights_.size() + scales_.size() * sizeof(float) + offsets_.size() * sizeof(int32_t); }

    // Per panel of 32 output rows, per block of 32 inputs: 8 groups × 32 rows × 4 int8 weights.
    const int8_t * panel_weights(int64_t panel) const { return weights_.data() + size_t(panel) * size_t(blocks()) * 1024; }
    // Per panel, per block: 32 float scales (the rows' block scales) and 32 int32 of 128·Σ weights.
    const float * panel_scales(int64_t panel) const { return scales_.data() + size_t(panel) * size_t(blocks()) * 32; }
    const int32_t * panel_offsets(int64_t panel) const { return offsets_.data() + size_t(panel) * size_t(blocks()) * 32; }
    int64_t blocks() const { return cols_ / 32; }

private:
    int64_t rows_ = 0, cols_ = 0;
    std::vector<int8_t> weights_;
    std::vector<float> scales_;
    std::vector<int32_t> offsets_;
};

/** The packed twins of a model's Q8_0 matmul weights, keyed by the ggml weight tensor they replace. */
class Int8Weights {
public:
    void add(const ggml_tensor * weight, std::unique_ptr<PackedQ8Matrix> packed) { table_[weight] = std::move(packed); }
    const PackedQ8Matrix * find(const ggml_tensor * weight) const {
        auto it = table_.find(weight);
        return it == table_.end() ? nullptr : it->second.get();
    }
    size_t count() const { return table_.size(); }
    size_t bytes() const {
        size_t n = 0;
        for (const auto & e : table_) n += e.second->bytes();
        return n;
    }

private:
    std::unordered_map<const ggml_tensor *, std::unique_ptr<PackedQ8Matrix>> table_;
};

/**
 * W·x for a packed Q8_0 weight: x [cols, T] F32 (rows contiguous) → [rows, T] F32.
 * Two custom ops: the activations quantized per 32-block, then the VNNI GEMM.
 * CPU backend only. The nodes are named "vnni_quantize:<weight>" and "vnni_gemm:<weight>" (profiles).
 */
ggml_tensor * int8_mul_mat(ggml_context * ctx, const PackedQ8Matrix & w, ggml_tensor * x, const char * weight_name);

}  // namespace parakeet
