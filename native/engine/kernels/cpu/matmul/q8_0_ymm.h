// The 256-bit Q8_0 kernels' entry points (q8_0_avx2.cpp, q8_0_avx_vnni.cpp): PackedQ8Matrix's
// layout and activation rows (q8_0_vnni.h) on CPUs without AVX512-VNNI. Each is compiled for its
// own instruction set and called only where int8_kernel_runs_here says that kernel runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ggml.h"
#include "q8_0_vnni.h"

namespace parakeet {

/** The ggml op body of the GEMM node (userdata: PackedOpConfig<PackedQ8Matrix>), per kernel. */
void q8_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void q8_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void q8_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
/** The same, its outputs written as the next matmul's Q8 activation rows (PackedQ8Matrix::apply_quantized_to). */
void q8_avx2_gemm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void q8_avx_vnni_vex_gemm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void q8_avx_vnni_evex_gemm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata);

/** PackedQ8Matrix::multiply (its arguments) per kernel. */
void q8_avx2_multiply(const PackedQ8Matrix & w, const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride, int64_t panel_begin,
                      int64_t panel_end);
void q8_avx_vnni_vex_multiply(const PackedQ8Matrix & w, const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride,
                              int64_t panel_begin, int64_t panel_end);
void q8_avx_vnni_evex_multiply(const PackedQ8Matrix & w, const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride,
                               int64_t panel_begin, int64_t panel_end);

/** quantize_q8_activation_row on AVX2: the bytes the AVX512-VNNI quantizer writes, bit for bit. */
void q8_avx2_quantize_row(const float * x, int64_t k, uint8_t * out);
/** Its block b: the 32 values x[0…31] into the activation row `row` of k values (the block's bytes, scale, −128·Σq and d·Σq). */
void q8_avx2_quantize_block(const float * x, uint8_t * row, int64_t k, int64_t b);

}  // namespace parakeet
