// F32 × activations with AVX-512 (kernel id f32_avx512; see f32_avx512.h for why): the F32 panels
// through the AVX-512 panel GEMM (panel_tiles_avx512.inc). The matrix itself is panel_matrix.cpp's.
#include "panel_tiles_avx512.inc"

namespace parakeet {

template void f32_avx512_panels<float>(const PackedPanelMatrix<float> &, const ggml_tensor *, ggml_tensor *, int64_t, int64_t, const EpilogueView &);

}  // namespace parakeet
