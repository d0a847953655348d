// F32 weights × activations on AVX-512, as a ggml custom op.
//
// ggml 0.25's F32 matmul (llamafile tinyBLAS) reaches about half of an AVX-512
// core's FMA rate on the encoder's shapes: it reads the weight rows in place
// and re-reads the activation tiles for every few outputs. With the weights
// repacked at load into panels of 32 output columns, k-major, each step loads
// two weight vectors and broadcasts one activation per frame, so a 14-frame
// tile does 28 FMAs per two loads. Plain F32 arithmetic (one FMA chain per
// output, over k in order): exact F32, only the summation order differs from
// ggml's kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "ggml.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

/** An F32 matrix [rows out][cols in] repacked in panels of 32 rows, k-major. */
class PackedF32Matrix final : public PackedMatmul {
public:
    /** Bytes of storage the packed form of a [rows][cols] matrix takes. */
    static size_t storage_bytes(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols) * sizeof(float); }
    /** `rows` % 32 == 0; `w` row-major [rows][cols]; `storage` (64-byte aligned) holds the packed form and outlives this. */
    PackedF32Matrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage);

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    const float * panel(int64_t p) const { return data_ + size_t(p) * size_t(cols_) * 32; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override;
    const char * layout_name() const override { return "f32_avx512"; }

private:
    int64_t rows_ = 0, cols_ = 0;
    float * data_ = nullptr;
    PackedOpConfigs<PackedF32Matrix> configs_;
};

}  // namespace parakeet
