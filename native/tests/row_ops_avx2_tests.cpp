// The AVX2 rows of the fused ops (layer_norm_avx2, conv_module_avx2, subsampling_avx2) against their
// float64 formulas: torch.nn.LayerNorm (eps 1e-5), NeMo's GLU then pad mask, the conv module's
// depthwise conv with its Swish, and dw_striding's conv.0 + ReLU and 3×3 stride-2 depthwise conv.
// Channel counts end on every lane tail (the scalar remainder) and on whole vectors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "check.h"
#include "conv_module_avx2.h"
#include "cpu_ops.h"
#include "layer_norm_avx2.h"
#include "subsampling_avx2.h"

using namespace parakeet;

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

std::vector<float> random_values(size_t n, std::mt19937 & rng, float scale = 1.0f) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(n);
    for (float & x : v) x = scale * normal(rng);
    return v;
}

/** The largest |got − want| / (1 + |want|). */
double worst_error(const std::vector<float> & got, const std::vector<double> & want) {
    double worst = 0.0;
    for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]) / (1.0 + std::fabs(want[i])));
    return worst;
}

}  // namespace

TEST(avx2_layer_norm_rows_match_float64) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 + FMA + F16C on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(23);
    for (int64_t d : {8, 40, 64, 1024}) {
        const std::vector<float> x = random_values(size_t(d), rng, 3.0f), g = random_values(size_t(d), rng), b = random_values(size_t(d), rng);
        std::vector<float> y(static_cast<size_t>(d));
        norm_row_avx2(x.data(), g.data(), b.data(), y.data(), d);
        double mean = 0.0, var = 0.0;
        for (float v : x) mean += v;
        mean /= double(d);
        for (float v : x) var += (v - mean) * (v - mean);
        const double rstd = 1.0 / std::sqrt(var / double(d) + 1e-5);
        std::vector<double> want(static_cast<size_t>(d));
        for (size_t i = 0; i < want.size(); ++i) want[i] = (x[i] - mean) * rstd * g[i] + b[i];
        const double worst = worst_error(y, want);
        if (worst > 2e-6) std::cerr << "  layer norm d " << d << ": worst error " << worst << "\n";
        CHECK(worst <= 2e-6);
    }
}

TEST(avx2_conv_module_rows_match_float64) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 + FMA + F16C on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(29);
    for (int64_t d : {7, 8, 37, 512}) {
        // GLU with a pad mask of 1 and 0.
        const std::vector<float> first = random_values(size_t(d), rng, 2.0f), second = random_values(size_t(d), rng, 4.0f);
        for (float mask : {1.0f, 0.0f}) {
            std::vector<float> out(static_cast<size_t>(d));
            glu_row_avx2(first.data(), second.data(), mask, out.data(), d);
            std::vector<double> want(static_cast<size_t>(d));
            for (size_t c = 0; c < want.size(); ++c) want[c] = first[c] * sigmoid(second[c]) * mask;
            CHECK(worst_error(out, want) <= 1e-6);
        }
        // The depthwise conv over a 9-frame window, with and without its Swish.
        const int kernel = 9;
        const std::vector<float> g = random_values(size_t(kernel * d), rng), w = random_values(size_t(kernel * d), rng, 0.3f),
                                 b = random_values(size_t(d), rng, 0.1f);
        for (bool silu : {false, true}) {
            std::vector<float> out(static_cast<size_t>(d));
            depthwise_row_avx2(g.data(), d, kernel, w.data(), b.data(), silu, out.data());
            std::vector<double> want(static_cast<size_t>(d));
            for (int64_t c = 0; c < d; ++c) {
                double s = b[size_t(c)];
                for (int k = 0; k < kernel; ++k) s += double(w[size_t(k * d + c)]) * double(g[size_t(k * d + c)]);
                want[size_t(c)] = silu ? s * sigmoid(s) : s;
            }
            const double worst = worst_error(out, want);
            if (worst > 2e-6) std::cerr << "  depthwise d " << d << " silu " << silu << ": worst error " << worst << "\n";
            CHECK(worst <= 2e-6);
        }
    }
}

TEST(avx2_subsampling_rows_match_float64) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 + FMA + F16C on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(31);
    const int64_t rows = 9, bins = 13, channels = 24, w1_count = (bins - 1) / 2 + 1;
    const std::vector<float> mel = random_values(size_t(rows * bins), rng), taps = random_values(size_t(9 * channels), rng, 0.5f),
                             bias = random_values(size_t(channels), rng, 0.1f);
    // conv.0 rows: the first (padding above), a middle one, the last (padding below); kept, halved by the mask, dropped.
    for (int64_t h1 : {0, 2, 4}) {
        for (float keep : {1.0f, 0.5f, 0.0f}) {
            std::vector<float> out(size_t(w1_count * channels), -1.0f);
            conv0_row_avx2(mel.data(), bins, rows, h1, w1_count, channels, taps.data(), bias.data(), keep, out.data());
            std::vector<double> want(out.size());
            for (int64_t w1 = 0; w1 < w1_count; ++w1) {
                for (int64_t c = 0; c < channels; ++c) {
                    double s = bias[size_t(c)];
                    for (int ky = 0; ky < 3; ++ky)
                        for (int kx = 0; kx < 3; ++kx) {
                            const int64_t r = 2 * h1 - 1 + ky, m = 2 * w1 - 1 + kx;
                            if (r >= 0 && r < rows && m >= 0 && m < bins)
                                s += double(mel[size_t(r * bins + m)]) * taps[size_t((ky * 3 + kx) * channels + c)];
                        }
                    want[size_t(w1 * channels + c)] = keep * std::max(0.0, s);
                }
            }
            CHECK(worst_error(out, want) <= 1e-6);
        }
    }
    // The depthwise conv from w1_count columns, with the top row outside the image.
    const std::vector<float> r1 = random_values(size_t(w1_count * channels), rng), r2 = random_values(size_t(w1_count * channels), rng),
                             dw = random_values(size_t(9 * channels), rng, 0.3f);
    const float * in_rows[3] = {nullptr, r1.data(), r2.data()};
    const int64_t w_out = (w1_count - 1) / 2 + 1;
    std::vector<float> out(size_t(w_out * channels));
    depthwise_row_avx2(in_rows, w1_count, channels, dw.data(), out.data(), w_out);
    std::vector<double> want(out.size(), 0.0);
    for (int64_t w2 = 0; w2 < w_out; ++w2)
        for (int64_t c = 0; c < channels; ++c)
            for (int ky = 1; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    const int64_t w1 = 2 * w2 - 1 + kx;
                    if (w1 >= 0 && w1 < w1_count)
                        want[size_t(w2 * channels + c)] += double(dw[size_t((ky * 3 + kx) * channels + c)]) * in_rows[ky][w1 * channels + c];
                }
    CHECK(worst_error(out, want) <= 1e-6);
}
