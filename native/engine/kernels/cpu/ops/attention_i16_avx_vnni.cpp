// The 14-bit attention with 256-bit VPDPWSSD (op id attention_i16_avx_vnni): attention_i16_ymm.inc for
// CPUs with AVX-VNNI and no AVX512-VNNI (Intel Core 12th–14th gen and Core Ultra). Built twice, as
// the AVX-VNNI matmuls are (i16_avx_vnni.cpp): VEX-encoded for AVX-VNNI, and EVEX-encoded for
// AVX512-VL + VNNI (attention_i16_avx_vnni_evex), so that an AVX512-VNNI machine without AVX-VNNI
// (Zen 4, Ice Lake) runs and tests this op under PARAKEET_CPU_CLASS=avx_vnni.
#include "attention_i16_ymm.h"

#include "attention_i16_blocks.h"
#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

namespace vex {
using namespace attention_i16;
PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avxvnni")
namespace {
#define PARAKEET_ATTENTION_I16_DOT 1
#include "attention_i16_ymm.inc"
#undef PARAKEET_ATTENTION_I16_DOT
}  // namespace
PARAKEET_TARGET_END
}  // namespace vex

namespace evex {
using namespace attention_i16;
PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avx512vl,avx512vnni")
namespace {
#define PARAKEET_ATTENTION_I16_DOT 2
#include "attention_i16_ymm.inc"
#undef PARAKEET_ATTENTION_I16_DOT
}  // namespace
PARAKEET_TARGET_END
}  // namespace evex

void attention_i16_avx_vnni_vex_op(ggml_tensor * dst, int ith, int nth, void *) { attention_i16::run_blocks<vex::Ymm>(dst, ith, nth); }
void attention_i16_avx_vnni_evex_op(ggml_tensor * dst, int ith, int nth, void *) { attention_i16::run_blocks<evex::Ymm>(dst, ith, nth); }

#else  // not x86: never called (choose_op_kernel finds no row of this class)

void attention_i16_avx_vnni_vex_op(ggml_tensor *, int, int, void *) {}
void attention_i16_avx_vnni_evex_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace parakeet
