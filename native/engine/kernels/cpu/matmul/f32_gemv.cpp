#include "f32_gemv.h"
#include "row_split.h"

#include "cpu_ops.h"
#include "simd_math.h"

namespace parakeet {

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PARAKEET_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PARAKEET_CLONES
#endif

namespace {

// Portable path (no AVX-512): 32 independent partial sums, which the compiler turns into several
// SIMD accumulators (hiding FMA latency) without reassociating a single sum, which it may not do
// under strict IEEE.
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

#ifdef PARAKEET_X86
// AVX-512: R weight rows × C input vectors per pass, one 16-lane accumulator each (R·C = 8
// independent FMA chains, enough to cover the FMA latency), each row chunk loaded once for all C
// vectors and each vector chunk once for all R rows. The old one-row dot ran 2 FMA chains and
// then summed its 32 partial sums one by one, a 32-add dependency chain per row that took longer
// than the row's 40 FMAs. What is left is the weights streaming from L3 (8–21 MB per emitted
// token, int8_decoder_vnni.h).
template <int R, int C>
PARAKEET_AVX512 inline void dot_tile(const float * W, long long w_stride, const float * X, long long x_stride, int n, float (&out)[R][C]) {
    __m512 acc[R][C];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
    }
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 xv[C];
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) xv[c] = _mm512_loadu_ps(X + c * x_stride + i);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m512 wv = _mm512_loadu_ps(W + r * w_stride + i);
#pragma GCC unroll 8
            for (int c = 0; c < C; ++c) fma_into(acc[r][c], wv, xv[c]);
        }
    }
    if (i < n) {
        const __mmask16 m = __mmask16((1u << (n - i)) - 1u);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m512 wv = _mm512_maskz_loadu_ps(m, W + r * w_stride + i);
#pragma GCC unroll 8
            for (int c = 0; c < C; ++c) fma_into(acc[r][c], wv, _mm512_maskz_loadu_ps(m, X + c * x_stride + i));
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) out[r][c] = _mm512_reduce_add_ps(acc[r][c]);
    }
}

/** y[o] = (b ? b[o] : 0) + (accumulate ? y[o] : 0) + W[o]·x. */
PARAKEET_AVX512 void gemv_avx512(const float * W, const float * x, const float * b, float * y, int n_out, int n_in, bool accumulate) {
    int o = 0;
    for (; o + 8 <= n_out; o += 8) {
        float d[8][1];
        dot_tile<8, 1>(W + (long long)o * n_in, n_in, x, 0, n_in, d);
        for (int r = 0; r < 8; ++r) y[o + r] = (accumulate ? y[o + r] : 0.0f) + (b ? b[o + r] : 0.0f) + d[r][0];
    }
    for (; o < n_out; ++o) {
        float d[1][1];
        dot_tile<1, 1>(W + (long long)o * n_in, n_in, x, 0, n_in, d);
        y[o] = (accumulate ? y[o] : 0.0f) + (b ? b[o] : 0.0f) + d[0][0];
    }
}

/** Y[c][o] = b[o] + W[o]·X[c] for k vectors: 2 rows × 4 vectors per pass. */
PARAKEET_AVX512 void gemv_block_avx512(const float * W, const float * X, int k, const float * b, float * Y, long long y_stride, int n_out, int n_in) {
    const long long xs = n_in;
    int o = 0;
    for (; o + 2 <= n_out; o += 2) {
        const float * rows = W + (long long)o * n_in;
        int c = 0;
        for (; c + 4 <= k; c += 4) {
            float d[2][4];
            dot_tile<2, 4>(rows, n_in, X + c * xs, xs, n_in, d);
            for (int r = 0; r < 2; ++r) {
                for (int j = 0; j < 4; ++j) Y[(long long)(c + j) * y_stride + o + r] = (b ? b[o + r] : 0.0f) + d[r][j];
            }
        }
        for (; c < k; ++c) {
            float d[2][1];
            dot_tile<2, 1>(rows, n_in, X + c * xs, xs, n_in, d);
            for (int r = 0; r < 2; ++r) Y[(long long)c * y_stride + o + r] = (b ? b[o + r] : 0.0f) + d[r][0];
        }
    }
    for (; o < n_out; ++o) {
        for (int c = 0; c < k; ++c) {
            float d[1][1];
            dot_tile<1, 1>(W + (long long)o * n_in, n_in, X + c * xs, xs, n_in, d);
            Y[(long long)c * y_stride + o] = (b ? b[o] : 0.0f) + d[0][0];
        }
    }
}
#endif

bool use_avx512() {
    static const bool ok = cpu_has_avx512f();
    return ok;
}

// One contiguous range of rows (a sub-matrix): the caller offsets W, b and y.
void gemv_rows(const float * W, const float * x, const float * b, float * y, int n_out, int n_in, bool accumulate) {
#ifdef PARAKEET_X86
    if (use_avx512()) return gemv_avx512(W, x, b, y, n_out, n_in, accumulate);
#endif
    for (int o = 0; o < n_out; ++o) y[o] = (accumulate ? y[o] : 0.0f) + (b ? b[o] : 0.0f) + dot(W + (long long)o * n_in, x, n_in);
}

void gemv_block_rows(const float * W, const float * X, int k, const float * b, float * Y, long long y_stride, int n_out, int n_in) {
#ifdef PARAKEET_X86
    if (use_avx512()) return gemv_block_avx512(W, X, k, b, Y, y_stride, n_out, n_in);
#endif
    for (int o = 0; o < n_out; ++o) {
        const float * row = W + (long long)o * n_in;
        const float bias = b ? b[o] : 0.0f;
        for (int c = 0; c < k; ++c) Y[(long long)c * y_stride + o] = bias + dot(row, X + (long long)c * n_in, n_in);
    }
}

void gemv_split(const float * W, const float * x, const float * b, float * y, int n_out, int n_in, bool accumulate, RowSplit * split) {
    auto rows = [&](int r0, int r1) { gemv_rows(W + (long long)r0 * n_in, x, b ? b + r0 : nullptr, y + r0, r1 - r0, n_in, accumulate); };
    if (split != nullptr)
        split->run(n_out, 8, rows);
    else
        rows(0, n_out);
}

}  // namespace

void gemv(const float * W, const float * x, const float * b, float * y, int n_out, int n_in, RowSplit * split) {
    gemv_split(W, x, b, y, n_out, n_in, false, split);
}

void gemv_block(const float * W, const float * X, int k, const float * b, float * Y, int n_out, int n_in, RowSplit * split) {
    auto rows = [&](int r0, int r1) { gemv_block_rows(W + (long long)r0 * n_in, X, k, b ? b + r0 : nullptr, Y + r0, n_out, r1 - r0, n_in); };
    if (split != nullptr)
        split->run(n_out, 2, rows);
    else
        rows(0, n_out);
}

void gemv_accumulate(const float * W, const float * x, float * y, int n_out, int n_in, RowSplit * split) {
    gemv_split(W, x, nullptr, y, n_out, n_in, true, split);
}

}  // namespace parakeet
