// The 256-bit per-channel int8 kernels' entry points (int8_channel_avx2.cpp,
// int8_channel_avx_vnni.cpp): PackedI8ChannelMatrix's layout and activation rows
// (int8_channel_vnni.h) on CPUs without AVX512-VNNI. Each is compiled for its own instruction set
// and called only where int8_kernel_runs_here (int8_kernel.h) says that kernel runs.
#pragma once

#include <cstdint>

#include "ggml.h"
#include "int8_channel_vnni.h"

namespace parakeet {

/** The ggml op body of the GEMM node (userdata: PackedOpConfig<PackedI8ChannelMatrix>), per kernel. */
void channel_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void channel_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void channel_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);

/** quantize_channel_activation_row on AVX2: the bytes the AVX512-VNNI quantizer writes, bit for bit. */
void channel_avx2_quantize_row(const float * x, int64_t k, uint8_t * out);

}  // namespace parakeet
