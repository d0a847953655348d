// PackedPanelMatrix (f32_avx512.h): the F32 and F16 panels' packing, names and ggml node, shared by
// the four rows that run them (f32_avx512, f16_avx512, f32_avx2, f16_avx2: one file each, under
// matmul/). The node's op runs the matrix's own kernel over this thread's panels.
#include <stdexcept>
#include <type_traits>

#include "cpu_ops.h"
#include "f32_avx2.h"
#include "f32_avx512.h"
#include "packed_op.h"
#include "simd_math.h"

namespace parakeet {

template <typename Element>
PackedPanelMatrix<Element>::PackedPanelMatrix(const Element * w, int64_t rows, int64_t cols, uint8_t * storage, F32Kernel kernel)
        : rows_(rows),
          cols_(cols),
          kernel_(kernel) {
    if (rows % 32 != 0) throw std::invalid_argument("PackedPanelMatrix: rows must be a multiple of 32");
    data_ = reinterpret_cast<Element *>(storage);
    for (int64_t p = 0; p < rows / 32; ++p) {
        Element * dst = data_ + size_t(p) * size_t(cols) * 32;
        const Element * src = w + size_t(p * 32) * size_t(cols);
        // Writes in order (reads from 32 row streams): the destination is fresh memory, whose
        // first touch is the expensive part.
        for (int64_t k = 0; k < cols; ++k)
            for (int64_t r = 0; r < 32; ++r) dst[size_t(k) * 32 + size_t(r)] = src[size_t(r) * size_t(cols) + size_t(k)];
    }
}

template <>
const char * PackedPanelMatrix<float>::layout_name() const {
    return kernel_ == F32Kernel::Avx512 ? "f32_avx512" : "f32_avx2";
}
template <>
const char * PackedPanelMatrix<ggml_fp16_t>::layout_name() const {
    return kernel_ == F32Kernel::Avx512 ? "f16_avx512" : "f16_avx2";
}

namespace {

template <typename Element>
void panel_gemm_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
#ifdef PARAKEET_X86
    const auto & config = *static_cast<const PackedOpConfig<PackedPanelMatrix<Element>> *>(userdata);
    const PackedPanelMatrix<Element> & w = *config.matrix;
    const int64_t n_panels = w.rows() / 32;
    const ThreadShare share = thread_share(n_panels, ith, nth);
    const int64_t p0 = share.begin, p1 = share.end;
    if (w.kernel() == F32Kernel::Avx2)
        f32_avx2_panels(w, dst->src[0], dst, p0, p1, EpilogueView(dst, config.mode));
    else
        f32_avx512_panels(w, dst->src[0], dst, p0, p1, EpilogueView(dst, config.mode));
#else
    (void)dst, (void)ith, (void)nth, (void)userdata;
#endif
}

}  // namespace

template <typename Element>
ggml_tensor * PackedPanelMatrix<Element>::apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & e) const {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && x->ne[0] == cols_ && x->nb[0] == sizeof(float) && x->ne[2] == 1 && x->ne[3] == 1);
    const auto * config = configs_.get(this, EpilogueMode::of(e));
    ggml_tensor * y = packed_matmul_node(ctx, x, rows_, x->ne[1], e, panel_gemm_op<Element>, config);
    ggml_format_name(y, "%s:%s", std::is_same<Element, float>::value ? "f32_gemm" : "f16_gemm", weight_name);
    return y;
}

template class PackedPanelMatrix<float>;
template class PackedPanelMatrix<ggml_fp16_t>;

}  // namespace parakeet
