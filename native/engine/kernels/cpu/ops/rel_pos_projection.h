// linear_pos of NeMo RelPositionMultiHeadAttention on half the work. The positional table holds
// positions T−1 … −(T−1) as interleaved [sin(pos·ω_i), cos(pos·ω_i)] (RelPositionalEncoding), and
// sin is odd, cos even, so with W split into its sin and cos columns
//   W·pe(±p) = W_cos·cos(p·ω) ± W_sin·sin(p·ω)
// and the two products over p = 0 … T−1 (T·D²/2 multiply–adds each) give all 2T−1 rows that the
// full product (2T−1)·D² computes. Exact algebra; the sums are split in two, so the rounding
// differs from the full product's. Used with the engine's F32 kernel (the same weights, split) and
// the per-channel int8 one (each half with its own row scales, so no coarser). Q8_0's 32-column
// blocks hold both kinds of column: q8_0_rel_pos_vnni.h splits inside each block instead.
#pragma once

#include <memory>
#include <vector>

#include "ggml.h"
#include "packed_weights.h"

namespace parakeet {

// RelPosProjection (declared in packed_weights.h, which owns the instances) is implemented in the .cpp.

/** NeMo RelPositionalEncoding's frequencies ω_i = exp(−2i·ln(10000)/D), i < D/2 (both tables use them). */
std::vector<double> position_frequencies(int d_model);

/** The table `halves` reads: T rows of D, row p = [sin(p·ω_i)]_{i<D/2} then [cos(p·ω_i)]_{i<D/2}. */
std::vector<float> relative_position_halves(int frames, int d_model);

/** Columns 0, 2, 4 … (`odd` false) or 1, 3, 5 … of a row-major [rows][cols] matrix. */
std::vector<float> every_other_column(const float * w, int64_t rows, int64_t cols, bool odd);

}  // namespace parakeet
