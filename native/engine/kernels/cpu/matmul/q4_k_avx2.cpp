// Q4_K × activations on AVX2 (kernel id q4_k_avx2): PackedQ4KMatrix's layout on CPUs with AVX2 + FMA +
// F16C and no VNNI of either width (AMD Zen 2/3, Intel before Ice Lake), for the 4-bit files 'auto'
// keeps as stored (over the requantize budget, model_weights.cpp) and weightType q4_k. The 4-bit q
// are VPMADDUBSW's unsigned operand as they stand. The tile itself is q4_k_ymm_tile.inc's.
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

PARAKEET_TARGET_BEGIN("avx2,fma,f16c")
namespace {
#define PARAKEET_Q4K_YMM_DOT 0
#include "q4_k_ymm_tile.inc"
#undef PARAKEET_Q4K_YMM_DOT
}  // namespace
PARAKEET_TARGET_END

void q4_k_avx2_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) { share_panels<PackedQ4KMatrix, gemm_panels>(dst, ith, nth, userdata); }

#else  // not x86: int8_kernel_runs_here is false for every 256-bit kernel, so this is never called

void q4_k_avx2_gemm_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace parakeet
