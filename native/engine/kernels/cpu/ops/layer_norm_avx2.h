// LayerNorm of one frame on AVX2 + FMA (kernel id layer_norm_avx2): the fused norm's row for CPUs
// without AVX-512 (layer_norm_op.cpp). Call only where cpu_has_avx2() (cpu_features.h).
#pragma once

#include <cstdint>

namespace parakeet {

/** y = (x − mean)·rstd·γ + β over d values (d % 8 == 0), as torch.nn.LayerNorm with eps 1e-5. */
void norm_row_avx2(const float * x, const float * gamma, const float * beta, float * y, int64_t d);

}  // namespace parakeet
