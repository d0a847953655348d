// The decoders' int8 row products on AVX2 (op kernel int8_decoder_avx2): Int8Rows (int8_decoder_vnni.h)
// on CPUs without AVX512-VNNI, AVX-VNNI ones included (AMD Zen 2/3, Intel Core 12th–14th gen). The
// traversal is int8_decoder_rows.inc's; its AVX2 dot (VPMADDUBSW on sign-moved operands, VPMADDWD
// by ones) gives the 512-bit kernel's integers, so the outputs are the same.
#include <cmath>
#include <cstring>

#include "int8_decoder_rows.h"
#include "simd_math_avx2.h"

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx2,fma,f16c")
namespace {
#define PARAKEET_I8_ROWS_DOT 0
#include "int8_decoder_rows.inc"
#undef PARAKEET_I8_ROWS_DOT
}  // namespace

void int8_rows_avx2_gemv(const Int8RowsView & w, Int8Vectors x, const float * b, float * y, bool accumulate, int r0, int r1) {
    gemv_rows(w, x, b, y, accumulate, r0, r1);
}
void int8_rows_avx2_block(const Int8RowsView & w, Int8Vectors x, int k, const float * b, float * Y, int y_stride, int r0, int r1) {
    block_rows(w, x, k, b, Y, y_stride, r0, r1);
}
PARAKEET_TARGET_END

#else  // not x86: Int8Rows::supported() is false, so these are never called

void int8_rows_avx2_gemv(const Int8RowsView &, Int8Vectors, const float *, float *, bool, int, int) {}
void int8_rows_avx2_block(const Int8RowsView &, Int8Vectors, int, const float *, float *, int, int, int) {}

#endif

}  // namespace parakeet
