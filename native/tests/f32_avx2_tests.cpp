// The AVX2 F32 and F16 panel kernels (f32_avx2, f16_avx2) against the float64 product of the same
// weights, beside the AVX-512 ones: each matrix is packed for one kernel explicitly, so one machine
// runs both whatever PARAKEET_CPU_CLASS the process runs under. Exact F32 arithmetic (F16 weights
// widened exactly): what is left against float64 is F32 rounding over k.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "cpu_ops.h"
#include "epilogue_case.h"
#include "f32_avx512.h"
#include "ggml-cpu.h"
#include "ggml.h"

using namespace parakeet;

namespace {

bool runs_here(F32Kernel k) { return k == F32Kernel::Avx512 ? cpu_has_avx512f() : cpu_has_avx2(); }

/** Runs `Element` panels of `weights` (F32 values, as `Element` holds them) on every kernel this CPU has; counts the cases run. */
template <typename Element>
int check_kernels(const std::vector<Element> & stored, const std::vector<double> & weights, int64_t rows, int64_t cols, std::mt19937 & rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const Ending endings[] = {Ending::None, Ending::BiasSilu, Ending::Residual, Ending::ReluMask};
    int ran = 0;
    for (int64_t frames = 1; frames <= 17; ++frames) {
        const Ending ending = endings[size_t(frames) % std::size(endings)];
        ggml_init_params params = {size_t(32) << 20, nullptr, false};
        ggml_context * ctx = ggml_init(params);
        ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols, frames);
        float * xd = static_cast<float *>(x->data);
        for (int64_t i = 0; i < cols * frames; ++i) xd[i] = normal(rng);
        const EpilogueCase ep(ctx, ending, rows, frames, rng);
        std::vector<double> product(size_t(rows * frames), 0.0);
        for (int64_t t = 0; t < frames; ++t)
            for (int64_t o = 0; o < rows; ++o)
                for (int64_t i = 0; i < cols; ++i) product[size_t(t * rows + o)] += weights[size_t(o * cols + i)] * double(xd[t * cols + i]);
        for (F32Kernel kernel : {F32Kernel::Avx2, F32Kernel::Avx512}) {
            if (!runs_here(kernel)) continue;
            std::vector<uint8_t> storage(64);  // non-empty: GCC 12 -Wnonnull false positive on assign() into an empty vector
            const PackedPanelMatrix<Element> m(stored.data(), rows, cols, aligned64(storage, PackedPanelMatrix<Element>::storage_bytes(rows, cols)),
                                               kernel);
            ggml_tensor * y = m.apply(ctx, x, "w", ep.epilogue);
            const double worst = ep.worst_error(ctx, y, product, frames, 1 + int(frames % 2));
            if (worst > 1e-5) {
                std::cerr << "  " << m.layout_name() << " " << rows << " × " << cols << ", " << frames << " frames, ending " << int(ending)
                          << ": worst error " << worst << "\n";
            }
            CHECK(worst <= 1e-5);
            ++ran;
        }
        ggml_free(ctx);
    }
    return ran;
}

}  // namespace

TEST(f32_avx2_panels_match_float64_for_1_to_17_frames) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 + FMA + F16C on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(19);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    struct Shape {
        int64_t rows, cols;
    };
    int ran = 0;
    for (const Shape shape : {Shape{32, 1}, Shape{64, 37}, Shape{96, 300}}) {
        std::vector<float> w(size_t(shape.rows * shape.cols));
        for (float & v : w) v = normal(rng) / std::sqrt(float(shape.cols));
        ran += check_kernels(w, std::vector<double>(w.begin(), w.end()), shape.rows, shape.cols, rng);
        // F16 weights: the reference takes their exact F32 values.
        std::vector<ggml_fp16_t> h(w.size());
        std::vector<double> widened(w.size());
        for (size_t i = 0; i < w.size(); ++i) h[i] = ggml_fp32_to_fp16(w[i]), widened[i] = double(ggml_fp16_to_fp32(h[i]));
        ran += check_kernels(h, widened, shape.rows, shape.cols, rng);
    }
    CHECK(ran > 0);
}

