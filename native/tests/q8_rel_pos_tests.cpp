// The Q8_0 linear_pos halves kernel (q8_0_rel_pos_vnni.h) against the Q8_0 kernel's full product over
// all 2T − 1 rows of the table: the same block sums, so equal up to the float additions' order.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "encoder_graph.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "q8_0_vnni.h"
#include "q8_0_rel_pos_vnni.h"
#include "rel_pos_projection.h"

using namespace parakeet;

namespace {

struct Case {
    int64_t d_model, frames;  // inputs (the table's width) and T
    int64_t rows;             // outputs
    int threads;
};

std::vector<float> run(ggml_context * ctx, ggml_tensor * y, int threads) {
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
    std::vector<float> out(size_t(y->ne[0] * y->ne[1]));
    for (int64_t t = 0; t < y->ne[1]; ++t)
        std::memcpy(out.data() + t * y->ne[0], static_cast<const char *>(y->data) + size_t(t) * y->nb[1], size_t(y->ne[0]) * 4);
    return out;
}

}  // namespace

TEST(q8_rel_pos_halves_equal_the_full_product) {
    if (parakeet_tests::skip_unless(Q8RelPosProjection::fits(32, 32), "no AVX512-VNNI on this CPU")) return;
    std::mt19937 rng(4);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    // d_model 1024 spans two chunks of blocks; frame counts end on every tile tail (3, 1, 2 left).
    const Case cases[] = {{64, 1, 32, 1}, {64, 7, 64, 1}, {1024, 20, 64, 2}, {512, 125, 96, 2}, {256, 11, 32, 1}};
    for (const Case & c : cases) {
        std::vector<float> w(size_t(c.rows * c.d_model));
        for (float & v : w) v = normal(rng) / std::sqrt(float(c.d_model));
        std::vector<uint8_t> q8(size_t(c.rows * c.d_model / 32) * 34);
        quantize_q8_0_weights(w.data(), int64_t(w.size()), q8.data());
        const size_t bytes = PackedQ8Matrix::storage_bytes(c.rows, c.d_model);
        std::vector<uint8_t> full_storage, half_storage;
        const PackedQ8Matrix full(q8.data(), c.rows, c.d_model, aligned64(full_storage, bytes));
        const Q8RelPosProjection halves(q8.data(), c.rows, c.d_model, aligned64(half_storage, bytes));

        ggml_init_params params = {size_t(64) << 20, nullptr, false};
        ggml_context * ctx = ggml_init(params);
        const std::vector<float> table = relative_positions(int(c.frames), int(c.d_model));
        const std::vector<float> half_table = relative_position_halves(int(c.frames), int(c.d_model));
        ggml_tensor * pe = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c.d_model, 2 * c.frames - 1);
        std::memcpy(pe->data, table.data(), table.size() * sizeof(float));
        ggml_tensor * pe_halves = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c.d_model, c.frames);
        std::memcpy(pe_halves->data, half_table.data(), half_table.size() * sizeof(float));
        const std::vector<float> want = run(ctx, full.apply(ctx, pe, "pos", Epilogue{}), c.threads);
        const std::vector<float> got = run(ctx, halves.apply(ctx, Q8RelPosProjection::quantize_table(ctx, pe_halves), "pos"), c.threads);
        ggml_free(ctx);

        CHECK_EQ(got.size(), want.size());
        double num = 0.0, den = 0.0;
        for (size_t i = 0; i < want.size(); ++i) {
            num += double(got[i] - want[i]) * double(got[i] - want[i]);
            den += double(want[i]) * double(want[i]);
        }
        const double err = std::sqrt(num / den);
        if (!(err < 1e-6)) std::cerr << "  d_model " << c.d_model << " frames " << c.frames << " rows " << c.rows << ": " << err << "\n";
        CHECK(err < 1e-6);
    }
}
