// The 256-bit per-channel int8 kernels (int8_channel_avx2, int8_channel_avx_vnni in its VEX and EVEX
// builds) against float64, beside the 512-bit one: each matrix is packed for one kernel explicitly,
// so one machine runs every kernel its CPU has, whatever PARAKEET_CPU_CLASS the process runs under.
//
// The reference is the layout's definition in float64 (int8_channel_vnni.h): weights per row
// q_w = round(w·127/max|w_row|), activations per frame q = round(x/s) + z with s = (max − min)/255
// over a range holding 0, y = s_w·s·Σ (q − z)·q_w, then the epilogue. The integer sums are exact in
// both; what is left is float rounding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "cpu_ops.h"
#include "epilogue_case.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "int8_channel_vnni.h"
#include "int8_channel_ymm.h"

using namespace parakeet;

namespace {

const Int8Kernel kAllKernels[] = {Int8Kernel::Avx2, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Vnni512};

bool any_ymm_kernel_runs() {
    return int8_kernel_runs_here(Int8Kernel::Avx2) || int8_kernel_runs_here(Int8Kernel::AvxVnniVex) || int8_kernel_runs_here(Int8Kernel::AvxVnniEvex);
}

/** One frame quantized by the formula: its bytes, scale and zero point. */
struct FrameQ {
    std::vector<int32_t> q;
    float scale;
    int32_t zero;
};

FrameQ quantize_frame(const float * x, int64_t k) {
    float mn = 0.0f, mx = 0.0f;
    for (int64_t i = 0; i < k; ++i) mn = std::min(mn, x[i]), mx = std::max(mx, x[i]);
    FrameQ f;
    f.scale = (mx - mn) / 255.0f;
    const float inv = f.scale > 0.0f ? 1.0f / f.scale : 0.0f;
    f.zero = f.scale > 0.0f ? int32_t(std::clamp(std::nearbyint(-mn * inv), 0.0f, 255.0f)) : 0;
    for (int64_t i = 0; i < k; ++i) f.q.push_back(std::clamp(int32_t(std::nearbyint(x[i] * inv)) + f.zero, 0, 255));
    return f;
}

}  // namespace

TEST(channel_avx2_activation_rows_follow_the_formula) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 + FMA + F16C on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(13);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t k : {4, 12, 36, 512, 1028}) {
        for (int kind = 0; kind < 3; ++kind) {  // mixed signs, all positive (the range still holds 0), all zero
            std::vector<float> x(static_cast<size_t>(k));
            for (float & v : x) v = kind == 0 ? 2.0f * normal(rng) : kind == 1 ? std::fabs(normal(rng)) + 0.1f : 0.0f;
            std::vector<uint8_t> row(channel_activation_row_bytes(k));
            channel_avx2_quantize_row(x.data(), k, row.data());
            const FrameQ want = quantize_frame(x.data(), k);
            float scale;
            int32_t zero;
            std::memcpy(&scale, row.data() + k, 4);
            std::memcpy(&zero, row.data() + k + 4, 4);
            CHECK_EQ(scale, want.scale);
            CHECK_EQ(zero, want.zero);
            int differing = 0;
            for (int64_t i = 0; i < k; ++i) differing += int32_t(row[size_t(i)]) != want.q[size_t(i)];
            if (differing != 0) std::cerr << "  k " << k << " kind " << kind << ": " << differing << " bytes differ from the formula\n";
            CHECK_EQ(differing, 0);
            if (cpu_has_avx512_vnni()) {  // and the 512-bit quantizer's bytes
                std::vector<uint8_t> wide(row.size());
                quantize_channel_activation_row(x.data(), k, wide.data());
                CHECK(wide == row);
            }
        }
    }
}

TEST(channel_ymm_kernels_match_float64_for_1_to_17_frames) {
    if (parakeet_tests::skip_unless(any_ymm_kernel_runs(), "no 256-bit int8 kernel runs on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(17);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    struct Shape {
        int64_t rows, cols;
    };
    // One group; odd group counts; a long row (the int32 sums over 1028 inputs); 5 panels.
    const Shape shapes[] = {{32, 4}, {96, 36}, {64, 1028}, {160, 516}};
    const Ending endings[] = {Ending::None, Ending::BiasSilu, Ending::Residual, Ending::ReluMask};
    int ran = 0;
    for (const Shape & shape : shapes) {
        std::vector<float> w(size_t(shape.rows * shape.cols));
        for (float & v : w) v = normal(rng) / std::sqrt(float(shape.cols));
        // The weights' integers and scales by the formula.
        std::vector<int32_t> qw(w.size());
        std::vector<double> sw(size_t(shape.rows));
        for (int64_t o = 0; o < shape.rows; ++o) {
            float amax = 0.0f;
            for (int64_t i = 0; i < shape.cols; ++i) amax = std::max(amax, std::fabs(w[size_t(o * shape.cols + i)]));
            sw[size_t(o)] = double(amax / 127.0f);
            for (int64_t i = 0; i < shape.cols; ++i)
                qw[size_t(o * shape.cols + i)] =
                        int32_t(std::clamp(std::nearbyint(w[size_t(o * shape.cols + i)] * (127.0f / amax)), -127.0f, 127.0f));
        }
        for (int64_t frames = 1; frames <= 17; ++frames) {
            const Ending ending = endings[size_t(frames) % std::size(endings)];
            ggml_init_params params = {size_t(64) << 20, nullptr, false};
            ggml_context * ctx = ggml_init(params);
            ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, shape.cols, frames);
            float * xd = static_cast<float *>(x->data);
            for (int64_t i = 0; i < shape.cols * frames; ++i) xd[i] = normal(rng);
            const EpilogueCase ep(ctx, ending, shape.rows, frames, rng);
            std::vector<double> product(size_t(shape.rows * frames));
            for (int64_t t = 0; t < frames; ++t) {
                const FrameQ f = quantize_frame(xd + t * shape.cols, shape.cols);
                for (int64_t o = 0; o < shape.rows; ++o) {
                    int64_t dot = 0;
                    for (int64_t i = 0; i < shape.cols; ++i) dot += int64_t(f.q[size_t(i)] - f.zero) * qw[size_t(o * shape.cols + i)];
                    product[size_t(t * shape.rows + o)] = sw[size_t(o)] * double(f.scale) * double(dot);
                }
            }
            for (Int8Kernel kernel : kAllKernels) {
                if (!int8_kernel_runs_here(kernel)) continue;
                std::vector<uint8_t> storage;
                const PackedI8ChannelMatrix m(w.data(), shape.rows, shape.cols,
                                              aligned64(storage, PackedI8ChannelMatrix::storage_bytes(shape.rows, shape.cols)), kernel);
                CHECK_EQ(std::string(m.layout_name()), std::string(PackedI8ChannelMatrix::layout_of(kernel)));
                ggml_tensor * y = m.apply(ctx, x, "w", ep.epilogue);
                const double worst = ep.worst_error(ctx, y, product, frames, 1 + int(frames % 2));
                if (worst > 2e-5) {
                    std::cerr << "  " << m.layout_name() << " kernel " << int(kernel) << ": " << shape.rows << " × " << shape.cols << ", " << frames
                              << " frames, ending " << int(ending) << ": worst error " << worst << "\n";
                }
                CHECK(worst <= 2e-5);
                ++ran;
            }
            ggml_free(ctx);
        }
    }
    CHECK(ran > 0);
}
