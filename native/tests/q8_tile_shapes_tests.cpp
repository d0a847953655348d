// The VNNI Q8_0 GEMM cuts a call's frames into tiles (block_chunks.h next_tile_frames: 6s, a 1–5
// tail, and 7s for a stream's 7- and 14-frame chunks). Each output is its own frame's sum over the
// blocks in order whatever tile holds the frame, so every frame count gives each frame the bytes
// that frame alone gives.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "cpu_features.h"
#include "q8_0_vnni.h"

using namespace parakeet;

TEST(q8_gemm_outputs_are_independent_of_the_tile_shapes) {
    if (parakeet_tests::skip_unless(cpu_has_avx512_vnni(), "the VNNI Q8_0 kernel runs only there")) return;
    const int64_t rows = 96, cols = 32 * 70;  // three panels; 70 blocks: two block chunks (64 + 6)
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> w(size_t(rows * cols));
    for (float & v : w) v = normal(rng);
    std::vector<uint8_t> q8(size_t(rows * cols / 32) * 34);
    quantize_q8_0_weights(w.data(), rows * cols, q8.data());
    std::vector<uint8_t> storage;
    const PackedQ8Matrix m(q8.data(), rows, cols, aligned64(storage, PackedQ8Matrix::storage_bytes(rows, cols)));

    const int64_t max_frames = 15;
    const size_t stride = q8_activation_row_bytes(cols);
    std::vector<uint8_t> xq(stride * size_t(max_frames));
    std::vector<float> x(static_cast<size_t>(cols));
    for (int64_t f = 0; f < max_frames; ++f) {
        for (float & v : x) v = normal(rng);
        quantize_q8_activation_row(x.data(), cols, xq.data() + size_t(f) * stride);
    }
    std::vector<float> alone(size_t(rows * max_frames));
    for (int64_t f = 0; f < max_frames; ++f)
        m.multiply(xq.data() + size_t(f) * stride, stride, 1, alone.data() + f * rows, size_t(rows), 0, rows / 32);
    int differing = 0;
    for (int64_t frames = 2; frames <= max_frames; ++frames) {  // 7 and 14: the 7-frame tiles; 8, 13, 15: 6s and tails
        std::vector<float> together(size_t(rows * frames), -1.0f);
        m.multiply(xq.data(), stride, frames, together.data(), size_t(rows), 0, rows / 32);
        differing += std::memcmp(together.data(), alone.data(), together.size() * sizeof(float)) != 0;
    }
    CHECK_EQ(differing, 0);
}
