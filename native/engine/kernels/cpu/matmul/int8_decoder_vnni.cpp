#include "int8_decoder_vnni.h"
#include "row_split.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "cpu_ops.h"
#include "simd_math.h"

namespace parakeet {

bool Int8Rows::supported() {
    static const bool ok = cpu_has_avx512_vnni();
    return ok;
}

Int8Rows::Int8Rows(Int8Rows &&) noexcept = default;
Int8Rows & Int8Rows::operator=(Int8Rows &&) noexcept = default;
Int8Rows::~Int8Rows() = default;

Int8Rows::Int8Rows(const std::vector<float> & w, int rows, int cols) : rows_(rows), cols_(cols) {
    stride_ = (cols + 63) / 64 * 64;
    q_.assign(size_t(rows) * size_t(stride_), 0);
    scale_.resize(size_t(rows));
    offset_.resize(size_t(rows));
    for (int r = 0; r < rows; ++r) {
        const float * wr = w.data() + size_t(r) * size_t(cols);
        float amax = 0.0f;
        for (int c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(wr[c]));
        // A row of zeros or subnormals (127/amax would overflow) is stored as zeros. The load has
        // already refused non-finite weights (weight_check.h).
        if (!(amax >= FLT_MIN)) amax = 0.0f;
        const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
        int8_t * qr = q_.data() + size_t(r) * size_t(stride_);
        int32_t sum = 0;
        for (int c = 0; c < cols; ++c) {
            qr[c] = int8_t(std::max(-127.0f, std::min(127.0f, std::nearbyint(wr[c] * inv))));
            sum += qr[c];
        }
        scale_[size_t(r)] = amax / 127.0f;
        offset_[size_t(r)] = -128 * sum;
    }
}

namespace {

/** x → round(x/s) + 128 in [1, 255] with s = max|x|/127; the padding holds 128 (zero). Returns s. */
float quantize_vector(const float * x, int n, int stride, uint8_t * q) {
    float amax = 0.0f;
    for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
    // Zeros, subnormals only, or a non-finite value (which finite weights and audio cannot make):
    // all 128 (zero) with scale 0, never a conversion of NaN or infinity.
    if (!(amax >= FLT_MIN && amax <= FLT_MAX)) {
        std::memset(q, 128, size_t(stride));
        return 0.0f;
    }
    const float inv = 127.0f / amax;
    for (int i = 0; i < n; ++i) q[i] = uint8_t(int(std::nearbyint(x[i] * inv)) + 128);
    std::memset(q + n, 128, size_t(stride - n));
    return amax / 127.0f;
}

#ifdef PARAKEET_X86
// R rows × C vectors per pass, one int32 accumulator each (R·C = 8 chains cover VPDPBUSD's
// latency); returns the raw dot products Σ q_w·(q_x + 128).
template <int R, int C>
PARAKEET_VNNI512 inline void dot_tile(const int8_t * w, const uint8_t * x, int stride, int32_t (&out)[R][C]) {
    __m512i acc[R][C];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_si512();
    }
    for (int i = 0; i < stride; i += 64) {
        __m512i xv[C];
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) xv[c] = _mm512_loadu_si512(x + size_t(c) * size_t(stride) + size_t(i));
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m512i wv = _mm512_loadu_si512(w + size_t(r) * size_t(stride) + size_t(i));
#pragma GCC unroll 8
            for (int c = 0; c < C; ++c) dpbusd_into(acc[r][c], xv[c], wv);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) out[r][c] = _mm512_reduce_add_epi32(acc[r][c]);
    }
}

template <int R, int C>
PARAKEET_VNNI512 void rows_times_vectors(const int8_t * q, const float * scale, const int32_t * offset, const uint8_t * x, const float * xs,
                                         int stride, int row0, int rows, int vec0, int vecs, const float * b, float * Y, int y_stride,
                                         bool accumulate) {
    for (int o = row0; o + R <= rows; o += R) {
        for (int c = vec0; c + C <= vecs; c += C) {
            int32_t d[R][C];
            dot_tile<R, C>(q + size_t(o) * size_t(stride), x + size_t(c) * size_t(stride), stride, d);
            for (int r = 0; r < R; ++r) {
                for (int j = 0; j < C; ++j) {
                    // One explicit fused rounding: every tile shape gives the same numbers (the joint's
                    // blocks must equal frame-by-frame evaluation), whatever the compiler contracts.
                    float & y = Y[size_t(c + j) * size_t(y_stride) + size_t(o + r)];
                    y = std::fma(float(d[r][j] + offset[o + r]), scale[o + r] * xs[c + j], accumulate ? y : (b ? b[o + r] : 0.0f));
                }
            }
        }
    }
}
#endif

}  // namespace

void Int8Rows::gemv(const float * x, const float * b, float * y, bool accumulate, Int8Inputs & room, RowSplit * split) const {
    room.q.resize(size_t(stride_));
    room.scale.resize(1);
    room.scale[0] = quantize_vector(x, cols_, stride_, room.q.data());
#ifdef PARAKEET_X86
    auto rows = [&](int r0, int r1) {
        const int main_end = r0 + (r1 - r0) / 8 * 8;
        rows_times_vectors<8, 1>(q_.data(), scale_.data(), offset_.data(), room.q.data(), room.scale.data(), stride_, r0, main_end, 0, 1, b, y, 0,
                                 accumulate);
        rows_times_vectors<1, 1>(q_.data(), scale_.data(), offset_.data(), room.q.data(), room.scale.data(), stride_, main_end, r1, 0, 1, b, y, 0,
                                 accumulate);
    };
    if (split != nullptr)
        split->run(rows_, 8, rows);
    else
        rows(0, rows_);
#else
    (void)b, (void)y, (void)accumulate, (void)room, (void)split;
#endif
}

void Int8Rows::gemv_block(const float * X, int k, const float * b, float * Y, Int8Inputs & room, RowSplit * split) const {
    room.q.resize(size_t(k) * size_t(stride_));
    room.scale.resize(size_t(k));
    for (int c = 0; c < k; ++c) {
        room.scale[size_t(c)] = quantize_vector(X + size_t(c) * size_t(cols_), cols_, stride_, room.q.data() + size_t(c) * size_t(stride_));
    }
#ifdef PARAKEET_X86
    const int main_vecs = k / 4 * 4;
    const uint8_t * xq = room.q.data();
    const float * xs = room.scale.data();
    auto rows = [&](int r0, int r1) {
        const int main_end = r0 + (r1 - r0) / 2 * 2;
        rows_times_vectors<2, 4>(q_.data(), scale_.data(), offset_.data(), xq, xs, stride_, r0, main_end, 0, main_vecs, b, Y, rows_, false);
        rows_times_vectors<2, 1>(q_.data(), scale_.data(), offset_.data(), xq, xs, stride_, r0, main_end, main_vecs, k, b, Y, rows_, false);
        rows_times_vectors<1, 1>(q_.data(), scale_.data(), offset_.data(), xq, xs, stride_, main_end, r1, 0, k, b, Y, rows_, false);
    };
    if (split != nullptr)
        split->run(rows_, 2, rows);
    else
        rows(0, rows_);
#else
    (void)b, (void)Y, (void)room, (void)split;
#endif
}

}  // namespace parakeet
