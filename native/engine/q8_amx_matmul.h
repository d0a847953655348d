// Q8_0 weights × F32 activations on AMX-BF16 tiles (Sapphire Rapids and later), for a Q8_0 file under
// weightType 'auto'.
//
// Why BF16 and not AMX-INT8: Q8_0 keeps a scale per 32 inputs for every weight row and (in ggml's
// arithmetic) for every activation row, so an int8 tile product must be stored and rescaled after
// every 32 inputs. Measured on a Sapphire Rapids-class core, one 16 × 16 × 32 step: TDPBSSD 16
// cycles + TILESTORED 16 + the rescale (a convert, a multiply and an FMA per 16 outputs) ≈ 24, and
// the tile instructions do not overlap the AVX-512 ones: ≈ 390 G multiply–adds/s at best, 1.4×
// the VNNI kernel. In BF16 the block scales go into the weights (w = d·q rounded to BF16, 8
// significant bits) and the products sum in the tile's F32 accumulators over the whole row:
// one TDPBF16PS per 16 × 16 × 32 and no rescale.
//
// Numerics: each weight d·q rounded to BF16 (relative 2⁻⁹), each activation rounded to BF16
// (relative 2⁻⁹), F32 sums. Against the file's own values in F32 that is ≈ 2.3e-3 relative per
// product on random rows, where ggml's Q8_0 arithmetic (activations quantized to 8 bits per 32)
// is ≈ 5.3e-3: closer to the file than Q8_0's own path (the parity tests hold it to that).
//
// Weights stay in the Q8_0 kernel's packed form (one byte a weight, int8_matmul.cpp): each (span,
// panel) item widens its panel of 32 rows to BF16 tiles in the thread's scratch (64·K bytes, L2),
// which every frame tile of the span reads, so memory holds one copy of the weights as before. The
// span's activations are converted once per thread into tile order ([16 frames][32 inputs] per
// 1 KiB, contiguous: strided rows from L2 ran 30 % slower).
#pragma once

#include <cstdint>

#include "ggml.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

class PackedQ8Matrix;

/**
 * A Q8_0 matrix [rows out][cols in] widened to BF16 tiles at load (2 bytes a weight instead of the
 * Q8_0 kernel's 9 bits): what each item would widen, done once. Taken where the whole model's extra
 * bytes stay within a budget (model_weights.cpp), since it doubles the weights' memory.
 */
class PackedQ8Bf16Matrix final : public PackedMatmul {
public:
    static size_t storage_bytes(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols) * 2; }
    /** rows % 32 == 0, cols % 32 == 0; `q8_0` ggml's block_q8_0 rows; `storage` 64-byte aligned, outlives this. */
    PackedQ8Bf16Matrix(const void * q8_0, int64_t rows, int64_t cols, uint8_t * storage);

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override;
    const char * layout_name() const override { return "q8_0_amx_bf16"; }
    /** Panel p's tiles: per 32-input step, the tile of rows 0–15 then 16–31 (16 lines of 16 × 2 BF16 each). */
    const uint16_t * panel_tiles(int64_t panel) const { return tiles_ + size_t(panel) * size_t(cols_) * 32; }
    /** y = W·x outside a graph, every panel, on the calling thread (tests). */
    void multiply(const float * x, size_t x_stride, int64_t frames, float * y, size_t y_stride) const;

private:
    int64_t rows_ = 0, cols_ = 0;
    uint16_t * tiles_ = nullptr;
    PackedOpConfigs<PackedQ8Bf16Matrix> configs_;
};

/** W·x on AMX-BF16 for x [cols, T] F32: the node "amx_gemm:<weight>". Only where amx_bf16_usable(). */
ggml_tensor * q8_amx_apply(ggml_context * ctx, ggml_tensor * x, const PackedQ8Matrix & w, const PackedOpConfigs<PackedQ8Matrix> & configs,
                           const char * weight_name, const Epilogue & epilogue);

/**
 * The same outside a graph (tests): y rows (y_stride floats apart) = W·x rows (x_stride floats
 * apart) for `frames` frames, every panel, on the calling thread, no epilogue.
 */
void q8_amx_multiply(const PackedQ8Matrix & w, const float * x, size_t x_stride, int64_t frames, float * y, size_t y_stride);

}  // namespace parakeet
