// F16 × activations with AVX-512 (kernel id f16_avx512; f32_avx512.h says why): the F16 panels through
// the AVX-512 panel GEMM (panel_tiles_avx512.inc), each k block of a panel widened to F32 once and
// read by every frame tile: exact, since every F16 value is an F32 value.
#include "panel_tiles_avx512.inc"

namespace parakeet {

#ifdef PARAKEET_X86
// Rows [0, n) of an F16 panel block as F32 into `out` (n·32 floats): widened once per block and
// read by every frame tile, rather than converted in each tile (12 % of the FMA ports' time).
PARAKEET_AVX512 void widen_f16_block(const ggml_fp16_t * block, int64_t n, float * out) {
    for (int64_t j = 0; j < n * 32; j += 16)
        _mm512_store_ps(out + j, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(block + j))));
}
#endif

template void f32_avx512_panels<ggml_fp16_t>(const PackedPanelMatrix<ggml_fp16_t> &, const ggml_tensor *, ggml_tensor *, int64_t, int64_t,
                                             const EpilogueView &);

}  // namespace parakeet
