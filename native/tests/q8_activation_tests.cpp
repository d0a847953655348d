// The Q8 activation rows the Q8_0 and Q4_K kernels read (q8_0_vnni.h) against a scalar statement
// of ggml's quantize_row_q8_0 arithmetic: the sixteen-block path and the per-block tail must give
// the same bytes, scales and block sums as the plain per-block formula, zero blocks included.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "check.h"
#include "cpu_ops.h"
#include "ggml.h"
#include "q8_0_vnni.h"

using namespace parakeet;

TEST(q8_activation_rows_match_the_per_block_formula) {
    if (parakeet_tests::skip_unless(cpu_has_avx512_vnni(), "the rows exist only where the VNNI kernels run")) return;
    const int64_t k = 512 * 2 + 32 * 5;  // two sixteen-block groups, then five tail blocks
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(k));
    for (float & v : x) v = normal(rng) * 3.0f;
    for (int i = 0; i < 32; ++i) x[size_t(3 * 32 + i)] = 0.0f;  // a zero block in the first group
    for (int i = 0; i < 32; ++i) x[size_t(k - 64 + i)] = 0.0f;  // and one in the tail
    x[size_t(34 * 32 + 3)] = 1e4f;                              // an outlier in one tail block
    std::vector<uint8_t> row(q8_activation_row_bytes(k));
    quantize_q8_activation_row(x.data(), k, row.data());
    const int64_t nb = k / 32;
    const float * scales = reinterpret_cast<const float *>(row.data() + k);
    const int32_t * starts = reinterpret_cast<const int32_t *>(row.data() + k + size_t(nb) * 4);
    const float * sums = reinterpret_cast<const float *>(row.data() + k + size_t(nb) * 8);
    int mismatches = 0;
    for (int64_t b = 0; b < nb; ++b) {
        float amax = 0.0f;
        for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(x[size_t(b * 32 + i)]));
        const float d = amax / 127.0f, id = amax != 0.0f ? 127.0f / amax : 0.0f;
        const float d16 = ggml_fp16_to_fp32(ggml_fp32_to_fp16(d));
        int32_t sum = 0;
        for (int i = 0; i < 32; ++i) {
            const int q = int(std::nearbyint(x[size_t(b * 32 + i)] * id));
            sum += q;
            if (int8_t(row[size_t(b * 32 + i)]) != q) ++mismatches;
        }
        CHECK_EQ(scales[b], d16);
        CHECK_EQ(starts[b], -128 * sum);
        CHECK_EQ(sums[b], d16 * float(sum));
    }
    CHECK_EQ(mismatches, 0);
}
