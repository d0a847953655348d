// F32 weights × activations on AVX-512 (or AVX2: f32_avx2.h), as a ggml custom op.
//
// ggml 0.25's F32 matmul (llamafile tinyBLAS) reaches about half of an AVX-512
// core's FMA rate on the encoder's shapes: it reads the weight rows in place
// and re-reads the activation tiles for every few outputs. With the weights
// repacked at load into panels of 32 output columns, k-major, each step loads
// two weight vectors and broadcasts one activation per frame, so a 14-frame
// tile does 28 FMAs per two loads. Plain F32 arithmetic (one FMA chain per
// output, over k in order): exact F32, only the summation order differs from
// ggml's kernel.
//
// F16 weights (the published files' default type) take the same kernel from
// F16 panels, widened to F32 as they are loaded (one conversion per 14 frames'
// FMAs): exact, since every F16 value is an F32 value, and more exact than
// ggml's F16 path, which rounds the activations to F16 too. ggml 0.25 runs F16
// weights at about half its F32 rate on AVX-512 (no F16 FMA), so an F16 file
// was twice as slow as an F32 one with half the bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "ggml.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

/** The F32/F16 panel kernels: AVX-512 (this file's), or AVX2 + FMA + F16C (f32_avx2.cpp) where the CPU has no AVX-512. */
enum class F32Kernel { Avx512, Avx2 };
/** The better one this CPU (under PARAKEET_CPU_CLASS) runs; f32_kernels_available() says whether either does. */
inline F32Kernel f32_kernel_for_this_cpu() { return cpu_has_avx512f() ? F32Kernel::Avx512 : F32Kernel::Avx2; }
inline bool f32_kernels_available() { return cpu_has_avx512f() || cpu_has_avx2(); }

/**
 * A matrix [rows out][cols in] of `Element` (float, or ggml_fp16_t for F16) repacked in panels of
 * 32 rows, k-major; F32 activations and arithmetic either way.
 */
template <typename Element>
class PackedPanelMatrix final : public PackedMatmul {
public:
    /** Bytes of storage the packed form of a [rows][cols] matrix takes. */
    static size_t storage_bytes(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols) * sizeof(Element); }
    /** `rows` % 32 == 0; `w` row-major [rows][cols]; `storage` (64-byte aligned) holds the packed form and outlives this. */
    PackedPanelMatrix(const Element * w, int64_t rows, int64_t cols, uint8_t * storage, F32Kernel kernel = f32_kernel_for_this_cpu());

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    const Element * panel(int64_t p) const { return data_ + size_t(p) * size_t(cols_) * 32; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override;
    /** f32_avx512, f16_avx512, f32_avx2 or f16_avx2. */
    const char * layout_name() const override;
    F32Kernel kernel() const { return kernel_; }

private:
    int64_t rows_ = 0, cols_ = 0;
    Element * data_ = nullptr;
    F32Kernel kernel_ = F32Kernel::Avx512;
    PackedOpConfigs<PackedPanelMatrix> configs_;
};

using PackedF32Matrix = PackedPanelMatrix<float>;
using PackedF16Matrix = PackedPanelMatrix<ggml_fp16_t>;

/**
 * Output panels [p0, p1) of W·x into dst (x = dst->src[0] [cols, frames] F32) with the epilogue `ep`, on
 * AVX-512: panel_tiles_avx512.inc, instantiated by f32_avx512.cpp (float) and f16_avx512.cpp (F16).
 */
template <typename Element>
void f32_avx512_panels(const PackedPanelMatrix<Element> & w, const ggml_tensor * x, ggml_tensor * dst, int64_t p0, int64_t p1,
                       const EpilogueView & ep);
/** Rows [0, n) of an F16 panel block as F32 into `out` (n·32 floats; f16_avx512.cpp). */
void widen_f16_block(const ggml_fp16_t * block, int64_t n, float * out);

}  // namespace parakeet
