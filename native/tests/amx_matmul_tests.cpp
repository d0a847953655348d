// The GEMM on AMX-BF16 tiles (amx_bf16.h) against float64 sums of the same BF16 values: each
// weight (d·q of Q8_0, or an F32 value) and each activation rounded to BF16 (nearest even), so the
// kernel may differ from the reference only by its F32 accumulation. Both layouts (int8 tiles
// widened per item, PackedQ8TileMatrix; BF16 tiles made at load from F32 values, here the same
// d·q, PackedBf16TileMatrix) must give the same bits,
// at every frame count of a 16-frame tile and pair, over several spans, and as a graph node with each
// epilogue on two threads. Where this process may not use AMX-BF16 (amx.h) the cases say why and
// are skipped.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "aligned_bytes.h"
#include "amx.h"
#include "check.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "amx_bf16.h"

using namespace parakeet;

namespace {

struct BlockQ8_0 {
    ggml_fp16_t d;
    int8_t qs[32];
};

float bf16_round(float f) {  // nearest even, as VCVTNE2PS2BF16 (finite f)
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
}

struct Weights {
    int64_t rows, cols;
    std::vector<BlockQ8_0> blocks;
    std::vector<uint8_t> q8_storage, wide_storage;
    std::unique_ptr<PackedQ8TileMatrix> per_item;
    std::unique_ptr<PackedBf16TileMatrix> at_load;

    Weights(int64_t r, int64_t c, std::mt19937 & rng) : rows(r), cols(c), blocks(size_t(r * c / 32)) {
        std::uniform_int_distribution<int> byte(-127, 127);
        std::uniform_real_distribution<float> scale(1e-3f, 2e-2f);
        for (BlockQ8_0 & b : blocks) {
            b.d = ggml_fp32_to_fp16(scale(rng));
            for (int8_t & q : b.qs) q = int8_t(byte(rng));
        }
        per_item = std::make_unique<PackedQ8TileMatrix>(blocks.data(), r, c, aligned64(q8_storage, PackedQ8TileMatrix::storage_bytes(r, c)));
        std::vector<float> dequantized(size_t(r * c));
        for (int64_t row = 0; row < r; ++row) {
            for (int64_t col = 0; col < c; ++col) {
                const BlockQ8_0 & b = blocks[size_t(row * (c / 32) + col / 32)];
                dequantized[size_t(row * c + col)] = ggml_fp16_to_fp32(b.d) * float(b.qs[col % 32]);
            }
        }
        at_load =
                std::make_unique<PackedBf16TileMatrix>(dequantized.data(), r, c, aligned64(wide_storage, PackedBf16TileMatrix::storage_bytes(r, c)));
    }
    float weight(int64_t row, int64_t col) const {
        const BlockQ8_0 & b = blocks[size_t(row * (cols / 32) + col / 32)];
        return bf16_round(ggml_fp16_to_fp32(b.d) * float(b.qs[col % 32]));
    }
};

/** Whether y (frames × rows, y_stride apart) is within F32 accumulation error of the float64 sums of the BF16 values. */
bool near_reference(const Weights & w, const std::vector<float> & x, int64_t frames, const float * y, size_t y_stride, double & worst) {
    worst = 0.0;
    for (int64_t t = 0; t < frames; ++t) {
        for (int64_t o = 0; o < w.rows; ++o) {
            double sum = 0.0, magnitude = 0.0;
            for (int64_t i = 0; i < w.cols; ++i) {
                const double p = double(bf16_round(x[size_t(t * w.cols + i)])) * double(w.weight(o, i));
                sum += p;
                magnitude += std::fabs(p);
            }
            const double err = std::fabs(double(y[size_t(t) * y_stride + size_t(o)]) - sum) / (magnitude + 1e-30);
            worst = std::max(worst, err);
        }
    }
    return worst <= 1e-6;  // F32 sums of ≤ 2048 terms
}

std::vector<float> activations(int64_t frames, int64_t cols, std::mt19937 & rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(frames * cols));
    for (float & v : x) v = normal(rng);
    return x;
}

bool skip_without_amx() {
    if (amx_bf16_usable()) return false;
    parakeet_tests::skip("no AMX-BF16 in this process: " + amx_bf16_status().reason);
    return true;
}

/** W·x on the calling thread (y: frames rows of W's rows). */
template <typename Matrix>
std::vector<float> single_thread_product(const Matrix & w, const std::vector<float> & x, int64_t frames) {
    std::vector<float> y(size_t(frames * w.rows()));
    w.multiply(x.data(), size_t(w.cols()), frames, y.data(), size_t(w.rows()));
    return y;
}

/** x (frames rows of cols) as an F32 tensor of `ctx`. */
ggml_tensor * input_tensor(ggml_context * ctx, const std::vector<float> & x, int64_t cols, int64_t frames) {
    ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols, frames);
    std::memcpy(t->data, x.data(), x.size() * sizeof(float));
    return t;
}

}  // namespace

