// F32 and F16 panels (f32_avx512.h's layout) on AVX2 + FMA + F16C (kernel ids f32_avx2, f16_avx2: f32_avx2.cpp,
// f16_avx2.cpp, over panel_tiles_avx2.inc):
// the exact F32 product on CPUs without AVX-512. Call only where cpu_has_avx2() (cpu_features.h).
#pragma once

#include <cstdint>

#include "f32_avx512.h"

namespace parakeet {

/** Output panels [p0, p1) of W·x into dst (x = dst->src[0] [cols, frames] F32), with the epilogue `ep`. */
template <typename Element>
void f32_avx2_panels(const PackedPanelMatrix<Element> & w, const ggml_tensor * x, ggml_tensor * dst, int64_t p0, int64_t p1, const EpilogueView & ep);

}  // namespace parakeet
