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
#include <vector>

#include "ggml.h"
#include "int8_kernel.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

/** Its row in ModelInfo.kernels, per kernel (Int8Kernel, int8_kernel.h: one packed layout, four instruction sets). */
const char * q8_kernel_layout(Int8Kernel k);

/** A Q8_0 matrix [rows out][cols in] repacked for the VNNI kernel (see q8_0_vnni.cpp for the layout). */
class PackedQ8Matrix final : public PackedMatmul {
public:
    /** Bytes of storage the packed form of a [rows][cols] matrix takes (a multiple of 64). */
    static size_t storage_bytes(int64_t rows, int64_t cols);
    /**
     * `rows` % 32 == 0 and `cols` % 32 == 0; `q8_0` is ggml's block_q8_0 data, row-major;
     * `storage` (64-byte aligned, storage_bytes long) holds the packed form and outlives this.
     */
    PackedQ8Matrix(const void * q8_0, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel = int8_kernel_for_this_cpu());

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override;
    ggml_tensor * quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const override;
    ActivationFormat activation_format() const override { return ActivationFormat::Q8Blocks; }
    ggml_tensor * apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & epilogue) const override;
    /** Q8Blocks out: each panel's 32 outputs are one block of the next matmul's row, quantized in registers (up to 2048 inputs; every kernel of the layout). */
    ggml_tensor * apply_quantized_to(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & epilogue,
                                     ActivationFormat out) const override;
    const char * layout_name() const override { return q8_kernel_layout(kernel_); }
    Int8Kernel kernel() const { return kernel_; }
    /**
     * y[t][o] = W[o]·x[t] for `frames` activation rows already in the Q8 row format (x_stride bytes
     * apart; q8_activation_row_bytes), output rows of panels [panel_begin, panel_end) (32 each),
     * y rows y_stride floats apart: the kernel outside a graph (the decoders' products).
     */
    void multiply(const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride, int64_t panel_begin, int64_t panel_end) const;

    /** Bytes of one block of a panel: the weights (8 groups × 32 rows × 4), then at kScalesAt the 32 rows' float scales. */
    static constexpr size_t kScalesAt = 1024;
    static constexpr size_t kBlockBytes = kScalesAt + 32 * sizeof(float);
    /** Block b of panel p (its weights, then its scales); blocks are kBlockBytes apart. */
    const uint8_t * block_weights(int64_t panel, int64_t block) const {
        return packed_ + (size_t(panel) * size_t(blocks()) + size_t(block)) * kBlockBytes;
    }
    int64_t blocks() const { return cols_ / 32; }
    /** Whether a weight is −128 (a file may hold it; ggml's quantizer writes [−127, 127]): the AVX2 kernel's dot then keeps its sign on x (q8_0_ymm_tile.inc). */
    bool weights_reach_minus_128() const { return reaches_minus_128_; }

private:
    int64_t rows_ = 0, cols_ = 0;
    bool reaches_minus_128_ = false;
    uint8_t * packed_ = nullptr;
    Int8Kernel kernel_ = Int8Kernel::Vnni512;
    PackedOpConfigs<PackedQ8Matrix> configs_;
};

/** ggml Q8_0's activation row of k inputs (k % 32 == 0): bytes, and the row itself (AVX512-VNNI or AVX2 CPUs only: the same bytes on either). */
size_t q8_activation_row_bytes(int64_t k);
void quantize_q8_activation_row(const float * x, int64_t k, uint8_t * out);
/** F32 weights (n % 32 == 0 for the SIMD path) into ggml's block_q8_0 at `blocks`: a load-time conversion. */
void quantize_q8_0_weights(const float * x, int64_t n, void * blocks);
/** The custom op that writes those rows from F32 rows (dst->src[0]), for the kernels that read them. */
void q8_activation_quantize_op(ggml_tensor * dst, int ith, int nth, void * userdata);

}  // namespace parakeet