TEST(amx_q8_gemm_matches_float64_of_its_bf16_values) {
    if (skip_without_amx()) return;
    std::mt19937 rng(21);
    // Frame counts around the 16-frame tile and the 32-frame pair; 2048 inputs make spans of 320
    // frames (amx_panel_gemm.inc), so 500 frames run as two of 256 (and the 2048 inputs as 8 chunks).
    const struct {
        int64_t rows, cols;
        std::vector<int64_t> frames;
    } cases[] = {{64, 64, {1, 15, 16, 17, 31, 32, 33, 48, 125}}, {96, 512, {7, 40, 125}}, {32, 2048, {500}}};
    for (const auto & c : cases) {
        const Weights w(c.rows, c.cols, rng);
        for (const int64_t frames : c.frames) {
            const std::vector<float> x = activations(frames, c.cols, rng);
            std::vector<float> wide(size_t(frames * c.rows), -1.0f), per_item(size_t(frames * c.rows), -2.0f);
            w.at_load->multiply(x.data(), size_t(c.cols), frames, wide.data(), size_t(c.rows));
            w.per_item->multiply(x.data(), size_t(c.cols), frames, per_item.data(), size_t(c.rows));
            double worst = 0.0;
            const bool near = near_reference(w, x, frames, wide.data(), size_t(c.rows), worst);
            if (!near) std::cerr << c.rows << "x" << c.cols << ", " << frames << " frames: worst relative error " << worst << "\n";
            CHECK(near);
            CHECK(std::memcmp(wide.data(), per_item.data(), wide.size() * sizeof(float)) == 0);
        }
    }
}

TEST(amx_q8_gemm_node_applies_each_epilogue_on_two_threads) {
    if (skip_without_amx()) return;
    std::mt19937 rng(22);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int64_t rows = 96, cols = 256, frames = 45;
    const Weights w(rows, cols, rng);
    const std::vector<float> xv = activations(frames, cols, rng);
    const std::vector<float> plain = single_thread_product(*w.at_load, xv, frames);

    ggml_init_params params = {size_t(64) << 20, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * x = input_tensor(ctx, xv, cols, frames);
    ggml_tensor * bias = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, rows);
    ggml_tensor * residual = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, rows, frames);
    ggml_tensor * mask = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (frames + 3) / 4);
    for (int64_t i = 0; i < rows; ++i) static_cast<float *>(bias->data)[i] = 0.1f * normal(rng);
    for (int64_t i = 0; i < rows * frames; ++i) static_cast<float *>(residual->data)[i] = normal(rng);
    for (int64_t i = 0; i < mask->ne[0]; ++i) static_cast<float *>(mask->data)[i] = i % 3 == 1 ? 0.0f : 1.0f;
    Epilogue swish;
    swish.bias = bias;
    swish.silu = true;
    Epilogue half_residual;
    half_residual.residual = residual;
    half_residual.scale = 0.5f;
    Epilogue relu_masked;
    relu_masked.bias = bias;
    relu_masked.relu = true;
    relu_masked.row_mask = mask;
    relu_masked.mask_group = 4;
    ggml_tensor * outs[3] = {w.at_load->apply(ctx, x, "w", swish), w.at_load->apply(ctx, x, "w", half_residual),
                             w.per_item->apply(ctx, x, "w", relu_masked)};
    ggml_cgraph * graph = ggml_new_graph(ctx);
    for (ggml_tensor * o : outs) ggml_build_forward_expand(graph, o);
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, 2)), int(GGML_STATUS_SUCCESS));

    double worst = 0.0;
    for (int64_t t = 0; t < frames; ++t) {
        for (int64_t o = 0; o < rows; ++o) {
            const float v = plain[size_t(t * rows + o)], b = static_cast<const float *>(bias->data)[o];
            const float r = static_cast<const float *>(residual->data)[t * rows + o];
            const float keep = static_cast<const float *>(mask->data)[t / 4];
            const double expected[3] = {double(v + b) / (1.0 + std::exp(-double(v + b))), double(r) + 0.5 * double(v),
                                        keep * std::max(0.0, double(v + b))};
            for (int e = 0; e < 3; ++e) {
                const double got = static_cast<const float *>(outs[e]->data)[t * rows + o];
                worst = std::max(worst, std::fabs(got - expected[e]) / (1.0 + std::fabs(expected[e])));
            }
        }
    }
    if (worst > 1e-5) std::cerr << "epilogues: worst error " << worst << "\n";
    CHECK(worst <= 1e-5);
    ggml_free(ctx);
}

// Each thread widens the chunk of the panel it expects to take next while it finishes the one in
// hand (amx_panel_gemm.inc, ChunkBuffers). On more threads than cores the other threads often take that
// panel first, and the widened chunk must then be set aside: every run equals the single-thread
// product bit for bit.
TEST(amx_q8_gemm_node_is_exact_when_threads_take_other_panels_than_expected) {
    if (skip_without_amx()) return;
    std::mt19937 rng(23);
    const int64_t rows = 320, cols = 512, frames = 70;  // 10 panels of 2 chunks each
    const Weights w(rows, cols, rng);
    const std::vector<float> xv = activations(frames, cols, rng);
    const std::vector<float> expected = single_thread_product(*w.per_item, xv, frames);

    ggml_init_params params = {size_t(16) << 20, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * y = w.per_item->apply(ctx, input_tensor(ctx, xv, cols, frames), "w", Epilogue{});
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);
    int mismatched_runs = 0;
    for (int run = 0; run < 60; ++run) {
        const int threads = 2 + run % 3;
        std::memset(y->data, 0xff, ggml_nbytes(y));
        CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
        if (std::memcmp(y->data, expected.data(), expected.size() * sizeof(float)) != 0) ++mismatched_runs;
    }
    if (mismatched_runs != 0) std::cerr << mismatched_runs << " of 60 runs differ from the single-thread product\n";
    CHECK_EQ(mismatched_runs, 0);
    ggml_free(ctx);
}
