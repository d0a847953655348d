// The generated kernel test: every row of the kernel registry (kernels/cpu/registry.h) against a
// float64 product over the same placed weights, for every weight storage the row takes, frame
// counts 1–17 (every tile tail of every kernel) and every epilogue the packed kernels fuse (bias,
// SiLU, the residual with its scale, ReLU with the frame mask), and the linear_pos halves where the
// row runs them. One ctest case per row, named kernel_row_<id> from the table (CMake reads the ids
// from registry.cpp); a row whose CPU class this process lacks (or PARAKEET_CPU_CLASS caps) is
// reported skipped. Two shapes fit every row (Q4_K's super-blocks, the AMX halves' 64 inputs, the
// int8 step): 64 × 256, and 96 × 1024, whose inputs span several chunks of blocks and whose three
// panels of 32 rows split unevenly over two threads.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "encoder_graph.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "q8_0_rel_pos_vnni.h"
#include "q8_0_vnni.h"
#include "rel_pos_projection.h"
#include "registry.h"

using namespace parakeet;

namespace {

struct Shape {
    int64_t rows, cols;
};
constexpr Shape kShapes[] = {{64, 256}, {96, 1024}};
constexpr int kMaxFrames = 17;

/** A weight as the row takes it, and the values it holds (float64's operand). */
struct Placed {
    ggml_type type;
    std::vector<uint8_t> bytes;
    std::vector<double> values;  // [rows][cols]
};

Placed place(const std::vector<float> & w, ggml_type type, Shape shape) {
    const int64_t rows = shape.rows, cols = shape.cols;
    Placed p{type, std::vector<uint8_t>(ggml_row_size(type, cols) * size_t(rows)), {}};
    if (type == GGML_TYPE_F32) {
        std::memcpy(p.bytes.data(), w.data(), p.bytes.size());
    } else if (type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(w.data(), reinterpret_cast<ggml_fp16_t *>(p.bytes.data()), int64_t(w.size()));
    } else if (type == GGML_TYPE_Q8_0) {
        quantize_q8_0_weights(w.data(), int64_t(w.size()), p.bytes.data());
    } else {
        ggml_quantize_chunk(type, w.data(), p.bytes.data(), 0, rows, cols, nullptr);
    }
    const std::vector<float> values = weight_values(p.bytes.data(), type, rows * cols);
    p.values.assign(values.begin(), values.end());
    return p;
}

/** Every storage the row takes (any readable type: F32 and a block type). */
std::vector<ggml_type> storages(const KernelRow & row) {
    std::vector<ggml_type> out;
    if ((row.takes & (kStoresF32 | kStoresAny)) != 0) out.push_back(GGML_TYPE_F32);
    if ((row.takes & kStoresF16) != 0) out.push_back(GGML_TYPE_F16);
    if ((row.takes & (kStoresQ8_0 | kStoresAny)) != 0) out.push_back(GGML_TYPE_Q8_0);
    if ((row.takes & kStoresQ4_K) != 0) out.push_back(GGML_TYPE_Q4_K);
    return out;
}

struct EpilogueCase {
    const char * name;
    bool bias, silu, residual, relu_mask;
    float scale;
};
const EpilogueCase kEpilogues[] = {
        {"none", false, false, false, false, 1.0f},
        {"bias", true, false, false, false, 1.0f},
        {"bias+silu", true, true, false, false, 1.0f},
        {"bias+residual*0.5", true, false, true, false, 0.5f},
        {"silu+residual*0.5", false, true, true, false, 0.5f},  // the FFN's linear1 … ½·FFN + x
        {"bias+relu+mask/2", true, false, false, true, 1.0f},   // the subsampling's pointwise convs
};

double relative_l2(const std::vector<double> & got, const std::vector<double> & want) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
}

