// The decoders' int8 row products per instruction set (int8_decoder_vnni.h's Int8Rows): the
// 512-bit VPDPBUSD kernel (int8_decoder_vnni.cpp) and its AVX2 twin (int8_decoder_avx2.cpp), one
// traversal (int8_decoder_rows.inc) built for each. Both compute the same integer dot products and
// scale them with the same fused rounding, so their outputs are equal bit for bit.
#pragma once

#include <cstdint>

namespace parakeet {

/** An Int8Rows matrix as the kernels read it. */
struct Int8RowsView {
    const int8_t * q;        // [rows][stride], zero-padded
    const float * scale;     // [rows]
    const int32_t * offset;  // [rows] −128·Σq
    int stride;
};

/** Quantized input vectors (q + 128 per value, `stride` bytes apart) and their scales. */
struct Int8Vectors {
    const uint8_t * q;
    const float * scale;
};

/** y[o] for rows [r0, r1) of one vector: (b ? b[o] : 0) + W[o]·x, or y[o] += W[o]·x with `accumulate`. */
void int8_rows_vnni_gemv(const Int8RowsView & w, Int8Vectors x, const float * b, float * y, bool accumulate, int r0, int r1);
void int8_rows_avx2_gemv(const Int8RowsView & w, Int8Vectors x, const float * b, float * y, bool accumulate, int r0, int r1);
/** Y[c][o] = b[o] + W[o]·X[c] for rows [r0, r1) of k vectors (Y's row stride `y_stride`). */
void int8_rows_vnni_block(const Int8RowsView & w, Int8Vectors x, int k, const float * b, float * Y, int y_stride, int r0, int r1);
void int8_rows_avx2_block(const Int8RowsView & w, Int8Vectors x, int k, const float * b, float * Y, int y_stride, int r0, int r1);

}  // namespace parakeet
