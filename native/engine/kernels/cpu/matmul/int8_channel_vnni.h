// Per-channel int8 weights × per-frame int8 activations on AVX512-VNNI, as ggml custom ops: the
// explicit, lossy `weightType: 'int8'`.
//
// Q8_0 (q8_0_vnni.h) keeps a scale per 32 inputs on both sides, so every 8 VPDPBUSD per
// accumulator need a convert, a multiply and an FMA: about 73 % of the VNNI peak by construction.
// This layout keeps one scale per output channel (max|w_row|/127) and one scale and zero point per
// frame of activations (asymmetric, as DynamicQuantizeLinear), so the integer dot product runs over the whole row in int32 and is scaled
// once at the end. It is the precision class of ONNX Runtime's int8 graphs (quantize_dynamic:
// per-tensor weights, per-tensor dynamic activations) made finer on both sides; it is not Q8_0's
// numerics, so `auto` never picks it (README: "Weight types and their error").
#pragma once

#include <cstdint>

#include "ggml.h"
#include "int8_kernel.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

/** A matrix [rows out][cols in] quantized per row to int8 and packed for the VNNI kernel (layout in the .cpp). */
class PackedI8ChannelMatrix final : public PackedMatmul {
public:
    /** Bytes of storage the packed form of a [rows][cols] matrix takes. */
    static size_t storage_bytes(int64_t rows, int64_t cols);
    /** Can a [rows][cols] matrix take this layout? (rows % 32 == 0, cols % 4 == 0) */
    static bool fits(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % 4 == 0 && cols > 0; }
    /**
     * `weights` F32, row-major [rows][cols] (the file's weights dequantized); `storage` (64-byte
     * aligned, storage_bytes long) holds the packed form and outlives this.
     */
    PackedI8ChannelMatrix(const float * weights, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel = int8_kernel_for_this_cpu());

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override;
    ggml_tensor * quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const override;
    ActivationFormat activation_format() const override { return ActivationFormat::ChannelRows; }
    ggml_tensor * apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & epilogue) const override;
    /** "int8_channel_amx" on AMX tiles, else layout_of(kernel()). */
    const char * layout_name() const override { return amx_ ? "int8_channel_amx" : layout_of(kernel_); }
    /** Per kernel: int8_channel_vnni, int8_channel_avx_vnni, int8_channel_avx2. */
    static const char * layout_of(Int8Kernel kernel);
    Int8Kernel kernel() const { return kernel_; }
    /** Graphs built from now on run it on AMX-INT8 tiles (amx_bf16.h: the same numbers). Set at load, where usable. */
    void run_on_amx() { amx_ = true; }

    /** Per panel of 32 output rows: cols/4 groups × 32 rows × 4 int8 weights. */
    const int8_t * panel_weights(int64_t panel) const { return weights_ + size_t(panel) * size_t(cols_) * 32; }
    /** Per output row: its scale, and −Σ of its int8 weights (times the activations' zero point: the offset). */
    const float * row_scales() const { return scales_; }
    const int32_t * row_offsets() const { return offsets_; }

private:
    int64_t rows_ = 0, cols_ = 0;
    int8_t * weights_ = nullptr;
    float * scales_ = nullptr;
    int32_t * offsets_ = nullptr;
    bool amx_ = false;
    Int8Kernel kernel_ = Int8Kernel::Vnni512;
    PackedOpConfigs<PackedI8ChannelMatrix> configs_;
};

/** One frame's activation row of k inputs as this kernel reads it: bytes, and the row itself (AVX512-VNNI or AVX2 CPUs: the same bytes). */
size_t channel_activation_row_bytes(int64_t k);
void quantize_channel_activation_row(const float * x, int64_t k, uint8_t * out);

}  // namespace parakeet
