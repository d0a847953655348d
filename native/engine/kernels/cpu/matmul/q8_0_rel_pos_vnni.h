// linear_pos of a Q8_0 weight on half the multiplies, with the Q8_0 kernel's numerics
// (rel_pos_projection.h has the algebra: W·pe(±p) = W_cos·cos(p·ω) ± W_sin·sin(p·ω)).
//
// The F32 and int8 kernels split W into its sin and cos columns; a Q8_0 block holds 16 of each
// (the table interleaves them) under one scale, so here the split happens inside the block: each
// block's 32 inputs are packed sin columns first, cos columns second (the same Q8_0 values and
// scale, permuted), and the table's rows for positions p ≥ 0 in the same order. A row's block
// quantizes to exactly what the full table's row for +p or −p gives (the same 32 magnitudes), so
// per block the kernel forms E = Σ over the sin inputs and O = Σ over the cos inputs in int32
// (VPDPBUSD over groups 0–3 and 4–7), scales both as the Q8_0 kernel scales a block, and writes
// P(+p) = O + E and P(−p) = O − E: the full product's block sums exactly, in T rows instead of
// 2T − 1, with the float additions of the block sums split in two (within 1e-6 of the full
// product, native/tests/q8_rel_pos_tests.cpp). 0.6B Q8_0 at 10 s, one thread: linear_pos 30.4 →
// 23 ms of the encoder's ≈ 430 (model 207 Xeon); in tiles of 3 positions 2.4× → 1.4× linear_q's time
// (Ice Lake-SP).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ggml.h"
#include "q8_0_vnni.h"

namespace parakeet {

class Q8RelPosProjection {
public:
    static size_t storage_bytes(int64_t rows, int64_t cols) { return PackedQ8Matrix::storage_bytes(rows, cols); }
    /** The kernel runs on this CPU and takes [rows][cols] (rows % 32 == 0, cols % 32 == 0). */
    static bool fits(int64_t rows, int64_t cols);
    /** `q8_0`: the linear_pos weight's block_q8_0 data [rows][cols] (cols = d_model); storage as PackedQ8Matrix's. */
    Q8RelPosProjection(const void * q8_0, int64_t rows, int64_t cols, uint8_t * storage);

    /** The halves table [D, T] (relative_position_halves) as the kernel's rows, one node for every layer. */
    static ggml_tensor * quantize_table(ggml_context * ctx, ggml_tensor * halves);
    /** W·pe as [rows, 2T − 1] (the full table's row order) from quantize_table's rows. */
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * table, const char * weight_name) const;
    size_t bytes() const { return matrix_.bytes(); }

private:
    PackedQ8Matrix matrix_;
};

}  // namespace parakeet
