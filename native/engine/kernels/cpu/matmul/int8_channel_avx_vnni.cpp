// Per-channel int8 × per-frame int8 with 256-bit VPDPBUSD (kernel id int8_channel_avx_vnni): the
// layout of int8_channel_vnni.h on CPUs with AVX-VNNI and no AVX512-VNNI. Built twice, as
// q8_0_avx_vnni.cpp is: VEX for AVX-VNNI, EVEX for AVX512-VL + VNNI (PARAKEET_CPU_CLASS=avx_vnni on
// an AVX512-VNNI CPU). The activations are quantized by int8_channel_avx2.cpp's quantizer.
#include "int8_channel_ymm.h"

#include <algorithm>
#include <cstring>

#include "block_chunks.h"
#include "packed_op.h"
#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avxvnni")
namespace vex {
namespace {
#define PARAKEET_I8C_YMM_DOT 1
#include "int8_channel_ymm_tile.inc"
#undef PARAKEET_I8C_YMM_DOT
}  // namespace
}  // namespace vex
PARAKEET_TARGET_END

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avx512vl,avx512vnni")
namespace evex {
namespace {
#define PARAKEET_I8C_YMM_DOT 2
#include "int8_channel_ymm_tile.inc"
#undef PARAKEET_I8C_YMM_DOT
}  // namespace
}  // namespace evex
PARAKEET_TARGET_END

void channel_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedI8ChannelMatrix, vex::channel_gemm>(dst, ith, nth, userdata);
}
void channel_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedI8ChannelMatrix, evex::channel_gemm>(dst, ith, nth, userdata);
}

#else  // not x86: never called (int8_kernel_runs_here)

void channel_avx_vnni_vex_gemm_op(ggml_tensor *, int, int, void *) {}
void channel_avx_vnni_evex_gemm_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace parakeet
