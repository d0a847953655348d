// Q8_0 × activations with 256-bit VPDPBUSD (kernel id q8_0_avx_vnni): PackedQ8Matrix's layout and
// activation rows on CPUs with AVX-VNNI and no AVX512-VNNI (Intel Core 12th–14th gen and Core
// Ultra; AMD Zen 5 has both and runs the 512-bit kernel). The same tile (q8_0_ymm_tile.inc) is built
// twice: VEX-encoded for AVX-VNNI, and EVEX-encoded for AVX512-VL + VNNI so that an AVX512-VNNI
// machine without AVX-VNNI (Zen 4, Ice Lake) runs and tests this kernel under
// PARAKEET_CPU_CLASS=avx_vnni. The activations are quantized by q8_0_avx2.cpp's quantizer.
#include "q8_0_ymm.h"

#include <cstring>

#include "block_chunks.h"
#include "packed_op.h"
#include "simd_math_avx2.h"
#include "ymm_tile.h"
#include "weight_prefetch.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avxvnni")
namespace vex {
namespace {
#define PARAKEET_Q8_YMM_DOT 1
#include "q8_0_ymm_tile.inc"
#undef PARAKEET_Q8_YMM_DOT
}  // namespace
}  // namespace vex
PARAKEET_TARGET_END

PARAKEET_TARGET_BEGIN("avx2,fma,f16c,avx512vl,avx512vnni")
namespace evex {
namespace {
#define PARAKEET_Q8_YMM_DOT 2
#include "q8_0_ymm_tile.inc"
#undef PARAKEET_Q8_YMM_DOT
}  // namespace
}  // namespace evex
PARAKEET_TARGET_END

void q8_avx_vnni_vex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedQ8Matrix, vex::gemm_panels>(dst, ith, nth, userdata);
}
void q8_avx_vnni_evex_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedQ8Matrix, evex::gemm_panels>(dst, ith, nth, userdata);
}
void q8_avx_vnni_vex_gemm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedQ8Matrix, vex::gemm_panels_quantized, vex::kQuantizedGroup>(dst, ith, nth, userdata);
}
void q8_avx_vnni_evex_gemm_quantized_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    share_panels<PackedQ8Matrix, evex::gemm_panels_quantized, evex::kQuantizedGroup>(dst, ith, nth, userdata);
}

void q8_avx_vnni_vex_multiply(const PackedQ8Matrix & w, const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride,
                              int64_t panel_begin, int64_t panel_end) {
    vex::multiply_panels(w, xq, x_stride, frames, y, y_stride, panel_begin, panel_end);
}
void q8_avx_vnni_evex_multiply(const PackedQ8Matrix & w, const uint8_t * xq, size_t x_stride, int64_t frames, float * y, size_t y_stride,
                               int64_t panel_begin, int64_t panel_end) {
    evex::multiply_panels(w, xq, x_stride, frames, y, y_stride, panel_begin, panel_end);
}

#else  // not x86: never called (int8_kernel_runs_here)

void q8_avx_vnni_vex_gemm_op(ggml_tensor *, int, int, void *) {}
void q8_avx_vnni_evex_gemm_op(ggml_tensor *, int, int, void *) {}
void q8_avx_vnni_vex_gemm_quantized_op(ggml_tensor *, int, int, void *) {}
void q8_avx_vnni_evex_gemm_quantized_op(ggml_tensor *, int, int, void *) {}
void q8_avx_vnni_vex_multiply(const PackedQ8Matrix &, const uint8_t *, size_t, int64_t, float *, size_t, int64_t, int64_t) {}
void q8_avx_vnni_evex_multiply(const PackedQ8Matrix &, const uint8_t *, size_t, int64_t, float *, size_t, int64_t, int64_t) {}

#endif

}  // namespace parakeet
