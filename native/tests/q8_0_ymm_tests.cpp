// The 256-bit Q8_0 kernels (q8_0_avx2, q8_0_avx_vnni in its VEX and EVEX builds) against a float64
// product, beside the 512-bit one: each PackedQ8Matrix is packed for one kernel explicitly, so one
// machine runs every kernel its CPU has, whatever PARAKEET_CPU_CLASS the process runs under.
//
// The reference is the kernel's own definition in float64: the activations quantized per 32-block
// (the rows' int8 values and fp16-rounded scales, checked against ggml's quantize_row_q8_0 below),
// times the file's Q8_0 weights, summed block by block, then the epilogue. Every integer product is
// exact in both; what is left is float rounding (the kernels sum blocks in float).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "epilogue_case.h"
#include "cpu_ops.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "q8_0_vnni.h"
#include "q8_0_ymm.h"

using namespace parakeet;

namespace {

struct BlockQ8 {  // ggml's block_q8_0
    ggml_fp16_t d;
    int8_t qs[32];
};
static_assert(sizeof(BlockQ8) == 34, "block_q8_0 layout");

const Int8Kernel kAllKernels[] = {Int8Kernel::Avx2, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Vnni512};

const char * kernel_label(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Avx2: return "avx2";
        case Int8Kernel::AvxVnniVex: return "avx_vnni (VEX)";
        case Int8Kernel::AvxVnniEvex: return "avx_vnni (EVEX)";
        case Int8Kernel::Vnni512: return "avx512_vnni";
    }
    return "?";
}

bool any_ymm_kernel_runs() {
    return int8_kernel_runs_here(Int8Kernel::Avx2) || int8_kernel_runs_here(Int8Kernel::AvxVnniVex) || int8_kernel_runs_here(Int8Kernel::AvxVnniEvex);
}

std::vector<BlockQ8> random_q8_weights(int64_t rows, int64_t cols, std::mt19937 & rng, bool with_minus_128) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> w(size_t(rows * cols));
    for (float & v : w) v = normal(rng) / std::sqrt(float(cols));
    std::vector<BlockQ8> q8(size_t(rows * cols / 32));
    ggml_quantize_chunk(GGML_TYPE_Q8_0, w.data(), q8.data(), 0, rows, cols, nullptr);
    // A block's extremes, where the AVX2 kernel's VPMADDUBSW pairs are at their largest: −128 (a
    // file may hold it; ggml's quantizer never writes it: the AVX2 dot's other form runs then,
    // q8_0_ymm_tile.inc) or −127, and +127.
    const int8_t lowest = with_minus_128 ? -128 : -127;
    q8[0].qs[0] = lowest;
    q8[0].qs[1] = lowest;
    q8[0].qs[2] = 127;
    q8.back().qs[31] = lowest;
    return q8;
}

/** y[t][o] in float64 from the activation rows' int8 values and scales and the weights' blocks. */
std::vector<double> reference_product(const std::vector<BlockQ8> & w, const std::vector<uint8_t> & xq, size_t x_stride, int64_t rows, int64_t cols,
                                      int64_t frames) {
    const int64_t nb = cols / 32;
    std::vector<double> y(size_t(rows * frames), 0.0);
    for (int64_t t = 0; t < frames; ++t) {
        const uint8_t * row = xq.data() + size_t(t) * x_stride;
        const float * scales = reinterpret_cast<const float *>(row + cols);
        for (int64_t o = 0; o < rows; ++o) {
            double sum = 0.0;
            for (int64_t b = 0; b < nb; ++b) {
                const BlockQ8 & block = w[size_t(o * nb + b)];
                int64_t dot = 0;
                for (int j = 0; j < 32; ++j) dot += int64_t(block.qs[j]) * int64_t(int8_t(row[b * 32 + j]));
                sum += double(ggml_fp16_to_fp32(block.d)) * double(scales[b]) * double(dot);
            }
            y[size_t(t * rows + o)] = sum;
        }
    }
    return y;
}

struct Shape {
    int64_t rows, cols;
};

}  // namespace