std::vector<double> computed(ggml_context * ctx, ggml_tensor * y, int threads) {
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
    std::vector<double> out;
    for (int64_t t = 0; t < y->ne[1]; ++t) {
        const float * row = reinterpret_cast<const float *>(static_cast<const char *>(y->data) + size_t(t) * y->nb[1]);
        for (int64_t o = 0; o < y->ne[0]; ++o) out.push_back(row[o]);
    }
    return out;
}

ggml_tensor * filled(ggml_context * ctx, int64_t ne0, int64_t ne1, const std::vector<float> & v) {
    ggml_tensor * t = ne1 > 0 ? ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1) : ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne0);
    std::memcpy(t->data, v.data(), size_t(ggml_nelements(t)) * sizeof(float));
    return t;
}

/** The whole matrix: frames 1–17 × every epilogue; returns the number of failing combinations. */
int check_whole(const KernelRow & row, const Placed & w, Shape shape, std::mt19937 & rng) {
    const int64_t rows = shape.rows, cols = shape.cols;
    std::vector<uint8_t> storage;
    KernelChoice choice{&row, false};
    const PackedProduct made =
            pack_weight(choice, WeightData{w.bytes.data(), w.type, rows, cols}, aligned64(storage, packed_bytes(choice, rows, cols)), nullptr);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    int failed = 0;
    for (int frames = 1; frames <= kMaxFrames; ++frames) {
        for (const EpilogueCase & e : kEpilogues) {
            std::vector<float> x(static_cast<size_t>(cols * frames)), bias(static_cast<size_t>(rows)), residual(static_cast<size_t>(rows * frames)),
                    mask(static_cast<size_t>((frames + 1) / 2));
            for (float & v : x) v = normal(rng);
            for (float & v : bias) v = normal(rng);
            for (float & v : residual) v = normal(rng);
            for (size_t i = 0; i < mask.size(); ++i) mask[i] = i % 3 == 1 ? 0.0f : 1.0f;
            ggml_init_params params = {size_t(8) << 20, nullptr, false};
            ggml_context * ctx = ggml_init(params);
            Epilogue ep;
            if (e.bias) ep.bias = filled(ctx, rows, 0, bias);
            ep.silu = e.silu;
            if (e.residual) ep.residual = filled(ctx, rows, frames, residual);
            ep.scale = e.scale;
            if (e.relu_mask) ep.relu = true, ep.row_mask = filled(ctx, int64_t(mask.size()), 0, mask), ep.mask_group = 2;
            const std::vector<double> got = computed(ctx, made.matrix->apply(ctx, filled(ctx, cols, frames, x), "w", ep), 1 + frames % 2);
            ggml_free(ctx);
            // y = residual + scale · act(W·x + bias), then ReLU and the frame mask (packed_op.h).
            std::vector<double> want;
            for (int t = 0; t < frames; ++t) {
                for (int64_t o = 0; o < rows; ++o) {
                    double acc = e.bias ? bias[size_t(o)] : 0.0;
                    for (int64_t i = 0; i < cols; ++i) acc += w.values[size_t(o * cols + i)] * x[size_t(t * cols + i)];
                    if (e.silu) acc = acc / (1.0 + std::exp(-acc));
                    if (e.residual) acc = residual[size_t(t * rows + o)] + e.scale * acc;
                    if (e.relu_mask) acc = std::max(acc, 0.0) * mask[size_t(t / 2)];
                    want.push_back(acc);
                }
            }
            const double err = relative_l2(got, want);
            if (!(err <= row.tolerance)) {
                std::cerr << "  " << row.name << " " << ggml_type_name(w.type) << " " << rows << "x" << cols << " frames " << frames << " epilogue "
                          << e.name << ": relative L2 " << err << " > " << row.tolerance << "\n";
                ++failed;
            }
        }
    }
    return failed;
}

