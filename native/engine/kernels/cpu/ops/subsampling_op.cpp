// Fused conv.0 + ReLU + mask + depthwise conv (see subsampling_op.h).
//
// Threads split the output rows (time) of the depthwise conv. Each walks its
// rows keeping the conv.0 rows they read in a ring of three [freq][C] rows:
// output row o reads conv.0 rows 2o−1 … 2o+1 and the next one 2o+1 … 2o+3, so
// each output row computes two new rows and keeps one, then is 9 taps of
// channel vectors over the three. Indexing is NeMo's (kernel 3, stride 2,
// padding 1): output o reads inputs 2o−1 … 2o+1, zero outside the image.
#include "subsampling_op.h"
#include "activation_rows.h"
#include "cpu_ops.h"
#include "subsampling_avx2.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "simd_math.h"

namespace parakeet {
namespace {

inline int64_t out_len(int64_t n) { return (n - 1) / 2 + 1; }

#if defined(__x86_64__) || defined(_M_X64)

// conv.0 output row h1 (all W1 columns, C channels) into `out` [W1][C]; zero when outside [0, H1)
// or masked.
PARAKEET_AVX512 void conv0_row(const float * mel, int64_t m_bins, int64_t rows, int64_t h1, int64_t w1_count, int64_t c_count, const float * taps,
                               const float * bias, float keep, float * out) {
    if (keep == 0.0f) {
        std::memset(out, 0, size_t(w1_count * c_count) * sizeof(float));
        return;
    }
    // The 9 input pixels of every output column first (zero outside the image), then channel block
    // by channel block with that block's 9 taps in registers: per column, 9 broadcasts and FMAs.
    // (Column by column the taps were loaded again for every column: twice the loads, 1.7 → 1.3 ms
    // for the whole op on 110M at 10 s.)
    thread_local std::vector<float> pixels;
    conv0_pixels(mel, m_bins, rows, h1, w1_count, pixels);
    for (int64_t c = 0; c < c_count; c += 16) {
        __m512 tap[9];
        for (int t = 0; t < 9; ++t) tap[t] = _mm512_loadu_ps(taps + t * c_count + c);
        const __m512 b = _mm512_loadu_ps(bias + c);
        for (int64_t w1 = 0; w1 < w1_count; ++w1) {
            const float * px = pixels.data() + w1 * 9;
            __m512 acc = b;
            for (int t = 0; t < 9; ++t) acc = _mm512_fmadd_ps(_mm512_set1_ps(px[t]), tap[t], acc);
            acc = _mm512_max_ps(acc, _mm512_setzero_ps());  // ReLU
            if (keep != 1.0f) acc = _mm512_mul_ps(acc, _mm512_set1_ps(keep));
            _mm512_storeu_ps(out + w1 * c_count + c, acc);
        }
    }
}

// One output row of a 3×3 stride-2 depthwise conv with padding 1 (NeMo dw_striding's conv.2 and
// conv.5, the Conv2d with groups = C): output column w2 reads input columns 2·w2−1 … 2·w2+1 of the
// three input rows (nullptr: a zero row, outside the image), channels fastest: [w][c]. Column by
// column, the taps loaded each time: then a column's 3 × 3 patch of channel rows stays in L1 over
// its channel blocks. With each block's taps in registers, as conv0_row keeps them, the patches
// came from L2: 1.3 → 1.5 ms for the fused front on 110M at 10 s.
PARAKEET_AVX512 void depthwise_row(const float * const (&in_rows)[3], int64_t w_in, int64_t c_count, const float * dw, float * out_row,
                                   int64_t w_out) {
    for (int64_t w2 = 0; w2 < w_out; ++w2) {
        for (int64_t c = 0; c < c_count; c += 16) {
            __m512 acc = _mm512_setzero_ps();
            for (int ky = 0; ky < 3; ++ky) {
                if (in_rows[ky] == nullptr) continue;
                for (int kx = 0; kx < 3; ++kx) {
                    const int64_t w1 = 2 * w2 - 1 + kx;
                    if (w1 < 0 || w1 >= w_in) continue;
                    acc = _mm512_fmadd_ps(_mm512_loadu_ps(dw + (ky * 3 + kx) * c_count + c), _mm512_loadu_ps(in_rows[ky] + w1 * c_count + c), acc);
                }
            }
            _mm512_storeu_ps(out_row + w2 * c_count + c, acc);
        }
    }
}

// Where the ops put output row h2 (W' positions × C channels): into an F32 dst [C, W', H'] as it
// is, or, where the next matmul reads a packed activation format, through a per-thread row into
// dst's rows in that format (one per position, h2·W' + w2), so no F32 tensor of the whole stage
// (8 MB for 10 s after the first depthwise conv) is written and read back by a quantize node.
struct OutputRows {
    ggml_tensor * dst;
    ActivationFormat format;
    int64_t channels, width;