TEST(q8_avx2_activation_rows_are_ggml_q8_0_blocks) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 + FMA + F16C on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t k : {32, 64, 96, 544, 1024}) {
        std::vector<float> x(static_cast<size_t>(k));
        for (float & v : x) v = 3.0f * normal(rng);
        if (k >= 64) std::fill(x.begin() + 32, x.begin() + 64, 0.0f);  // an all-zero block: scale 0, no division by it
        std::vector<uint8_t> row(q8_activation_row_bytes(k));
        q8_avx2_quantize_row(x.data(), k, row.data());
        std::vector<BlockQ8> want(size_t(k / 32));
        ggml_quantize_chunk(GGML_TYPE_Q8_0, x.data(), want.data(), 0, 1, k, nullptr);
        const int64_t nb = k / 32;
        const float * scales = reinterpret_cast<const float *>(row.data() + k);
        const int32_t * corrections = reinterpret_cast<const int32_t *>(row.data() + k + nb * 4);
        const float * scaled_sums = reinterpret_cast<const float *>(row.data() + k + nb * 8);
        int differing = 0;
        for (int64_t b = 0; b < nb; ++b) {
            int32_t sum = 0;
            for (int j = 0; j < 32; ++j) {
                const int8_t q = int8_t(row[size_t(b * 32 + j)]);
                differing += q != want[size_t(b)].qs[j];
                sum += q;
            }
            CHECK_EQ(scales[b], ggml_fp16_to_fp32(want[size_t(b)].d));
            CHECK_EQ(corrections[b], -128 * sum);
            CHECK_EQ(scaled_sums[b], scales[b] * float(sum));
        }
        if (differing != 0) std::cerr << "  k " << k << ": " << differing << " values differ from ggml's\n";
        CHECK_EQ(differing, 0);
        if (cpu_has_avx512_vnni()) {  // and the 512-bit quantizer's bytes, every one of them
            std::vector<uint8_t> wide(row.size());
            quantize_q8_activation_row(x.data(), k, wide.data());
            CHECK(wide == row);
        }
    }
}

