// Q4_K × activations with 256-bit VPDPBUSD (kernel id q4_k_avx_vnni): PackedQ4KMatrix's layout on CPUs
// with AVX-VNNI and no AVX512-VNNI (Intel Core 12th–14th gen and Core Ultra). The same tile
// (q4_k_ymm_tile.inc) is built twice: VEX-encoded for AVX-VNNI, and EVEX-encoded for AVX512-VL + VNNI
// (q4_k_avx_vnni_evex) so that an AVX512-VNNI machine without AVX-VNNI (Zen 4, Ice Lake) runs and
// tests this kernel under PARAKEET_CPU_CLASS=avx_vnni.
#include "q4_k_ymm.h"

#include <cstring>

#include "block_chunks.h"
#include "packed_op.h"
#include "q4_k_vnni.h"
#include "simd_math_avx2.h"
#include "weight_prefetch.h"
#include "ymm_tile.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avxvnni")
namespace vex {
namespace {
#define PARAKEET_Q4K_YMM_DOT 1
#include "q4_k_ymm_tile.inc"
#undef PARAKEET_Q4K_YMM_DOT
}  // namespace
}  // namespace vex
PARAKEET_TARGET_END

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avx512vl,avx512vnni")
namespace evex {
namespace {
#define PARAKEET_Q4K_YMM_DOT 2
#include "q4_k_ymm_tile.inc"
#undef PARAKEET_Q4K_YMM_DOT
}  // namespace
}  // namespace evex
PARAKEET_TARGET_END

void q4_k_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedQ4KMatrix, vex::gemm_panels>(dst, ith, nth, userdata);
}
void q4_k_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedQ4KMatrix, evex::gemm_panels>(dst, ith, nth, userdata);
}

#else  // not x86: never called (int8_kernel_runs_here)

void q4_k_avx_vnni_vex_gemm_op(ggml_tensor *, int, int, void *) {}
void q4_k_avx_vnni_evex_gemm_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace parakeet