    int64_t height() const { return format == ActivationFormat::None ? dst->ne[2] : dst->ne[1] / width; }
    float * begin(int64_t h2, std::vector<float> & scratch) const {
        if (format == ActivationFormat::None) return reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(h2) * dst->nb[2]);
        scratch.resize(size_t(channels * width));
        return scratch.data();
    }
    void end(int64_t h2, const float * row) const {
        if (format == ActivationFormat::None) return;
        for (int64_t w = 0; w < width; ++w) {
            quantize_activation_row(format, row + w * channels, channels, static_cast<uint8_t *>(dst->data) + size_t(h2 * width + w) * dst->nb[1]);
        }
    }
};

ActivationFormat format_of(const void * userdata) { return static_cast<ActivationFormat>(reinterpret_cast<intptr_t>(userdata)); }

/** The two row steps of this CPU: AVX-512 (above) or AVX2 (subsampling_avx2.cpp). */
struct RowSteps {
    void (*conv0)(const float *, int64_t, int64_t, int64_t, int64_t, int64_t, const float *, const float *, float, float *);
    void (*depthwise)(const float * const (&)[3], int64_t, int64_t, const float *, float *, int64_t);
};
const RowSteps & row_steps() {
    static const RowSteps steps = cpu_has_avx512f() ? RowSteps{conv0_row, depthwise_row} : RowSteps{conv0_row_avx2, depthwise_row_avx2};
    return steps;
}

void front_rows(const ggml_tensor * mel_t, const float * taps, const float * bias, const float * mask1, const float * dw, const OutputRows & out_rows,
                int64_t first, int64_t last, std::vector<float> & buf, std::vector<float> & row_scratch) {
    const RowSteps & steps = row_steps();
    const int64_t m_bins = mel_t->ne[0], rows = mel_t->ne[1];
    const int64_t h1_count = out_len(rows), w1_count = out_len(m_bins);
    const int64_t w2_count = out_rows.width, c_count = out_rows.channels;
    const float * mel = static_cast<const float *>(mel_t->data);
    const size_t row_floats = size_t(w1_count * c_count);
    // The ring (3 × W1 × C floats: 192 KB at C = 256) stays in L2; chunks of 17 rows (1.1 MB)
    // went out to L3 between conv.0 and the depthwise taps.
    buf.resize(3 * row_floats);
    const auto slot = [&](int64_t r) { return buf.data() + size_t((r % 3 + 3) % 3) * row_floats; };  // r ≥ −1
    int64_t computed = 2 * first - 2;                                                                // the last conv.0 row in the ring (none yet)
    for (int64_t h2 = first; h2 < last; ++h2) {
        for (int64_t r = std::max(computed + 1, 2 * h2 - 1); r <= 2 * h2 + 1; ++r) {
            const bool inside = r >= 0 && r < h1_count;
            const float keep = !inside ? 0.0f : (mask1 != nullptr ? mask1[r] : 1.0f);
            steps.conv0(mel, m_bins, rows, r, w1_count, c_count, taps, bias, keep, slot(r));
        }
        computed = 2 * h2 + 1;
        float * out_row = out_rows.begin(h2, row_scratch);
        const float * in_rows[3] = {slot(2 * h2 - 1), slot(2 * h2), slot(2 * h2 + 1)};
        steps.depthwise(in_rows, w1_count, c_count, dw, out_row, w2_count);
        out_rows.end(h2, out_row);
    }
}

void front_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    const ggml_tensor *mel = dst->src[0], *w0 = dst->src[1], *b0 = dst->src[2], *dw = dst->src[3], *mask = dst->src[4];
    const int64_t c_count = w0->ne[1];
    const OutputRows out_rows{dst, format_of(userdata), c_count, out_len(out_len(mel->ne[0]))};
    const int64_t h2_count = out_rows.height();
    thread_local std::vector<float> taps, buf, row_scratch;
    taps.resize(size_t(9 * c_count));
    const float * w = static_cast<const float *>(w0->data);
    for (int64_t c = 0; c < c_count; ++c)
        for (int t = 0; t < 9; ++t) taps[size_t(t * c_count + c)] = w[c * 16 + t];
    const ThreadShare share = thread_share(h2_count, ith, nth);
    const int64_t first = share.begin, last = share.end;
    front_rows(mel, taps.data(), static_cast<const float *>(b0->data), mask != nullptr ? static_cast<const float *>(mask->data) : nullptr,
               static_cast<const float *>(dw->data), out_rows, first, last, buf, row_scratch);
}

// The later stages' depthwise conv on [C, W, H] (contiguous) → [C, W', H']: threads split the
// output rows. ggml's CONV_2D_DW took 1.3 ms of a 110M encoder's 58 on 10 s (one thread) for
// 4.6 M multiply-adds.
void depthwise_op(ggml_tensor * dst, int ith, int nth, void * userdata) {
    const ggml_tensor *x = dst->src[0], *dw = dst->src[1];
    const int64_t c_count = x->ne[0], w_in = x->ne[1], h_in = x->ne[2];
    const OutputRows out_rows{dst, format_of(userdata), c_count, out_len(w_in)};
    thread_local std::vector<float> row_scratch;
    const ThreadShare share = thread_share(out_rows.height(), ith, nth);
    for (int64_t h2 = share.begin; h2 < share.end; ++h2) {
        const float * in_rows[3];
        for (int ky = 0; ky < 3; ++ky) {
            const int64_t r = 2 * h2 - 1 + ky;
            in_rows[ky] = r >= 0 && r < h_in ? reinterpret_cast<const float *>(static_cast<const char *>(x->data) + size_t(r) * x->nb[2]) : nullptr;
        }
        float * out_row = out_rows.begin(h2, row_scratch);
        row_steps().depthwise(in_rows, w_in, c_count, static_cast<const float *>(dw->data), out_row, out_rows.width);
        out_rows.end(h2, out_row);
    }
}

