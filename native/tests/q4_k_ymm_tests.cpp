// The 256-bit Q4_K kernels (q4_k_avx2, q4_k_avx_vnni in its VEX and EVEX builds) against the 512-bit
// one: each PackedQ4KMatrix is packed for one kernel explicitly, so one machine runs every kernel its
// CPU has whatever PARAKEET_CPU_CLASS says. Their integer sums are exact and each block goes into the
// float accumulator as the 512-bit kernel does it, so without an epilogue the outputs are equal bit for
// bit (the generated kernel_row_q4_k_* cases check each against float64, with every epilogue).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "aligned_bytes.h"
#include "check.h"
#include "packed_product.h"
#include "cpu_ops.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "int8_kernel.h"
#include "q4_k_vnni.h"

using namespace parakeet;

namespace {

struct Case {
    int64_t rows, cols, frames;
    int threads;
};

/** W·x (x [frames][cols]) on `kernel` with W the Q4_K blocks `q4`, as the graph runs it: [frames][rows]. */
std::vector<float> product(const std::vector<uint8_t> & q4, const std::vector<float> & x, const Case & c, Int8Kernel kernel) {
    std::vector<uint8_t> storage;
    uint8_t * aligned = aligned64(storage, PackedQ4KMatrix::storage_bytes(c.rows, c.cols));
    const PackedQ4KMatrix m(q4.data(), c.rows, c.cols, aligned, kernel);
    CHECK_EQ(std::string(m.layout_name()), std::string(q4_k_kernel_layout(kernel)));
    return packed_product(m, x, c.frames, c.threads);
}

}  // namespace

// Chunks of 32 blocks (1024 inputs) and more (2048: two chunks, the second accumulating), 1–17 frames
// (every tile height and a remainder), one and two threads.
TEST(q4_k_ymm_kernels_equal_the_512_bit_kernel_bit_for_bit) {
    if (parakeet_tests::skip_unless(int8_kernel_runs_here(Int8Kernel::Vnni512), "needs AVX512-VNNI to compare the 256-bit kernels with")) return;
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const Case cases[] = {{64, 256, 1, 1}, {96, 1024, 17, 2}, {32, 2048, 7, 1}, {64, 512, 12, 2}};
    int compared = 0;
    for (const Case & c : cases) {
        std::vector<float> w(size_t(c.rows * c.cols)), x(size_t(c.cols * c.frames));
        for (float & v : w) v = normal(rng);
        for (float & v : x) v = normal(rng);
        std::vector<uint8_t> q4(ggml_row_size(GGML_TYPE_Q4_K, c.cols) * size_t(c.rows));
        ggml_quantize_chunk(GGML_TYPE_Q4_K, w.data(), q4.data(), 0, c.rows, c.cols, nullptr);
        const std::vector<float> wide = product(q4, x, c, Int8Kernel::Vnni512);
        for (const Int8Kernel kernel : {Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Avx2}) {
            if (!int8_kernel_runs_here(kernel)) continue;
            const std::vector<float> narrow = product(q4, x, c, kernel);
            size_t differing = 0;
            for (size_t i = 0; i < wide.size(); ++i) differing += std::memcmp(&wide[i], &narrow[i], sizeof(float)) != 0 ? 1 : 0;
            if (differing != 0)
                std::cerr << "  " << q4_k_kernel_layout(kernel) << " " << c.rows << "x" << c.cols << ": " << differing << " outputs differ\n";
            CHECK_EQ(differing, size_t(0));
            ++compared;
        }
    }
    CHECK(compared >= 4);  // the AVX2 kernel at least
}
