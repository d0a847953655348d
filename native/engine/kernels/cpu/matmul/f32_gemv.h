// Dense matrix–vector products for the sequential decoders (prediction LSTM,
// joint). These run once per decoding step on the CPU, so they are written to
// vectorize, and dispatched per CPU on x86-64 Linux (AVX-512 / AVX2 / baseline).
#pragma once

namespace parakeet {

class RowSplit;

// With `split`, the rows are shared between the caller and the split's helper thread (row_split.h);
// every row's numbers are the same either way.

/** y[o] = (b ? b[o] : 0) + Σ_i W[o·n_in + i]·x[i]   (W row-major [n_out][n_in]) */
void gemv(const float * W, const float * x, const float * b, float * y, int n_out, int n_in, RowSplit * split = nullptr);

/** y[o] += Σ_i W[o·n_in + i]·x[i] */
void gemv_accumulate(const float * W, const float * x, float * y, int n_out, int n_in, RowSplit * split = nullptr);

/**
 * k vectors at once: Y[c][o] = b[o] + Σ_i W[o·n_in + i]·X[c][i]. Each row of W
 * is read from memory once for all k vectors (it stays in L1), which is what
 * makes a block of joint evaluations cheaper than k separate ones.
 */
void gemv_block(const float * W, const float * X, int k, const float * b, float * Y, int n_out, int n_in, RowSplit * split = nullptr);

}  // namespace parakeet
