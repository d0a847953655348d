#include "gemv.h"

namespace parakeet {

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PARAKEET_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PARAKEET_CLONES
#endif

namespace {

// 32 independent partial sums: the compiler turns them into several SIMD
// accumulators (hiding FMA latency) without reassociating a single sum, which
// it may not do under strict IEEE.
PARAKEET_CLONES float dot(const float * a, const float * x, int n) {
    float acc[32] = {0};
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int k = 0; k < 32; ++k) acc[k] += a[i + k] * x[i + k];
    }
    float sum = 0.0f;
    for (; i < n; ++i) sum += a[i] * x[i];
    for (int k = 0; k < 32; ++k) sum += acc[k];
    return sum;
}

}  // namespace

void gemv(const float * W, const float * x, const float * b, float * y, int n_out, int n_in) {
    for (int o = 0; o < n_out; ++o) y[o] = (b ? b[o] : 0.0f) + dot(W + (long long)o * n_in, x, n_in);
}

void gemv_block(const float * W, const float * X, int k, const float * b, float * Y, int n_out, int n_in) {
    for (int o = 0; o < n_out; ++o) {
        const float * row = W + (long long)o * n_in;
        const float bias = b ? b[o] : 0.0f;
        for (int c = 0; c < k; ++c) Y[(long long)c * n_out + o] = bias + dot(row, X + (long long)c * n_in, n_in);
    }
}

void gemv_accumulate(const float * W, const float * x, float * y, int n_out, int n_in) {
    for (int o = 0; o < n_out; ++o) y[o] += dot(W + (long long)o * n_in, x, n_in);
}

}  // namespace parakeet