#else

void front_op(ggml_tensor *, int, int, void *) {}
void depthwise_op(ggml_tensor *, int, int, void *) {}

#endif

}  // namespace

namespace {

void flatten_op(ggml_tensor * dst, int ith, int nth, void *) {
    const ggml_tensor * x = dst->src[0];
    const int64_t C = x->ne[0], F = x->ne[1], T = x->ne[2];
    const ThreadShare share = thread_share(T, ith, nth);
    for (int64_t t = share.begin; t < share.end; ++t) {
        const float * in = reinterpret_cast<const float *>(static_cast<const char *>(x->data) + size_t(t) * x->nb[2]);
        float * out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + size_t(t) * dst->nb[1]);
        for (int64_t c = 0; c < C; ++c) {
            for (int64_t f = 0; f < F; ++f) out[c * F + f] = in[f * C + c];
        }
    }
}

}  // namespace

ggml_tensor * flatten_channels_major(ggml_context * ctx, ggml_tensor * x) {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && ggml_is_contiguous(x) && x->ne[3] == 1);
    ggml_tensor * args[] = {x};
    ggml_tensor * y = ggml_custom_4d(ctx, GGML_TYPE_F32, x->ne[0] * x->ne[1], x->ne[2], 1, 1, args, 1, flatten_op, GGML_N_TASKS_MAX, nullptr);
    ggml_set_name(y, "subsampling_flatten");
    return y;
}

bool fused_subsampling_available() {
    static const bool ok = cpu_has_avx512f() || cpu_has_avx2();
    return ok;
}

namespace {

// The op's output: [C, W, H] F32, or one row per position (h·W + w) in `format`.
DepthwiseOutput depthwise_output(ggml_context * ctx, int64_t C, int64_t W, int64_t H, ActivationFormat format, ggml_tensor ** args, int n_args,
                                 ggml_custom_op_t op, const char * name) {
    GGML_ASSERT(format == ActivationFormat::None || C % 32 == 0);
    void * userdata = reinterpret_cast<void *>(intptr_t(format));
    ggml_tensor * y = format == ActivationFormat::None ? ggml_custom_4d(ctx, GGML_TYPE_F32, C, W, H, 1, args, n_args, op, GGML_N_TASKS_MAX, userdata)
                                                       : ggml_custom_4d(ctx, GGML_TYPE_I8, int64_t(activation_row_bytes(format, C)), W * H, 1, 1,
                                                                        args, n_args, op, GGML_N_TASKS_MAX, userdata);
    ggml_set_name(y, name);
    return DepthwiseOutput{y, W, H};
}

}  // namespace

DepthwiseOutput fused_subsampling_front(ggml_context * ctx, ggml_tensor * mel, ggml_tensor * conv0_w, ggml_tensor * conv0_b,
                                        ggml_tensor * stage1_mask, ggml_tensor * dw_w, ActivationFormat format) {
    GGML_ASSERT(mel->type == GGML_TYPE_F32 && ggml_is_contiguous(mel) && conv0_w->ne[0] == 16);
    const int64_t C = conv0_w->ne[1];
    GGML_ASSERT(C % 16 == 0 && ggml_is_contiguous(conv0_w) && ggml_is_contiguous(dw_w) && ggml_nelements(dw_w) == 9 * C);
    ggml_tensor * args[] = {mel, conv0_w, conv0_b, dw_w, stage1_mask};
    return depthwise_output(ctx, C, out_len(out_len(mel->ne[0])), out_len(out_len(mel->ne[1])), format, args, stage1_mask != nullptr ? 5 : 4,
                            front_op, "subsampling_front_fused");
}

DepthwiseOutput depthwise_stride2(ggml_context * ctx, ggml_tensor * x, ggml_tensor * dw_w, ActivationFormat format) {
    const int64_t C = x->ne[0];
    GGML_ASSERT(x->type == GGML_TYPE_F32 && ggml_is_contiguous(x) && x->ne[3] == 1 && C % 16 == 0);
    GGML_ASSERT(ggml_is_contiguous(dw_w) && ggml_nelements(dw_w) == 9 * C);
    ggml_tensor * args[] = {x, dw_w};
    return depthwise_output(ctx, C, out_len(x->ne[1]), out_len(x->ne[2]), format, args, 2, depthwise_op, "subsampling_depthwise");
}

}  // namespace parakeet
