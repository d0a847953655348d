// Int8 matrix–vector products for the sequential decoders under weightType 'int8' (explicit,
// lossy): the prediction LSTM, its projection and the joint's output layer, weights quantized per
// row (symmetric, as the encoder's int8 kernel does per channel) and each input vector per call.
// The decoder's F32 products read 8–21 MB of weights per emitted token, more than L2 holds, so
// they run at L3 bandwidth; as int8 they are a quarter of those bytes.
//
// Two kernels run them (int8_decoder_rows.h): the 512-bit VPDPBUSD one where the CPU has
// AVX512-VNNI (int8_decoder_vnni), else its AVX2 twin (int8_decoder_avx2, also on AVX-VNNI CPUs),
// with equal outputs.
#pragma once

#include <cstdint>
#include <vector>

#include "int8_kernel.h"

namespace parakeet {

class RowSplit;

/** A caller's room for the quantized input vectors (one per decoder state: the matrices are shared). */
struct Int8Inputs {
    std::vector<uint8_t> q;    // [k][stride]
    std::vector<float> scale;  // [k]
};

/**
 * A [rows][cols] matrix quantized to int8 per row for the decoders' products (rows padded to a
 * multiple of 64 bytes), read-only once built. Only weightType 'int8' uses it: 'auto' keeps the
 * decoder's F32 products, whose decisions the float64 parity checks hold to (README "Weight types").
 */
class Int8Rows {
public:
    Int8Rows() = default;
    /** `w` row-major F32 [rows][cols]; `kernel` (Vnni512 or Avx2, one this CPU runs) runs its products. */
    Int8Rows(const std::vector<float> & w, int rows, int cols, Int8Kernel kernel = kernel_here());
    Int8Rows(Int8Rows &&) noexcept;
    Int8Rows & operator=(Int8Rows &&) noexcept;
    ~Int8Rows();

    bool empty() const { return rows_ == 0; }
    int rows() const { return rows_; }
    int cols() const { return cols_; }

    /** y[o] = (b ? b[o] : 0) + W[o]·x, or y[o] += W[o]·x with `accumulate`; rows shared with `split`'s helper (row_split.h). */
    void gemv(const float * x, const float * b, float * y, bool accumulate, Int8Inputs & room, RowSplit * split = nullptr) const;
    /** Y[c][o] = b[o] + W[o]·X[c] for k vectors (row stride cols). */
    void gemv_block(const float * X, int k, const float * b, float * Y, Int8Inputs & room, RowSplit * split = nullptr) const;

    /** True where the CPU runs these products (AVX2 and up, under PARAKEET_CPU_CLASS); callers keep F32 elsewhere. */
    static bool supported();
    /** The kernel these products run on here: Vnni512 where the class allows AVX512-VNNI, else Avx2. */
    static Int8Kernel kernel_here();

private:
    int rows_ = 0, cols_ = 0, stride_ = 0;
    Int8Kernel kernel_ = Int8Kernel::Avx2;
    std::vector<int8_t> q_;        // [rows][stride], zero-padded
    std::vector<float> scale_;     // [rows] max|w|/127
    std::vector<int32_t> offset_;  // [rows] −128·Σq (the unsigned input's offset, VPDPBUSD)
};

}  // namespace parakeet
