// The subsampling's depthwise ops writing the pointwise conv's activation rows themselves
// (subsampling_op.h, a DepthwiseOutput in a packed format) against their F32 output quantized
// row by row (activation_rows.h): byte for byte, in every format, with a time mask and without,
// on one thread and two, at frame counts whose conv rows end on every edge case.
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "activation_rows.h"
#include "check.h"
#include "cpu_ops.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "subsampling_op.h"

using namespace parakeet;

namespace {

void compute(ggml_context * ctx, ggml_tensor * t, int threads) {
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, t);
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
}

ggml_tensor * random_tensor(ggml_context * ctx, int64_t n0, int64_t n1, int64_t n2, std::mt19937 & rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    ggml_tensor * t = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, n0, n1, n2);
    for (int64_t i = 0; i < ggml_nelements(t); ++i) static_cast<float *>(t->data)[i] = normal(rng);
    return t;
}

/** Bytes of `quantized` that differ from the rows of the F32 output `f32` [C, W, H] quantized one position at a time. */
size_t differing_bytes(const ggml_tensor * f32, const DepthwiseOutput & quantized, ActivationFormat format) {
    const int64_t C = f32->ne[0], positions = f32->ne[1] * f32->ne[2];
    CHECK_EQ(quantized.width * quantized.height, positions);
    CHECK_EQ(quantized.tensor->ne[1], positions);
    const size_t bytes = activation_row_bytes(format, C);
    CHECK_EQ(size_t(quantized.tensor->ne[0]), bytes);
    std::vector<uint8_t> want(bytes);
    size_t differing = 0;
    for (int64_t p = 0; p < positions; ++p) {
        quantize_activation_row(format, static_cast<const float *>(f32->data) + p * C, C, want.data());
        const uint8_t * got = static_cast<const uint8_t *>(quantized.tensor->data) + size_t(p) * quantized.tensor->nb[1];
        for (size_t i = 0; i < bytes; ++i) differing += got[i] != want[i];
    }
    return differing;
}

}  // namespace

TEST(subsampling_depthwise_rows_equal_quantized_f32_rows) {
    if (parakeet_tests::skip_unless(cpu_has_avx512_vnni() && fused_subsampling_available(), "the packed kernels run only with AVX512-VNNI")) return;
    std::mt19937 rng(31);
    const ActivationFormat formats[] = {ActivationFormat::Q8Blocks, ActivationFormat::I16Blocks, ActivationFormat::ChannelRows};
    struct Case {
        int64_t channels, mels, frames;
        bool mask;
        int threads;
    };
    // Odd and even frame and mel counts (the convs' last rows and columns read past the image on
    // one and not the other), a time mask that zeroes the last conv.0 rows, two threads.
    const Case cases[] = {{32, 80, 37, false, 1}, {64, 128, 100, true, 2}, {32, 80, 9, true, 1}, {64, 80, 64, false, 2}};
    for (const Case & c : cases) {
        ggml_init_params params = {size_t(128) << 20, nullptr, false};
        ggml_context * ctx = ggml_init(params);
        ggml_tensor * mel = random_tensor(ctx, c.mels, c.frames, 1, rng);
        mel = ggml_reshape_2d(ctx, mel, c.mels, c.frames);
        ggml_tensor * conv0_w = random_tensor(ctx, 16, c.channels, 1, rng);
        conv0_w = ggml_reshape_2d(ctx, conv0_w, 16, c.channels);
        ggml_tensor * conv0_b = random_tensor(ctx, c.channels, 1, 1, rng);
        conv0_b = ggml_reshape_1d(ctx, conv0_b, c.channels);
        ggml_tensor * dw_w = random_tensor(ctx, 9 * c.channels, 1, 1, rng);
        dw_w = ggml_reshape_1d(ctx, dw_w, 9 * c.channels);
        ggml_tensor * mask = nullptr;
        if (c.mask) {
            const int64_t h1 = (c.frames - 1) / 2 + 1;
            mask = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 1, 1, h1);
            for (int64_t r = 0; r < h1; ++r) static_cast<float *>(mask->data)[r] = r < h1 - 3 ? 1.0f : 0.0f;
        }
        const DepthwiseOutput front_f32 = fused_subsampling_front(ctx, mel, conv0_w, conv0_b, mask, dw_w, ActivationFormat::None);
        compute(ctx, front_f32.tensor, c.threads);
        CHECK_EQ(front_f32.tensor->ne[1], front_f32.width);
        CHECK_EQ(front_f32.tensor->ne[2], front_f32.height);
        // The next stage's depthwise conv on the front's F32 output, as build_subsampling chains them.
        const DepthwiseOutput next_f32 = depthwise_stride2(ctx, front_f32.tensor, dw_w, ActivationFormat::None);
        compute(ctx, next_f32.tensor, c.threads);
        for (const ActivationFormat format : formats) {
            const DepthwiseOutput front = fused_subsampling_front(ctx, mel, conv0_w, conv0_b, mask, dw_w, format);
            compute(ctx, front.tensor, c.threads);
            CHECK_EQ(front.width, front_f32.width);
            CHECK_EQ(front.height, front_f32.height);
            const size_t front_diff = differing_bytes(front_f32.tensor, front, format);
            const DepthwiseOutput next = depthwise_stride2(ctx, front_f32.tensor, dw_w, format);
            compute(ctx, next.tensor, c.threads);
            const size_t next_diff = differing_bytes(next_f32.tensor, next, format);
            if (front_diff != 0 || next_diff != 0) {
                std::cerr << "  C " << c.channels << " mels " << c.mels << " frames " << c.frames << " format " << int(format) << ": " << front_diff
                          << " front bytes, " << next_diff << " next-stage bytes differ\n";
            }
            CHECK_EQ(front_diff, size_t(0));
            CHECK_EQ(next_diff, size_t(0));
        }
        ggml_free(ctx);
    }
}
