// F32 × activations on AVX2 (kernel id f32_avx2; see f32_avx2.h): the F32 panels through the AVX2
// panel GEMM (panel_tiles_avx2.inc). The matrix itself is panel_matrix.cpp's.
#include "panel_tiles_avx2.inc"

namespace parakeet {

template void f32_avx2_panels<float>(const PackedPanelMatrix<float> &, const ggml_tensor *, ggml_tensor *, int64_t, int64_t, const EpilogueView &);

}  // namespace parakeet
