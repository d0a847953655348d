// The Q8_0 kernel writing its outputs straight in the next matmul's activation rows
// (PackedQ8Matrix::apply_quantized_to, the feed-forward's linear1 → linear2) against the two-node
// path it replaces: the F32 outputs through the same epilogue, then quantize(). Byte for byte, on
// every kernel of the layout this CPU runs (q8_0_vnni, q8_0_avx_vnni[_evex], q8_0_avx2).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "cpu_ops.h"
#include "int8_kernel.h"
#include "q8_0_vnni.h"

using namespace parakeet;

namespace {

struct Case {
    int64_t cols, rows, frames;  // inputs, outputs (the next matmul's inputs), T
    int threads;
    bool bias;
};

std::vector<uint8_t> bytes_of(ggml_context * ctx, ggml_tensor * t, int threads) {
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, t);
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
    std::vector<uint8_t> out(size_t(t->ne[0] * t->ne[1]));
    for (int64_t r = 0; r < t->ne[1]; ++r)
        std::memcpy(out.data() + r * t->ne[0], static_cast<const char *>(t->data) + size_t(r) * t->nb[1], size_t(t->ne[0]));
    return out;
}

struct Packed {
    std::vector<uint8_t> storage;
    std::unique_ptr<PackedQ8Matrix> matrix;
};

Packed pack(int64_t rows, int64_t cols, std::mt19937 & rng, Int8Kernel kernel) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> w(size_t(rows * cols));
    for (float & v : w) v = normal(rng) / std::sqrt(float(cols));
    std::vector<uint8_t> q8(size_t(rows * cols / 32) * 34);
    quantize_q8_0_weights(w.data(), int64_t(w.size()), q8.data());
    Packed p;
    uint8_t * aligned = aligned64(p.storage, PackedQ8Matrix::storage_bytes(rows, cols));
    p.matrix = std::make_unique<PackedQ8Matrix>(q8.data(), rows, cols, aligned, kernel);
    return p;
}

}  // namespace

namespace {

void quantized_outputs_equal_quantized_f32_outputs(Int8Kernel kernel) {
    std::mt19937 rng(9);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    // 4096 and 512 outputs: rows of whole sixteen-block groups; 96 and 544: the per-block tail of
    // quantize_row too. Frame counts end on every tile tail; one frame of zeros with no bias.
    const Case cases[] = {
            {64, 96, 1, 1, true}, {1024, 4096, 125, 2, true}, {256, 544, 7, 1, true}, {512, 512, 13, 2, false}, {2048, 64, 20, 1, true}};
    for (const Case & c : cases) {
        const Packed first = pack(c.rows, c.cols, rng, kernel), next = pack(32, c.rows, rng, kernel);
        ggml_init_params params = {size_t(256) << 20, nullptr, false};
        ggml_context * ctx = ggml_init(params);
        ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c.cols, c.frames);
        float * xd = static_cast<float *>(x->data);
        for (int64_t i = 0; i < c.cols * c.frames; ++i) xd[i] = normal(rng);
        if (!c.bias) std::memset(xd, 0, size_t(c.cols) * sizeof(float));  // frame 0: all outputs 0
        ggml_tensor * bias = nullptr;
        if (c.bias) {
            bias = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, c.rows);
            for (int64_t i = 0; i < c.rows; ++i) static_cast<float *>(bias->data)[i] = 0.1f * normal(rng);
        }
        ggml_tensor * xq = first.matrix->quantize(ctx, x, "x");
        const Epilogue swish{bias, true};
        ggml_tensor * fused = first.matrix->apply_quantized_to(ctx, xq, "w1", swish, ActivationFormat::Q8Blocks);
        CHECK(fused != nullptr);
        if (fused == nullptr) continue;
        const std::vector<uint8_t> want =
                bytes_of(ctx, next.matrix->quantize(ctx, first.matrix->apply_quantized(ctx, xq, "w1", swish), "h"), c.threads);
        const std::vector<uint8_t> got = bytes_of(ctx, fused, c.threads);
        CHECK_EQ(got.size(), want.size());
        size_t differing = 0;
        for (size_t i = 0; i < want.size() && i < got.size(); ++i) differing += got[i] != want[i];
        if (differing != 0)
            std::cerr << "  " << q8_kernel_layout(kernel) << " cols " << c.cols << " rows " << c.rows << " frames " << c.frames << ": " << differing << " bytes differ\n";
        CHECK_EQ(differing, size_t(0));
        // Only the Q8 row format, and only where a row is one chunk of the kernel.
        CHECK(first.matrix->apply_quantized_to(ctx, xq, "w1", swish, ActivationFormat::I16Blocks) == nullptr);
        ggml_free(ctx);
    }
    std::mt19937 wide_rng(3);
    const Packed wide = pack(32, 4096, wide_rng, kernel);
    ggml_init_params params = {size_t(16) << 20, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 2);
    CHECK(wide.matrix->apply_quantized_to(ctx, wide.matrix->quantize(ctx, x, "x"), "w", Epilogue{}, ActivationFormat::Q8Blocks) == nullptr);
    ggml_free(ctx);
}

}  // namespace

TEST(q8_quantized_outputs_equal_quantized_f32_outputs) {
    if (parakeet_tests::skip_unless(int8_kernel_runs_here(Int8Kernel::Avx2), "no AVX2 on this CPU")) return;
    for (const Int8Kernel k : {Int8Kernel::Vnni512, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Avx2}) {
        if (int8_kernel_runs_here(k)) quantized_outputs_equal_quantized_f32_outputs(k);
    }
}
