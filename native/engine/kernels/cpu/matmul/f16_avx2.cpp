// F16 × activations on AVX2 + F16C (kernel id f16_avx2; see f32_avx2.h): the F16 panels through the
// AVX2 panel GEMM (panel_tiles_avx2.inc), each weight widened to F32 as it is loaded (exact).
#include "panel_tiles_avx2.inc"

namespace parakeet {

template void f32_avx2_panels<ggml_fp16_t>(const PackedPanelMatrix<ggml_fp16_t> &, const ggml_tensor *, ggml_tensor *, int64_t, int64_t,
                                           const EpilogueView &);

}  // namespace parakeet
