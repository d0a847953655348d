// The VEX `*_avx_vnni` rows executed on a CPU without AVX-VNNI (Zen 4): their real machine code runs,
// each VPDP* instruction computed by the SIGILL trap (vex_vnni_trap.h), and every output must equal
// the `_evex` build of the same source bit for bit (which the generated kernel_row tests check against
// float64). A CPU with AVX-VNNI runs these rows natively in kernel_row_*_avx_vnni instead; a CPU without
// AVX512-VNNI has no EVEX build to compare with (QEMU's AVX2 models): both skip.
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "int8_kernel.h"
#include "registry.h"
#include "vex_vnni_trap.h"

using namespace parakeet;

namespace {

/** y = SiLU(W·x + bias) through the row, on `threads` threads; the floats as computed. */
std::vector<float> product(const KernelRow & row, const WeightData & w, const std::vector<float> & x, const std::vector<float> & bias, int64_t frames,
                           int threads) {
    std::vector<uint8_t> storage;
    const KernelChoice choice{&row, false};
    const PackedProduct made = pack_weight(choice, w, aligned64(storage, packed_bytes(choice, w.rows, w.cols)), nullptr);
    ggml_init_params params = {size_t(16) << 20, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * xt = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, w.cols, frames);
    std::memcpy(xt->data, x.data(), x.size() * sizeof(float));
    Epilogue ep;
    ep.bias = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, w.rows);
    std::memcpy(ep.bias->data, bias.data(), bias.size() * sizeof(float));
    ep.silu = true;
    ggml_tensor * y = made.matrix->apply(ctx, xt, "w", ep);
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
    std::vector<float> out(static_cast<const float *>(y->data), static_cast<const float *>(y->data) + w.rows * frames);
    ggml_free(ctx);
    return out;
}

}  // namespace

TEST(vex_avx_vnni_rows_equal_their_evex_builds_under_the_sigill_trap) {
    const CpuFeatures & cpu = cpu_features();
    if (parakeet_tests::skip_unless(!cpu.avx_vnni, "this CPU has AVX-VNNI: kernel_row_*_avx_vnni run these rows natively")) return;
    if (parakeet_tests::skip_unless(int8_kernel_runs_here(Int8Kernel::AvxVnniEvex) && parakeet_tests::VexVnniTrap::available(),
                                    "no EVEX build to compare with (AVX512-VL + VNNI, class avx_vnni or above) or no trap on this platform"))
        return;
    const std::pair<KernelId, KernelId> pairs[] = {{KernelId::Q8_0AvxVnni, KernelId::Q8_0AvxVnniEvex},
                                                   {KernelId::I16AvxVnni, KernelId::I16AvxVnniEvex},
                                                   {KernelId::Int8ChannelAvxVnni, KernelId::Int8ChannelAvxVnniEvex},
                                                   {KernelId::Q4_KAvxVnni, KernelId::Q4_KAvxVnniEvex}};
    std::mt19937 rng(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int64_t rows = 96, cols = 1024;
    std::vector<float> w(static_cast<size_t>(rows * cols)), bias(static_cast<size_t>(rows));
    for (float & v : w) v = normal(rng) / std::sqrt(float(cols));
    for (float & v : bias) v = normal(rng);
    std::vector<uint8_t> q8(ggml_row_size(GGML_TYPE_Q8_0, cols) * size_t(rows));
    ggml_quantize_chunk(GGML_TYPE_Q8_0, w.data(), q8.data(), 0, rows, cols, nullptr);
    std::vector<uint8_t> q4k(ggml_row_size(GGML_TYPE_Q4_K, cols) * size_t(rows));  // cols: a multiple of 256
    ggml_quantize_chunk(GGML_TYPE_Q4_K, w.data(), q4k.data(), 0, rows, cols, nullptr);
    parakeet_tests::VexVnniTrap trap;
    for (const auto & [vex_id, evex_id] : pairs) {
        const KernelRow & vex = kernel_row(vex_id);
        const KernelRow & evex = kernel_row(evex_id);
        const WeightData weight = vex_id == KernelId::Q8_0AvxVnni   ? WeightData{q8.data(), GGML_TYPE_Q8_0, rows, cols}
                                  : vex_id == KernelId::Q4_KAvxVnni ? WeightData{q4k.data(), GGML_TYPE_Q4_K, rows, cols}
                                                                    : WeightData{w.data(), GGML_TYPE_F32, rows, cols};
        for (int64_t frames : {1, 4, 9, 17}) {
            std::vector<float> x(static_cast<size_t>(cols * frames));
            for (float & v : x) v = normal(rng);
            const uint64_t before = parakeet_tests::VexVnniTrap::emulated();
            const std::vector<float> got = product(vex, weight, x, bias, frames, 2);
            const uint64_t trapped = parakeet_tests::VexVnniTrap::emulated() - before;
            const std::vector<float> want = product(evex, weight, x, bias, frames, 2);
            size_t differing = 0;
            for (size_t i = 0; i < want.size(); ++i) differing += std::memcmp(&got[i], &want[i], sizeof(float)) != 0;
            if (differing != 0 || trapped == 0) {
                std::cerr << "  " << vex.name << ", " << frames << " frames: " << differing << " of " << want.size() << " outputs differ from "
                          << evex.name << "; " << trapped << " VEX VNNI instructions ran\n";
            }
            CHECK(trapped > 0);  // the VEX code really ran (and trapped), not some other kernel
            CHECK_EQ(differing, size_t(0));
        }
    }
}