/** linear_pos over relative positions T−1 … −(T−1) from the halves table, T = 1–17. */
int check_halves(const KernelRow & row, const Placed & w, Shape shape) {
    const int64_t rows = shape.rows, cols = shape.cols;
    const KernelChoice choice{&row, true};
    const bool block_halves = row.halves == KernelHalves::BlockHalves;
    std::vector<uint8_t> first, second;
    const size_t bytes = packed_bytes(choice, rows, cols);
    const PackedProduct made = pack_weight(choice, WeightData{w.bytes.data(), w.type, rows, cols}, aligned64(first, bytes),
                                           block_halves ? nullptr : aligned64(second, bytes));
    int failed = 0;
    for (int frames = 1; frames <= kMaxFrames; ++frames) {
        ggml_init_params params = {size_t(8) << 20, nullptr, false};
        ggml_context * ctx = ggml_init(params);
        ggml_tensor * halves = filled(ctx, cols, frames, relative_position_halves(frames, int(cols)));
        ggml_tensor * y = block_halves ? made.q8_halves->apply(ctx, Q8RelPosProjection::quantize_table(ctx, halves), "pos")
                                       : made.halves->apply(ctx, halves, "pos");
        const std::vector<double> got = computed(ctx, y, 1 + frames % 2);
        ggml_free(ctx);
        const std::vector<float> table = relative_positions(frames, int(cols));  // [2T − 1][D], the full product's input
        std::vector<double> want;
        for (int p = 0; p < 2 * frames - 1; ++p) {
            for (int64_t o = 0; o < rows; ++o) {
                double acc = 0.0;
                for (int64_t i = 0; i < cols; ++i) acc += w.values[size_t(o * cols + i)] * table[size_t(p * cols + i)];
                want.push_back(acc);
            }
        }
        const double err = relative_l2(got, want);
        if (!(err <= row.tolerance)) {
            std::cerr << "  " << row.name << " " << ggml_type_name(w.type) << " " << rows << "x" << cols << " halves, frames " << frames
                      << ": relative L2 " << err << " > " << row.tolerance << "\n";
            ++failed;
        }
    }
    return failed;
}

void check_row(const KernelRow & row) {
    const CpuFeatures & cpu = cpu_features();
    // The class may suffice while the CPU lacks what the row needs beyond it (AVX-VNNI's VEX or EVEX form).
    const std::string why = cpu.has(row.cpu_class) ? std::string(row.name) + " needs more than its class here: " + row.chosen_when
                                                   : std::string(row.name) + " needs the " + cpu_class_name(row.cpu_class) +
                                                             " class; this process has " + cpu_class_name(cpu.usable()) +
                                                             (row.cpu_class == CpuClass::Amx ? " (AMX: " + cpu.amx_reason + ")" : std::string());
    if (parakeet_tests::skip_unless(row_runs_on(row, cpu), why)) return;
    std::mt19937 rng(unsigned(row.id) + 7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (const Shape & shape : kShapes) {
        CHECK(row.make == nullptr || row.fits(shape.rows, shape.cols));
        CHECK(row.halves_fit == nullptr || row.halves_fit(shape.rows, shape.cols));
        std::vector<float> w(size_t(shape.rows * shape.cols));
        for (float & v : w) v = normal(rng) / std::sqrt(float(shape.cols));
        for (ggml_type type : storages(row)) {
            const Placed placed = place(w, type, shape);
            if (row.make != nullptr) CHECK_EQ(check_whole(row, placed, shape, rng), 0);
            if (row.halves_fit != nullptr) CHECK_EQ(check_halves(row, placed, shape), 0);
        }
    }
}

/** One case per row, named after its id: registered from the table itself. */
const bool registered = [] {
    for (const KernelRow & row : kernel_table()) {
        static std::vector<std::string> names;
        names.push_back("kernel_row_" + std::string(row.name));
        const KernelRow * r = &row;
        parakeet_tests::registry().push_back({names.back(), [r] { check_row(*r); }});
    }
    return true;
}();

}  // namespace

