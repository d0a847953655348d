// The per-channel int8 kernel (weightType 'int8') this CPU runs (512-bit VNNI, or the 256-bit AVX-VNNI
// or AVX2 one: the packer's default) against its own integer formula: every output
// y[t][r] = float(Σ q_x[t]·q_w[r] − z[t]·Σ q_w[r]) · (s_w[r] · s_x[t]) from the packed weights and the
// quantized activation rows, bit for bit. The shapes reach every traversal of the 512-bit kernel: panel
// pairs in tiles of 3 frames with their 1–2 frame tails, a thread's lone panel in tiles of 6, k chunks
// parked between passes and an odd last group; and of the 256-bit one: frame pairs with a lone last
// frame over whole rows, one and two threads. Where AMX is usable the same cases (those of a width
// the AMX-INT8 path takes, a multiple of 64) run on it too, to the same bits: around its 16-frame
// tiles and 32-frame pairs, its 512-input chunks, and two spans.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include "aligned_bytes.h"
#include "amx.h"
#include "amx_bf16.h"
#include "check.h"
#include "cpu_ops.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "int8_channel_vnni.h"

using namespace parakeet;

namespace {

struct Case {
    int64_t cols, rows, frames;
    int threads;
};

// The packed [group][row][4] weights of row r, input i.
int8_t packed_weight(const PackedI8ChannelMatrix & m, int64_t r, int64_t i) { return m.panel_weights(r / 32)[(i / 4) * 128 + (r % 32) * 4 + i % 4]; }

}  // namespace

TEST(i8_channel_matmul_equals_its_integer_formula) {
    if (parakeet_tests::skip_unless(int8_kernels_available(), "no int8 kernel of the engine's runs on this CPU")) return;
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    // 96 rows: a pair and a lone panel (2 threads: the pair on one, the lone panel on the other);
    // 1028 inputs: 257 groups, two full chunks of 128 and one group; 64 × 512 one pair, one chunk.
    const Case cases[] = {{1028, 96, 7, 1},  {1028, 96, 7, 2},  {512, 64, 1, 1},  {512, 64, 2, 1},   {512, 64, 3, 2},
                          {256, 128, 13, 1}, {2048, 32, 11, 1}, {512, 96, 33, 2}, {1024, 64, 47, 1}, {2048, 64, 700, 2}};
    for (const Case & c : cases)
        for (const bool amx : {false, true}) {
            if (amx && !(amx_bf16_usable() && channel_amx_fits(c.rows, c.cols))) continue;
            if (!amx && c.frames > 100) continue;  // the VNNI and 256-bit traversals are covered by the small cases
            std::vector<float> w(size_t(c.rows * c.cols));
            for (float & v : w) v = normal(rng) / std::sqrt(float(c.cols));
            std::vector<uint8_t> storage;
            uint8_t * aligned = aligned64(storage, PackedI8ChannelMatrix::storage_bytes(c.rows, c.cols));
            PackedI8ChannelMatrix m(w.data(), c.rows, c.cols, aligned);
            if (amx) m.run_on_amx();

            ggml_init_params params = {size_t(128) << 20, nullptr, false};
            ggml_context * ctx = ggml_init(params);
            ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c.cols, c.frames);
            float * xd = static_cast<float *>(x->data);
            for (int64_t i = 0; i < c.cols * c.frames; ++i) xd[i] = normal(rng) + 0.5f;  // off-centre: a zero point ≠ 0
            ggml_tensor * xq = m.quantize(ctx, x, "x");
            ggml_tensor * y = m.apply_quantized(ctx, xq, "w", Epilogue{});
            ggml_cgraph * graph = ggml_new_graph(ctx);
            ggml_build_forward_expand(graph, y);
            CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, c.threads)), int(GGML_STATUS_SUCCESS));

            size_t differing = 0;
            for (int64_t t = 0; t < c.frames; ++t) {
                const uint8_t * row = static_cast<const uint8_t *>(xq->data) + size_t(t) * xq->nb[1];
                float sx;
                int32_t zero;
                std::memcpy(&sx, row + c.cols, sizeof(sx));
                std::memcpy(&zero, row + c.cols + sizeof(float), sizeof(zero));
                const float * yt = reinterpret_cast<const float *>(static_cast<const char *>(y->data) + size_t(t) * y->nb[1]);
                for (int64_t r = 0; r < c.rows; ++r) {
                    int32_t dot = zero * m.row_offsets()[r];
                    for (int64_t i = 0; i < c.cols; ++i) dot += int32_t(row[i]) * int32_t(packed_weight(m, r, i));
                    const float want = float(dot) * (m.row_scales()[r] * sx);
                    differing += yt[r] != want;
                }
            }
            if (differing != 0)
                std::cerr << "  " << (amx ? "AMX" : m.layout_name()) << " cols " << c.cols << " rows " << c.rows << " frames " << c.frames << " threads "
                          << c.threads << ": " << differing << " outputs differ\n";
            CHECK_EQ(differing, size_t(0));
            ggml_free(ctx);
        }
}