namespace {

// "Exact" for the panel kernels means one F32 FMA chain per output, over k in order from 0: the
// tiling, k blocks, spans, frame blocks and the packed copy of the activations only change where
// values are read from. So the output equals that chain bit for bit, on shapes that cross every
// blocking boundary of both kernels (several spans of 512 and 1024 inputs, a partial k block, two
// and three frame blocks, a short tile).
void check_panels_equal_in_order_fma_chains(F32Kernel kernel) {
    std::mt19937 rng(23);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int64_t cols = 2100;
    // 2 panels, and 10 (split 10, 5 + 5 and 4 + 4 + 2 between 1, 2 and 3 threads); each graph computed twice,
    // its output filled with NaN before each run (an output no thread writes shows).
    for (const int64_t rows : {int64_t(64), int64_t(320)}) {
        std::vector<float> w(size_t(rows * cols));
        for (float & v : w) v = normal(rng) / std::sqrt(float(cols));
        for (const int64_t frames : {int64_t(5), int64_t(131)}) {
            ggml_init_params params = {size_t(64) << 20, nullptr, false};
            ggml_context * ctx = ggml_init(params);
            ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols, frames);
            float * xd = static_cast<float *>(x->data);
            for (int64_t i = 0; i < cols * frames; ++i) xd[i] = normal(rng);
            std::vector<uint8_t> storage(64);
            const PackedF32Matrix m(w.data(), rows, cols, aligned64(storage, PackedF32Matrix::storage_bytes(rows, cols)), kernel);
            ggml_tensor * y = m.apply(ctx, x, "w", Epilogue{});
            ggml_cgraph * graph = ggml_new_graph(ctx);
            ggml_build_forward_expand(graph, y);
            std::vector<float> chains(size_t(rows * frames));
            for (int64_t t = 0; t < frames; ++t)
                for (int64_t o = 0; o < rows; ++o) {
                    float chain = 0.0f;
                    for (int64_t i = 0; i < cols; ++i) chain = std::fma(xd[t * cols + i], w[size_t(o * cols + i)], chain);
                    chains[size_t(t * rows + o)] = chain;
                }
            for (const int threads : {1, 2, 3})
                for (int run = 0; run < 2; ++run) {
                    std::memset(y->data, 0xff, ggml_nbytes(y));  // NaN: an output no thread wrote shows
                    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
                    const int64_t differing = int64_t(rows * frames) -
                                              std::inner_product(chains.begin(), chains.end(), static_cast<const float *>(y->data), int64_t(0),
                                                                 std::plus<int64_t>(), [](float a, float b) { return int64_t(std::memcmp(&a, &b, sizeof(float)) == 0); });
                    if (differing != 0)
                        std::cerr << "  " << rows << " rows, " << frames << " frames, " << threads << " threads, run " << run << ": " << differing
                                  << " outputs differ from the in-order FMA chain\n";
                    CHECK_EQ(differing, int64_t(0));
                }
            ggml_free(ctx);
        }
    }
}

}  // namespace

TEST(f32_avx512_panels_equal_one_in_order_fma_chain_per_output) {
    if (parakeet_tests::skip_unless(cpu_has_avx512f(), "no AVX-512 on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    check_panels_equal_in_order_fma_chains(F32Kernel::Avx512);
}

TEST(f32_avx2_panels_equal_one_in_order_fma_chain_per_output) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    check_panels_equal_in_order_fma_chains(F32Kernel::Avx2);
}

TEST(f32_kernel_choice_follows_the_cpu) {
    CHECK(f32_kernel_for_this_cpu() == (cpu_has_avx512f() ? F32Kernel::Avx512 : F32Kernel::Avx2));
    CHECK_EQ(f32_kernels_available(), cpu_has_avx512f() || cpu_has_avx2());
}