TEST(kernel_choice_follows_the_table) {
    // Independent of this CPU: the choice under a class is the first row of it that takes the weight.
    CpuFeatures vnni;
    vnni.hardware = CpuClass::Avx512Vnni;
    CpuFeatures scalar;
    KernelRequest q8;
    q8.placed = GGML_TYPE_Q8_0;
    q8.rows = 64;
    q8.cols = 256;
    CHECK(choose_kernel(q8, vnni).row == &kernel_row(KernelId::Q8_0Vnni));
    CHECK(choose_kernel(q8, scalar).row == nullptr);
    q8.column_halves = true;
    CHECK(choose_kernel(q8, vnni).row == &kernel_row(KernelId::Q8_0RelPosVnni));
    CHECK(choose_kernel(q8, vnni).halves);
    KernelRequest exact;
    exact.placed = GGML_TYPE_F32;
    exact.rows = 64;
    exact.cols = 256;
    exact.numerics = KernelNumerics::Exact;
    CHECK(choose_kernel(exact, vnni).row == &kernel_row(KernelId::F32Avx512));
    exact.numerics = KernelNumerics::Int16;
    CHECK(choose_kernel(exact, vnni).row == &kernel_row(KernelId::I16Vnni));
    exact.rows = 48;  // not a panel of 32: no engine kernel
    CHECK(choose_kernel(exact, vnni).row == nullptr);
    // The 256-bit rows, after the AVX-512 ones: AVX2; AVX-VNNI (VEX); an AVX512-VNNI CPU capped to
    // avx_vnni (EVEX); an AVX-512 CPU without VNNI (Skylake-X) takes AVX2's int8 rows and AVX-512's F32 one.
    CpuFeatures avx2;
    avx2.hardware = CpuClass::Avx2;
    exact.rows = 64;
    exact.numerics = KernelNumerics::Exact;
    q8.column_halves = false;
    CHECK(choose_kernel(q8, avx2).row == &kernel_row(KernelId::Q8_0Avx2));
    CHECK(choose_kernel(exact, avx2).row == &kernel_row(KernelId::F32Avx2));
    exact.numerics = KernelNumerics::Int16;
    CHECK(choose_kernel(exact, avx2).row == &kernel_row(KernelId::I16Avx2));
    CpuFeatures vex = avx2;
    vex.hardware = CpuClass::AvxVnni;
    vex.avx_vnni = true;
    CHECK(choose_kernel(q8, vex).row == &kernel_row(KernelId::Q8_0AvxVnni));
    CpuFeatures evex = vnni;
    evex.avx512vl = evex.avx512_vnni = true;
    evex.cap = CpuClass::AvxVnni;
    CHECK(choose_kernel(q8, evex).row == &kernel_row(KernelId::Q8_0AvxVnniEvex));
    CHECK(choose_kernel(exact, vex).row == &kernel_row(KernelId::I16AvxVnni));
    CHECK(choose_kernel(exact, evex).row == &kernel_row(KernelId::I16AvxVnniEvex));
    CpuFeatures skylake_x;
    skylake_x.hardware = CpuClass::Avx512;
    skylake_x.avx512vl = true;
    CHECK(choose_kernel(exact, skylake_x).row == &kernel_row(KernelId::I16Avx2));
    CHECK(choose_kernel(q8, skylake_x).row == &kernel_row(KernelId::Q8_0Avx2));
    KernelRequest channel = q8;
    channel.placed = GGML_TYPE_F32;
    channel.numerics = KernelNumerics::ChannelInt8;
    CHECK(choose_kernel(channel, skylake_x).row == &kernel_row(KernelId::Int8ChannelAvx2));
    CHECK(choose_kernel(channel, vex).row == &kernel_row(KernelId::Int8ChannelAvxVnni));
    CHECK(choose_kernel(channel, evex).row == &kernel_row(KernelId::Int8ChannelAvxVnniEvex));
    exact.numerics = KernelNumerics::Exact;
    CHECK(choose_kernel(exact, skylake_x).row == &kernel_row(KernelId::F32Avx512));
    // Every id names exactly one row.
    for (const KernelRow & row : kernel_table()) CHECK(&kernel_row(row.id) == &row);
}
