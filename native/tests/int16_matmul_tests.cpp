// The 14-bit block kernel (i16_vnni.h) against float64: its activation rows against the plain
// per-block formula, and its products against the exact ones, no further off than the same weights
// rounded to F16 (what weightType 'i16' promises per product), over every frame-tile tail and a k
// that spans two chunks.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "cpu_ops.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "i16_vnni.h"

using namespace parakeet;

namespace {

double relative_l2(const std::vector<double> & got, const std::vector<double> & want) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return std::sqrt(num / den);
}

struct Case {
    int64_t rows, cols, frames;
    int threads;
};

}  // namespace

TEST(i16_activation_rows_match_the_block_formula) {
    if (parakeet_tests::skip_unless(cpu_has_avx512_vnni(), "the kernel exists only where the CPU has AVX512-VNNI")) return;
    const int64_t k = 32 * 7;
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(k));
    for (float & v : x) v = normal(rng);
    for (int i = 0; i < 32; ++i) x[size_t(2 * 32 + i)] = 0.0f;  // a zero block
    x[size_t(5 * 32 + 7)] = -3e4f;                              // an outlier
    std::vector<uint8_t> row(i16_activation_row_bytes(k));
    CHECK_EQ(row.size(), size_t(k) * 2 + size_t(k / 32) * 4);
    quantize_i16_activation_row(x.data(), k, row.data());
    const int16_t * q = reinterpret_cast<const int16_t *>(row.data());
    const float * scales = reinterpret_cast<const float *>(row.data() + k * 2);
    int mismatches = 0;
    for (int64_t b = 0; b < k / 32; ++b) {
        float amax = 0.0f;
        for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(x[size_t(b * 32 + i)]));
        const float id = amax > 0.0f ? 8191.0f / amax : 0.0f;
        CHECK_EQ(scales[b], amax / 8191.0f);
        for (int i = 0; i < 32; ++i) {
            const int want = int(std::nearbyint(x[size_t(b * 32 + i)] * id));
            if (q[b * 32 + i] != want || std::abs(want) > 8191) ++mismatches;
        }
    }
    CHECK_EQ(mismatches, 0);
}

TEST(i16_matmul_is_closer_to_float64_than_f16_weights) {
    if (parakeet_tests::skip_unless(cpu_has_avx512_vnni(), "the kernel exists only where the CPU has AVX512-VNNI")) return;
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    // Frame counts cover the 6-frame tiles and a last tile of each of 1–5 frames; 320 inputs are two
    // chunks of blocks (one partial), so later chunks add to what earlier ones stored.
    const Case cases[] = {{64, 160, 1, 1}, {64, 160, 7, 1}, {32, 320, 13, 1}, {96, 320, 20, 2}, {64, 1024, 9, 1}, {32, 160, 10, 1}, {32, 320, 11, 1}};
    for (const Case & c : cases) {
        std::vector<float> w(size_t(c.rows * c.cols)), x(size_t(c.cols * c.frames));
        for (float & v : w) v = normal(rng) / std::sqrt(float(c.cols));
        for (float & v : x) v = normal(rng);
        for (int64_t t = 0; t < c.frames; ++t) x[size_t(t * c.cols + (t * 37) % c.cols)] *= 20.0f;  // an outlier per frame
        std::vector<uint8_t> storage;
        uint8_t * aligned = aligned64(storage, PackedI16Matrix::storage_bytes(c.rows, c.cols));
        const PackedI16Matrix m(w.data(), c.rows, c.cols, aligned);

        ggml_init_params params = {size_t(16) << 20, nullptr, false};
        ggml_context * ctx = ggml_init(params);
        ggml_tensor * xt = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c.cols, c.frames);
        std::memcpy(xt->data, x.data(), x.size() * sizeof(float));
        ggml_tensor * y = m.apply(ctx, xt, "w", Epilogue{});
        ggml_cgraph * graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, y);
        CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, c.threads)), int(GGML_STATUS_SUCCESS));

        std::vector<double> got, exact, f16;
        for (int64_t t = 0; t < c.frames; ++t) {
            const float * yr = reinterpret_cast<const float *>(static_cast<const char *>(y->data) + size_t(t) * y->nb[1]);
            for (int64_t o = 0; o < c.rows; ++o) {
                double e = 0.0, h = 0.0;
                for (int64_t i = 0; i < c.cols; ++i) {
                    const double xi = x[size_t(t * c.cols + i)];
                    const float wi = w[size_t(o * c.cols + i)];
                    e += double(wi) * xi;
                    h += double(ggml_fp16_to_fp32(ggml_fp32_to_fp16(wi))) * xi;
                }
                got.push_back(yr[o]);
                exact.push_back(e);
                f16.push_back(h);
            }
        }
        ggml_free(ctx);
        const double err = relative_l2(got, exact), f16_err = relative_l2(f16, exact);
        if (!(err < f16_err && err < 3e-4)) {
            std::cerr << "  rows " << c.rows << " cols " << c.cols << " frames " << c.frames << ": i16 " << err << ", F16 weights " << f16_err
                      << "\n";
        }
        CHECK(err < f16_err);
        CHECK(err < 3e-4);
    }
}
