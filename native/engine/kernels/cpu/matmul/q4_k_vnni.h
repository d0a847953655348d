// Q4_K weights × activations on AVX512-VNNI (and, on the same packed layout, the 256-bit kernels of
// q4_k_ymm.h), as ggml custom ops.
//
// ggml 0.25 runs Q4_K matmuls at about a third of the engine's Q8_0 VNNI kernel
// here, and requantizing them to Q8_0 costs memory a user picked a 4-bit file to
// save (model_weights.cpp requantizes only within a small budget: the 110M
// files). This kernel runs the file's own Q4_K values: each 32-weight sub-block
// is w = D·q − M with q in 0…15, D = d·scale and M = dmin·min (ggml's
// dequantize_row_q4_K), so against activations quantized per 32-block as the
// Q8_0 kernel has them (x = dx·qx, q8_0_vnni.h)
//     Σ w·x = dx·D·Σ q·qx − M·(dx·Σ qx),
// the integer sum on VPDPBUSD (the 4-bit q are its unsigned operand as they
// stand) and the second term from the activation row's dx·Σ qx. The activations
// are finer than ggml's own Q4_K path (per 32 rather than per 256 inputs), so
// its error against F32 is at most ggml's.
#pragma once

#include <cstdint>

#include "ggml.h"
#include "int8_kernel.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

/** Its row in ModelInfo.kernels, per kernel (q4_k_vnni, q4_k_avx_vnni[_evex], q4_k_avx2). */
const char * q4_k_kernel_layout(Int8Kernel k);

/** A Q4_K matrix [rows out][cols in] repacked for the VNNI kernel (see q4_k_vnni.cpp for the layout). */
class PackedQ4KMatrix final : public PackedMatmul {
public:
    /** `rows` % 32 == 0 and `cols` % 256 == 0 (whole super-blocks). */
    static bool fits(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % 256 == 0; }
    /** Bytes of storage the packed form of a [rows][cols] matrix takes (6 bits per weight). */
    static size_t storage_bytes(int64_t rows, int64_t cols);
    /**
     * `q4_k` is ggml's block_q4_K data, row-major; `storage` (64-byte aligned) holds the packed form and outlives this;
     * `kernel`: the instruction set its GEMM runs on (one packed layout; the 256-bit ones in q4_k_ymm.h).
     */
    PackedQ4KMatrix(const void * q4_k, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel = Int8Kernel::Vnni512);

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    int64_t blocks() const { return cols_ / 32; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override;
    ggml_tensor * quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const override;
    ActivationFormat activation_format() const override { return ActivationFormat::Q8Blocks; }
    ggml_tensor * apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & epilogue) const override;
    const char * layout_name() const override { return q4_k_kernel_layout(kernel_); }
    Int8Kernel kernel() const { return kernel_; }

    // Per panel of 32 output rows, per block of 32 inputs: 8 groups × 64 bytes, byte 4r + j of group g
    // holding rows r (low nibble) and r + 16 (high nibble) at input 4g + j.
    const uint8_t * panel_quants(int64_t panel) const { return quants_ + size_t(panel) * size_t(blocks()) * 512; }
    // Per panel, per block: the 32 rows' D = d·scale, then their M = dmin·min (64 floats).
    const float * panel_scales(int64_t panel) const { return scales_ + size_t(panel) * size_t(blocks()) * 64; }

private:
    int64_t rows_ = 0, cols_ = 0;
    uint8_t * quants_ = nullptr;
    float * scales_ = nullptr;
    Int8Kernel kernel_ = Int8Kernel::Vnni512;
    PackedOpConfigs<PackedQ4KMatrix> configs_;
};

}  // namespace parakeet
