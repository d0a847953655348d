#include "int8_decoder_vnni.h"
#include "row_split.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "cpu_ops.h"
#include "int8_decoder_rows.h"
#include "simd_math.h"
#include "simd_math_avx2.h"  // PARAKEET_TARGET_BEGIN

namespace parakeet {

#ifdef PARAKEET_X86

PARAKEET_TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512vnni,f16c")
namespace {
#define PARAKEET_I8_ROWS_DOT 1
#include "int8_decoder_rows.inc"
#undef PARAKEET_I8_ROWS_DOT
}  // namespace

void int8_rows_vnni_gemv(const Int8RowsView & w, Int8Vectors x, const float * b, float * y, bool accumulate, int r0, int r1) {
    gemv_rows(w, x, b, y, accumulate, r0, r1);
}
void int8_rows_vnni_block(const Int8RowsView & w, Int8Vectors x, int k, const float * b, float * Y, int y_stride, int r0, int r1) {
    block_rows(w, x, k, b, Y, y_stride, r0, r1);
}
PARAKEET_TARGET_END

#else  // not x86: Int8Rows::supported() is false, so these are never called

void int8_rows_vnni_gemv(const Int8RowsView &, Int8Vectors, const float *, float *, bool, int, int) {}
void int8_rows_vnni_block(const Int8RowsView &, Int8Vectors, int, const float *, float *, int, int, int) {}

#endif

bool Int8Rows::supported() {
    static const bool ok = int8_kernel_runs_here(Int8Kernel::Avx2);
    return ok;
}

Int8Kernel Int8Rows::kernel_here() {
    static const Int8Kernel k = cpu_has_avx512_vnni() ? Int8Kernel::Vnni512 : Int8Kernel::Avx2;
    return k;
}

Int8Rows::Int8Rows(Int8Rows &&) noexcept = default;
Int8Rows & Int8Rows::operator=(Int8Rows &&) noexcept = default;
Int8Rows::~Int8Rows() = default;

Int8Rows::Int8Rows(const std::vector<float> & w, int rows, int cols, Int8Kernel kernel) : rows_(rows), cols_(cols), kernel_(kernel) {
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

}  // namespace

void Int8Rows::gemv(const float * x, const float * b, float * y, bool accumulate, Int8Inputs & room, RowSplit * split) const {
    room.q.resize(size_t(stride_));
    room.scale.resize(1);
    room.scale[0] = quantize_vector(x, cols_, stride_, room.q.data());
    const Int8RowsView w{q_.data(), scale_.data(), offset_.data(), stride_};
    const Int8Vectors xq{room.q.data(), room.scale.data()};
    const bool wide = kernel_ == Int8Kernel::Vnni512;
    auto rows = [&](int r0, int r1) {
        if (wide)
            int8_rows_vnni_gemv(w, xq, b, y, accumulate, r0, r1);
        else
            int8_rows_avx2_gemv(w, xq, b, y, accumulate, r0, r1);
    };
    if (split != nullptr)
        split->run(rows_, 8, rows);
    else
        rows(0, rows_);
}

void Int8Rows::gemv_block(const float * X, int k, const float * b, float * Y, Int8Inputs & room, RowSplit * split) const {
    room.q.resize(size_t(k) * size_t(stride_));
    room.scale.resize(size_t(k));
    for (int c = 0; c < k; ++c) {
        room.scale[size_t(c)] = quantize_vector(X + size_t(c) * size_t(cols_), cols_, stride_, room.q.data() + size_t(c) * size_t(stride_));
    }
    const Int8RowsView w{q_.data(), scale_.data(), offset_.data(), stride_};
    const Int8Vectors xq{room.q.data(), room.scale.data()};
    const bool wide = kernel_ == Int8Kernel::Vnni512;
    auto rows = [&](int r0, int r1) {
        if (wide)
            int8_rows_vnni_block(w, xq, k, b, Y, rows_, r0, r1);
        else
            int8_rows_avx2_block(w, xq, k, b, Y, rows_, r0, r1);
    };
    if (split != nullptr)
        split->run(rows_, 2, rows);
    else
        rows(0, rows_);
}

}  // namespace parakeet