TEST(q8_ymm_kernels_match_float64_for_1_to_17_frames) {
    if (parakeet_tests::skip_unless(any_ymm_kernel_runs(), "no 256-bit Q8_0 kernel runs on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    // One panel and block; odd panel and block counts; 65 blocks (two chunks of the traversal); 5 panels.
    const Shape shapes[] = {{32, 32}, {96, 160}, {64, 2080}, {160, 544}};
    const Ending endings[] = {Ending::None, Ending::BiasSilu, Ending::Residual, Ending::ReluMask};
    int ran = 0;
    for (size_t s = 0; s < 2 * std::size(shapes); ++s) {
        const Shape shape = shapes[s / 2];
        const bool with_minus_128 = s % 2 == 0;
        const std::vector<BlockQ8> q8 = random_q8_weights(shape.rows, shape.cols, rng, with_minus_128);
        for (int64_t frames = 1; frames <= 17; ++frames) {
            const Ending ending = endings[size_t(frames) % std::size(endings)];
            ggml_init_params params = {size_t(64) << 20, nullptr, false};
            ggml_context * ctx = ggml_init(params);
            ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, shape.cols, frames);
            float * xd = static_cast<float *>(x->data);
            for (int64_t i = 0; i < shape.cols * frames; ++i) xd[i] = normal(rng);
            const EpilogueCase ep(ctx, ending, shape.rows, frames, rng);
            // The activation rows every kernel reads (the quantizer is checked above).
            const size_t row_bytes = q8_activation_row_bytes(shape.cols);
            std::vector<uint8_t> xq(row_bytes * size_t(frames));
            for (int64_t t = 0; t < frames; ++t) quantize_q8_activation_row(xd + t * shape.cols, shape.cols, xq.data() + size_t(t) * row_bytes);
            const std::vector<double> product = reference_product(q8, xq, row_bytes, shape.rows, shape.cols, frames);
            for (Int8Kernel kernel : kAllKernels) {
                if (!int8_kernel_runs_here(kernel)) continue;
                std::vector<uint8_t> storage;
                PackedQ8Matrix m(q8.data(), shape.rows, shape.cols, aligned64(storage, PackedQ8Matrix::storage_bytes(shape.rows, shape.cols)),
                                 kernel);
                CHECK_EQ(std::string(m.layout_name()), std::string(q8_kernel_layout(kernel)));
                CHECK_EQ(m.weights_reach_minus_128(), with_minus_128);
                ggml_tensor * y = m.apply(ctx, x, "w", ep.epilogue);
                const double worst = ep.worst_error(ctx, y, product, frames, 1 + int(frames % 2));
                if (worst > 2e-5) {
                    std::cerr << "  " << kernel_label(kernel) << " " << shape.rows << " × " << shape.cols << ", " << frames << " frames, ending "
                              << int(ending) << ": worst error " << worst << "\n";
                }
                CHECK(worst <= 2e-5);
                ++ran;
                // The decoders' entry (multiply: no graph, no epilogue) gives the kernel's plain product.
                if (ending == Ending::None) {
                    std::vector<float> direct(size_t(shape.rows * frames));
                    m.multiply(xq.data(), row_bytes, frames, direct.data(), size_t(shape.rows), 0, shape.rows / 32);
                    CHECK(std::memcmp(direct.data(), y->data, direct.size() * sizeof(float)) == 0);
                }
            }
            ggml_free(ctx);
        }
    }
    CHECK(ran > 0);
}

TEST(q8_kernel_choice_follows_the_cpu) {
    // The packer's default: the 512-bit kernel where it runs, else a 256-bit one, VNNI before AVX2.
    const Int8Kernel chosen = int8_kernel_for_this_cpu();
    if (cpu_has_avx512_vnni())
        CHECK(chosen == Int8Kernel::Vnni512);
    else if (cpu_features().avx_vnni_vex())
        CHECK(chosen == Int8Kernel::AvxVnniVex);
    else if (cpu_features().avx_vnni_evex())
        CHECK(chosen == Int8Kernel::AvxVnniEvex);
    else
        CHECK(chosen == Int8Kernel::Avx2);
    CHECK_EQ(int8_kernels_available(), int8_kernel_runs_here(chosen));
    CHECK_EQ(std::string(q8_kernel_layout(Int8Kernel::AvxVnniEvex)), std::string("q8_0_avx_vnni_evex"));
}

// Bit for bit, not within a tolerance: every Q8_0 kernel's output is, per output, one in-order chain
// acc = fma(float(block's integer dot), row scale · frame scale, acc) over the blocks, from 0 — the
// order of the traversal (chunks of 64 blocks stored to y and read back, frames in tiles of 1–7,
// rows in vectors of 8) must never show in the result: a change in how a tile walks its frames, rows
// and blocks must keep the engine's output bit-identical, on every tile size.
TEST(q8_kernels_equal_one_in_order_fma_chain_per_output) {
    if (parakeet_tests::skip_unless(int8_kernels_available(), "no Q8_0 kernel of the engine's runs on this CPU")) return;
    std::mt19937 rng(23);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const Shape shapes[] = {{32, 32}, {64, 2080}, {96, 544}};
    const int64_t frame_counts[] = {1, 2, 5, 6, 7, 13, 14, 19};
    int ran = 0;
    for (size_t s = 0; s < 2 * std::size(shapes); ++s) {
        const Shape shape = shapes[s / 2];
        const std::vector<BlockQ8> q8 = random_q8_weights(shape.rows, shape.cols, rng, s % 2 == 0);
        const int64_t nb = shape.cols / 32;
        const size_t packed_bytes = PackedQ8Matrix::storage_bytes(shape.rows, shape.cols);
        std::vector<std::unique_ptr<PackedQ8Matrix>> packed;
        std::vector<Int8Kernel> packed_kernels;
        std::vector<std::vector<uint8_t>> storages(std::size(kAllKernels));
        for (size_t i = 0; i < std::size(kAllKernels); ++i) {
            if (!int8_kernel_runs_here(kAllKernels[i])) continue;
            packed.push_back(std::make_unique<PackedQ8Matrix>(q8.data(), shape.rows, shape.cols, aligned64(storages[i], packed_bytes), kAllKernels[i]));
            packed_kernels.push_back(kAllKernels[i]);
        }
        for (int64_t frames : frame_counts) {
            std::vector<float> x(size_t(shape.cols * frames));
            for (float & v : x) v = normal(rng);
            const size_t row_bytes = q8_activation_row_bytes(shape.cols);
            std::vector<uint8_t> xq(row_bytes * size_t(frames));
            for (int64_t t = 0; t < frames; ++t) quantize_q8_activation_row(x.data() + t * shape.cols, shape.cols, xq.data() + size_t(t) * row_bytes);
            std::vector<float> want(size_t(shape.rows * frames));
            for (int64_t t = 0; t < frames; ++t) {
                const uint8_t * row = xq.data() + size_t(t) * row_bytes;
                const float * frame_scales = reinterpret_cast<const float *>(row + shape.cols);
                for (int64_t o = 0; o < shape.rows; ++o) {
                    float acc = 0.0f;
                    for (int64_t b = 0; b < nb; ++b) {
                        const BlockQ8 & block = q8[size_t(o * nb + b)];
                        int32_t dot = 0;
                        for (int j = 0; j < 32; ++j) dot += int32_t(block.qs[j]) * int32_t(int8_t(row[b * 32 + j]));
                        acc = std::fma(float(dot), ggml_fp16_to_fp32(block.d) * frame_scales[b], acc);
                    }
                    want[size_t(t * shape.rows + o)] = acc;
                }
            }
            for (size_t i = 0; i < packed.size(); ++i) {
                const Int8Kernel kernel = packed_kernels[i];
                const PackedQ8Matrix & m = *packed[i];
                std::vector<float> got(want.size());
                m.multiply(xq.data(), row_bytes, frames, got.data(), size_t(shape.rows), 0, shape.rows / 32);
                int differing = 0;
                for (size_t i = 0; i < got.size(); ++i) differing += std::memcmp(&got[i], &want[i], sizeof(float)) != 0;
                if (differing != 0) {
                    std::cerr << "  " << kernel_label(kernel) << " " << shape.rows << " × " << shape.cols << ", " << frames << " frames" << (s % 2 == 0 ? " (a weight −128)" : "") << ": " << differing
                              << " of " << got.size() << " outputs differ from the chain\n";
                }
                CHECK_EQ(differing, 0);
                ++ran;
            }
        }
    }
    CHECK(ran > 0);
}
