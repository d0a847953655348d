// The 14-bit attention on AVX2 (op id attention_i16_avx2): attention_i16_ymm.inc built for AVX2 + FMA +
// F16C, for CPUs without VNNI of either width (AMD Zen 2/3, Intel before Ice Lake), where the
// quantized files' matmuls run on q8_0_avx2 / int8_channel_avx2. VPMADDWD multiplies 16 int16 pairs
// into int32 lanes, as many multiplies as two 8-lane FMAs but on half the bytes; with the VPADDD
// beside it, whether that beats attention_f32_avx2 is what registry.cpp's row says was measured.
#include "attention_i16_ymm.h"

#include "attention_i16_blocks.h"
#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

namespace avx2 {
using namespace attention_i16;
PARAKEET_TARGET_BEGIN("avx2,fma,f16c")
namespace {
#define PARAKEET_ATTENTION_I16_DOT 0
#include "attention_i16_ymm.inc"
#undef PARAKEET_ATTENTION_I16_DOT
}  // namespace
PARAKEET_TARGET_END
}  // namespace avx2

void attention_i16_avx2_op(ggml_tensor * dst, int ith, int nth, void *) { attention_i16::run_blocks<avx2::Ymm>(dst, ith, nth); }

#else  // not x86: never called (choose_op_kernel finds no row of this class)

void attention_i16_avx2_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace parakeet
