// The AVX-512 logistic function (simd_math.h sigmoid512: SiLU epilogues, the conv module's GLU, the
// LSTM's gates) against float64 over the range it keeps exact, and at its clamps.
#include <cmath>
#include <string>

#include "check.h"
#include "cpu_ops.h"
#include "simd_math.h"

using namespace parakeet;

#ifdef PARAKEET_X86
namespace {

PARAKEET_AVX512 void sigmoid_of(const float (&x)[16], float (&out)[16]) { _mm512_storeu_ps(out, sigmoid512(_mm512_loadu_ps(x))); }

}  // namespace
#endif

TEST(sigmoid512_matches_float64) {
#ifdef PARAKEET_X86
    if (!cpu_has_avx512f()) {
        parakeet_tests::skip("no AVX-512 on this CPU");
        return;
    }
    double worst = 0.0;
    float x[16], out[16];
    for (int64_t i = 0; i <= 1600000; i += 16) {  // [−80, 80] in steps of 1e−4
        for (int l = 0; l < 16; ++l) x[l] = float(-80.0 + 1e-4 * double(i + l));
        sigmoid_of(x, out);
        for (int l = 0; l < 16; ++l) {
            const double exact = 1.0 / (1.0 + std::exp(-double(x[l])));
            worst = std::max(worst, std::fabs(double(out[l]) - exact) / exact);
        }
    }
    CHECK(worst < 5e-7);  // measured 3.1e−7: a few ulps, as the Cephes form it replaced (2.1e−7)
    // Beyond the clamps: σ(−80) (a normal float, no subnormal operand later) and 1; never NaN or 0.
    const float far[16] = {-1e30f,    -200.0f,  -88.0f, -80.0f, 80.0f, 88.0f,  200.0f, 1e30f,
                           -INFINITY, INFINITY, 0.0f,   -0.0f,  17.0f, -17.0f, 1.0f,   -1.0f};
    sigmoid_of(far, out);
    for (int l = 0; l < 4; ++l) CHECK(std::isnormal(out[l]) && std::fabs(double(out[l]) - 1.8048513e-35) < 1e-40);
    for (int l = 4; l < 8; ++l) CHECK_EQ(out[l], 1.0f);
    CHECK(std::isnormal(out[8]) && out[9] == 1.0f);
    CHECK_EQ(out[10], 0.5f);
    CHECK_EQ(out[11], 0.5f);
#else
    parakeet_tests::skip("x86 only");
#endif
}
