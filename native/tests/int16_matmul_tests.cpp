// The 14-bit block kernels (i16_vnni.h, and the 256-bit ones of i16_ymm.h) against float64: the
// activation rows (both quantizers) against the plain per-block formula, and each kernel's products
// against the exact ones, no further off than the same weights rounded to F16 (what weightType 'i16'
// promises per product), over every frame-tile tail and a k that spans two chunks; and the 256-bit
// kernels' outputs equal to the 512-bit kernel's bit for bit (the same integer sums, scaled in the
// same order) where this CPU runs both.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "packed_product.h"
#include "cpu_ops.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "i16_vnni.h"
#include "i16_ymm.h"
#include "int8_kernel.h"

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

constexpr Int8Kernel kKernels[] = {Int8Kernel::Vnni512, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Avx2};

/** W·x (x [frames][cols]) on `kernel`, as the graph runs it: [frames][rows]. */
std::vector<float> product(const std::vector<float> & w, const std::vector<float> & x, const Case & c, Int8Kernel kernel) {
    std::vector<uint8_t> storage;
    uint8_t * aligned = aligned64(storage, PackedI16Matrix::storage_bytes(c.rows, c.cols));
    const PackedI16Matrix m(w.data(), c.rows, c.cols, aligned, kernel);
    CHECK_EQ(std::string(m.layout_name()), std::string(i16_kernel_layout(kernel)));
    return packed_product(m, x, c.frames, c.threads);
}

}  // namespace

TEST(i16_activation_rows_match_the_block_formula) {
    if (parakeet_tests::skip_unless(int8_kernel_runs_here(Int8Kernel::Avx2), "the kernels exist only where the CPU has AVX2")) return;
    const int64_t k = 32 * 7;
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(k));
    for (float & v : x) v = normal(rng);
    for (int i = 0; i < 32; ++i) x[size_t(2 * 32 + i)] = 0.0f;  // a zero block
    x[size_t(5 * 32 + 7)] = -3e4f;                              // an outlier
    // Both quantizers: the one the CPU's widest kernel uses, and the 256-bit kernels' (AVX2).
    for (const bool avx2 : {false, true}) {
        std::vector<uint8_t> row(i16_activation_row_bytes(k));
        CHECK_EQ(row.size(), size_t(k) * 2 + size_t(k / 32) * 4);
        if (avx2)
            i16_avx2_quantize_row(x.data(), k, row.data());
        else
            quantize_i16_activation_row(x.data(), k, row.data());
        const int16_t * q = reinterpret_cast<const int16_t *>(row.data());
        const float * scales = reinterpret_cast<const float *>(row.data() + k * 2);
        int mismatches = 0;
        for (int64_t b = 0; b < k / 32; ++b) {
            float amax = 0.0f;
            for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(x[size_t(b * 32 + i)]));
            const float id = amax > 0.0f ? 8191.0f / amax : 0.0f;
            if (scales[b] != amax / 8191.0f) ++mismatches;
            for (int i = 0; i < 32; ++i) {
                const int want = int(std::nearbyint(x[size_t(b * 32 + i)] * id));
                if (q[b * 32 + i] != want || std::abs(want) > 8191) ++mismatches;
            }
        }
        if (mismatches != 0) std::cerr << "  " << (avx2 ? "AVX2" : "this CPU's") << " quantizer: " << mismatches << " mismatches\n";
        CHECK_EQ(mismatches, 0);
    }
}

TEST(i16_matmul_is_closer_to_float64_than_f16_weights) {
    if (parakeet_tests::skip_unless(int8_kernel_runs_here(Int8Kernel::Avx2), "the kernels exist only where the CPU has AVX2")) return;
    std::normal_distribution<float> normal(0.0f, 1.0f);
    // Frame counts cover the 6-frame tiles and a last tile of each of 1–5 frames; 320 inputs are two
    // chunks of blocks (one partial), so later chunks add to what earlier ones stored.
    const Case cases[] = {{64, 160, 1, 1}, {64, 160, 7, 1}, {32, 320, 13, 1}, {96, 320, 20, 2}, {64, 1024, 9, 1}, {32, 160, 10, 1}, {32, 320, 11, 1}};
    int kernels_run = 0;
    for (const Int8Kernel kernel : kKernels) {
        if (!int8_kernel_runs_here(kernel)) continue;
        ++kernels_run;
        std::mt19937 rng(11);  // every kernel on the same weights and activations
        for (const Case & c : cases) {
            std::vector<float> w(size_t(c.rows * c.cols)), x(size_t(c.cols * c.frames));
            for (float & v : w) v = normal(rng) / std::sqrt(float(c.cols));
            for (float & v : x) v = normal(rng);
            for (int64_t t = 0; t < c.frames; ++t) x[size_t(t * c.cols + (t * 37) % c.cols)] *= 20.0f;  // an outlier per frame
            const std::vector<float> y = product(w, x, c, kernel);
            std::vector<double> got, exact, f16;
            for (int64_t t = 0; t < c.frames; ++t) {
                for (int64_t o = 0; o < c.rows; ++o) {
                    double e = 0.0, h = 0.0;
                    for (int64_t i = 0; i < c.cols; ++i) {
                        const double xi = x[size_t(t * c.cols + i)];
                        const float wi = w[size_t(o * c.cols + i)];
                        e += double(wi) * xi;
                        h += double(ggml_fp16_to_fp32(ggml_fp32_to_fp16(wi))) * xi;
                    }
                    got.push_back(y[size_t(t * c.rows + o)]);
                    exact.push_back(e);
                    f16.push_back(h);
                }
            }
            const double err = relative_l2(got, exact), f16_err = relative_l2(f16, exact);
            if (!(err < f16_err && err < 3e-4)) {
                std::cerr << "  " << i16_kernel_layout(kernel) << " rows " << c.rows << " cols " << c.cols << " frames " << c.frames << ": i16 " << err
                          << ", F16 weights " << f16_err << "\n";
            }
            CHECK(err < f16_err);
            CHECK(err < 3e-4);
        }
    }
    CHECK(kernels_run > 0);
}

TEST(i16_ymm_kernels_equal_the_512_bit_kernel_bit_for_bit) {
    if (parakeet_tests::skip_unless(int8_kernel_runs_here(Int8Kernel::Vnni512), "needs AVX512-VNNI to compare the 256-bit kernels with")) return;
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const Case cases[] = {{64, 160, 7, 1}, {96, 1024, 17, 2}, {32, 320, 5, 1}};
    for (const Case & c : cases) {
        std::vector<float> w(size_t(c.rows * c.cols)), x(size_t(c.cols * c.frames));
        for (float & v : w) v = normal(rng);
        for (float & v : x) v = normal(rng);
        const std::vector<float> wide = product(w, x, c, Int8Kernel::Vnni512);
        for (const Int8Kernel kernel : {Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Avx2}) {
            if (!int8_kernel_runs_here(kernel)) continue;
            const std::vector<float> narrow = product(w, x, c, kernel);
            size_t differing = 0;
            for (size_t i = 0; i < wide.size(); ++i) differing += std::memcmp(&wide[i], &narrow[i], sizeof(float)) != 0 ? 1 : 0;
            if (differing != 0) std::cerr << "  " << i16_kernel_layout(kernel) << " " << c.rows << "x" << c.cols << ": " << differing << " outputs differ\n";
            CHECK_EQ(differing, size_t(0));
        }
    }
}
