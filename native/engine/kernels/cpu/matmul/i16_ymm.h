// The 256-bit 14-bit kernels' entry points (i16_avx2.cpp, i16_avx_vnni.cpp): PackedI16Matrix's
// layout and activation rows (i16_vnni.h) on CPUs without AVX512-VNNI. Each is compiled for its own
// instruction set and called only where int8_kernel_runs_here says that kernel runs.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace parakeet {

/** The ggml op body of the GEMM node (userdata: PackedOpConfig<PackedI16Matrix>), per kernel. */
void i16_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void i16_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void i16_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);

/** i16_vnni.cpp's block quantizer on AVX2, bit for bit: q[0…31] = round(v / d), returns d = max|v| / 8191. */
float i16_avx2_quantize_block(const float * v, int16_t * q);
/** quantize_i16_activation_row on AVX2: the bytes the AVX512-VNNI quantizer writes. */
void i16_avx2_quantize_row(const float * x, int64_t k, uint8_t * out);

}  // namespace parakeet
