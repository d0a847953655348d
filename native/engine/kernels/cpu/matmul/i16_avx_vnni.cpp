// F32 / F16 weights × 14-bit activations with 256-bit VPDPWSSD (kernel id i16_avx_vnni):
// PackedI16Matrix's layout and activation rows on CPUs with AVX-VNNI and no AVX512-VNNI (Intel Core
// 12th–14th gen and Core Ultra). The same tile (i16_ymm_tile.inc) is built twice: VEX-encoded for
// AVX-VNNI, and EVEX-encoded for AVX512-VL + VNNI so that an AVX512-VNNI machine without AVX-VNNI
// (Zen 4, Ice Lake) runs and tests this kernel under PARAKEET_CPU_CLASS=avx_vnni. The activations
// are quantized by i16_avx2.cpp's quantizer.
#include "i16_ymm.h"

#include <cstring>

#include "block_chunks.h"
#include "i16_vnni.h"
#include "packed_op.h"
#include "simd_math_avx2.h"
#include "weight_prefetch.h"
#include "ymm_tile.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avxvnni")
namespace vex {
namespace {
#define PARAKEET_I16_YMM_DOT 1
#include "i16_ymm_tile.inc"
#undef PARAKEET_I16_YMM_DOT
}  // namespace
}  // namespace vex
PARAKEET_TARGET_END

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avx512vl,avx512vnni")
namespace evex {
namespace {
#define PARAKEET_I16_YMM_DOT 2
#include "i16_ymm_tile.inc"
#undef PARAKEET_I16_YMM_DOT
}  // namespace
}  // namespace evex
PARAKEET_TARGET_END

void i16_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedI16Matrix, vex::gemm_panels>(dst, ith, nth, userdata);
}
void i16_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedI16Matrix, evex::gemm_panels>(dst, ith, nth, userdata);
}

#else  // not x86: never called (int8_kernel_runs_here)

void i16_avx_vnni_vex_gemm_op(ggml_tensor *, int, int, void *) {}
void i16_avx_vnni_evex_gemm_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace parakeet
