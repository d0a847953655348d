// The 256-bit Q4_K kernels' entry points (q4_k_avx2.cpp, q4_k_avx_vnni.cpp): PackedQ4KMatrix's layout
// and the Q8_0 kernels' activation rows (q4_k_vnni.h) on CPUs without AVX512-VNNI. Each is compiled
// for its own instruction set and called only where int8_kernel_runs_here says that kernel runs.
#pragma once

#include "ggml.h"

namespace parakeet {

/** The ggml op body of the GEMM node (userdata: PackedOpConfig<PackedQ4KMatrix>), per kernel. */
void q4_k_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void q4_k_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);
void q4_k_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata);

}  // namespace parakeet
