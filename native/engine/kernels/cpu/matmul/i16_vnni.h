// F32 and F16 weights × activations as 14-bit integers per 32-block on AVX512-VNNI, as ggml
// custom ops.
//
// An F32 matmul on AVX-512 is bound by the FMA ports: 32 multiply-adds per cycle (two 16-lane
// FMAs). VPDPWSSD multiplies 16-bit integers in pairs on the same ports, 64 per cycle. With each
// 32-input block of a weight row and of an activation row held as round(v / d) in ±8191
// (d = max|v| / 8191, one float scale per block), a block's 32 products sum exactly in int32
// (32 · 8191² < 2³¹), and the block sum times d_w·d_x is added in float, as the Q8_0 kernel does
// (q8_0_vnni.h), with 16 VPDPWSSD per scale where it has 8 VPDPBUSD.
//
// Per matmul the rounding is finer than storing the weights in F16: on Gaussian weights and
// activations one product is off by about 1.4e-4 (relative L2) against float64, where F16 weights
// alone give 2.1e-4 and BF16 weights and activations 6e-3. Through a whole encoder it adds about
// what F16 storage does: on the generated models an F32 file so runs 0.5–0.9× as far from its F32
// result as its F16 twin, and an F16 file 1.1–1.4× as far as the file run exactly. So `auto` runs
// an F32 file's matmul weights here (its tolerance for F32 is the F16 twin's distance), but keeps
// an F16 file on its exact F16 kernel (past the 1.25× of a file's own error that `auto` allows
// itself); weightType 'i16' takes F16 weights too, 'f32' keeps the exact F32 kernel (f32_avx512.h).
//
// The same layout and activation rows run on the 256-bit kernels (i16_ymm.h: AVX2's VPMADDWD,
// AVX-VNNI's VPDPWSSD ymm), one per Int8Kernel instruction set, as the Q8_0 layout does.
#pragma once

#include <cstdint>

#include "ggml.h"
#include "int8_kernel.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

/** Its row in ModelInfo.kernels, per kernel (i16_vnni, i16_avx_vnni, i16_avx_vnni_evex, i16_avx2). */
const char * i16_kernel_layout(Int8Kernel k);

/** F32 weights [rows out][cols in] as 14-bit integers per 32-block, repacked for VPDPWSSD (see i16_vnni.cpp). */
class PackedI16Matrix final : public PackedMatmul {
public:
    /** `rows` % 32 == 0 and `cols` % 32 == 0. */
    static bool fits(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % 32 == 0 && cols > 0; }
    /** Bytes of storage the packed form of a [rows][cols] matrix takes: 2 per weight, 4 per row and block. */
    static size_t storage_bytes(int64_t rows, int64_t cols);
    /**
     * `w` row-major [rows][cols] F32, finite; `storage` (64-byte aligned, storage_bytes long) holds the packed form and outlives this;
     * `kernel` runs it (int8_kernel_runs_here(kernel) must hold).
     */
    PackedI16Matrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage, Int8Kernel kernel = int8_kernel_for_this_cpu());

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    int64_t blocks() const { return cols_ / 32; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override;
    ggml_tensor * quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const override;
    ActivationFormat activation_format() const override { return ActivationFormat::I16Blocks; }
    ggml_tensor * apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & epilogue) const override;
    const char * layout_name() const override { return i16_kernel_layout(kernel_); }
    Int8Kernel kernel() const { return kernel_; }

    /** Bytes of one block of a panel: 16 pairs × 32 rows × 2 int16 (2 KiB), then at kScalesAt the 32 rows' float scales. */
    static constexpr size_t kScalesAt = 2048;
    static constexpr size_t kBlockBytes = kScalesAt + 32 * sizeof(float);
    /** Block b of panel p (its weights, then its scales); blocks are kBlockBytes apart. */
    const uint8_t * block_weights(int64_t panel, int64_t block) const {
        return packed_ + (size_t(panel) * size_t(blocks()) + size_t(block)) * kBlockBytes;
    }

private:
    int64_t rows_ = 0, cols_ = 0;
    uint8_t * packed_ = nullptr;
    Int8Kernel kernel_ = Int8Kernel::Vnni512;
    PackedOpConfigs<PackedI16Matrix> configs_;
};

/** The activation row of k inputs (k % 32 == 0) in the I16Blocks format: k int16, then k/32 float scales. */
size_t i16_activation_row_bytes(int64_t k);
/** One such row from F32 (the same bytes on every kernel's CPU: AVX2 and up). */
void quantize_i16_activation_row(const float * x, int64_t k, uint8_t * out);

}  // namespace parakeet
