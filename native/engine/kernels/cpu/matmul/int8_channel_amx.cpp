// Per-channel int8 weights × per-frame uint8 activations on AMX-INT8 (kernel id int8_channel_amx,
// weightType 'int8'; declared in amx_bf16.h).
//
// The VNNI kernel's packed panels are already what TDPBUSD takes as B (per group of 4 inputs the 32
// rows' 4 bytes: two 16-row tiles, lines 128 bytes apart), and its activation rows (ChannelRows:
// K unsigned bytes, the frame's scale and zero point) are A's rows; the int32 sums run over the whole
// row, one TDPBUSD per 16 × 16 × 64, twice BF16's inputs per instruction and no widening. The sums
// are then finished as the VNNI kernel finishes them (z·(−Σ w) added in int32, one float multiply by
// the two scales): the same numbers, bit for bit (int8_channel_matmul_tests.cpp).
#include <algorithm>
#include <cstring>

#include "amx_bf16.h"
#include "amx_tiles.inc"
#include "block_chunks.h"
#include "int8_channel_vnni.h"

namespace parakeet {

#ifdef PARAKEET_AMX

namespace {

constexpr int64_t kI8StepInputs = 64;
constexpr int64_t kI8ChunkSteps = 8;  // 512 inputs: the chunk's B lines (16 KiB) stay in L1 over the span's frame pairs

struct ChannelRowsView {
    const uint8_t * data;
    size_t stride;  // bytes per frame row
    int64_t k;
    float scale(int64_t t) const {
        float s;
        std::memcpy(&s, data + size_t(t) * stride + size_t(k), sizeof s);
        return s;
    }
    int32_t zero(int64_t t) const {
        int32_t z;
        std::memcpy(&z, data + size_t(t) * stride + size_t(k) + sizeof(float), sizeof z);
        return z;
    }
};

/** Frames [t0, t0 + count) of 32 int32 sums (c) finished into F32 rows of y through the epilogue (outputs col0 … col0 + 31). */
PARAKEET_AMX_AVX512 void store_channel_outputs(const int32_t * c, int64_t count, const ChannelRowsView & x, const PackedI8ChannelMatrix & w,
                                               float * y, size_t y_stride, const EpilogueView * ep, int64_t t0, int64_t col0) {
    const __m512 s0 = _mm512_loadu_ps(w.row_scales() + col0), s1 = _mm512_loadu_ps(w.row_scales() + col0 + 16);
    const __m512i o0 = _mm512_loadu_si512(w.row_offsets() + col0), o1 = _mm512_loadu_si512(w.row_offsets() + col0 + 16);
    for (int64_t r = 0; r < count; ++r) {
        const int64_t t = t0 + r;
        const __m512i z = _mm512_set1_epi32(x.zero(t));
        const __m512 sx = _mm512_set1_ps(x.scale(t));
        const __m512i d0 = _mm512_add_epi32(_mm512_load_si512(c + r * 32), _mm512_mullo_epi32(z, o0));
        const __m512i d1 = _mm512_add_epi32(_mm512_load_si512(c + r * 32 + 16), _mm512_mullo_epi32(z, o1));
        __m512 v[1][2] = {
                {_mm512_mul_ps(_mm512_cvtepi32_ps(d0), _mm512_mul_ps(s0, sx)), _mm512_mul_ps(_mm512_cvtepi32_ps(d1), _mm512_mul_ps(s1, sx))}};
        if (ep != nullptr) finish_tile<1>(v, *ep, t, col0);  // packed_op.h: bias, SiLU, residual, ReLU, mask
        float * yr = y + size_t(t) * y_stride + size_t(col0);
        _mm512_storeu_ps(yr, v[0][0]);
        _mm512_storeu_ps(yr + 16, v[0][1]);
    }
}

/**
 * Panel `panel` for frames [f0, f1) of x: frame pairs of A tiles read from the activation rows
 * (`tail`: the span's last, partial frame tile, copied into zero-padded rows, since reading 16 rows
 * there would run past the tensor), chunks of kI8ChunkSteps steps, sums staged per chunk.
 */
PARAKEET_AMX_AVX512 void channel_panel(const ChannelRowsView & x, const uint8_t * tail, int64_t f0, int64_t f1, const PackedI8ChannelMatrix & w,
                                       int64_t panel, int32_t * stage, float * y, size_t y_stride, const EpilogueView * ep, PanelPrefetch next) {
    const size_t b_line = 128, a_line = x.stride;
    const int64_t steps = w.cols() / kI8StepInputs, frames = f1 - f0;
    const int64_t full_tiles = frames / kTileFrames;
    auto tile_rows = [&](int64_t ft) { return ft < full_tiles ? x.data + size_t(f0 + ft * kTileFrames) * x.stride : tail; };
    const int8_t * wp = w.panel_weights(panel);
    for (int64_t s0 = 0; s0 < steps; s0 += kI8ChunkSteps) {
        const int64_t s1 = std::min(steps, s0 + kI8ChunkSteps);
        for (int64_t f = 0; f < frames; f += 2 * kTileFrames) {
            int32_t * c = stage + size_t(f) * 32;
            const uint8_t * a0 = tile_rows(f / kTileFrames);
            if (frames - f > kTileFrames) {
                const uint8_t * a1 = tile_rows(f / kTileFrames + 1);
                start_pair_sums(c, s0 == 0);
                for (int64_t s = s0; s < s1; ++s) {
                    next.step();
                    const int8_t * b = wp + size_t(s) * 16 * 128;
                    asm volatile(
                            "tileloadd (%0,%4,1), %%tmm0\n\t"
                            "tileloadd (%1,%4,1), %%tmm1\n\t"
                            "tileloadd (%2,%5,1), %%tmm2\n\t"
                            "tileloadd (%3,%5,1), %%tmm3\n\t"
                            "tdpbusd %%tmm2, %%tmm0, %%tmm4\n\t"
                            "tdpbusd %%tmm3, %%tmm0, %%tmm5\n\t"
                            "tdpbusd %%tmm2, %%tmm1, %%tmm6\n\t"
                            "tdpbusd %%tmm3, %%tmm1, %%tmm7\n\t" ::"r"(a0 + s * kI8StepInputs),
                            "r"(a1 + s * kI8StepInputs), "r"(b), "r"(b + 64), "r"(a_line), "r"(b_line)
                            : "memory");
                }
                end_pair_sums(c);
            } else {
                start_tile_sums(c, s0 == 0);
                for (int64_t s = s0; s < s1; ++s) {
                    next.step();
                    const int8_t * b = wp + size_t(s) * 16 * 128;
                    asm volatile(
                            "tileloadd (%0,%3,1), %%tmm0\n\t"
                            "tileloadd (%1,%4,1), %%tmm2\n\t"
                            "tileloadd (%2,%4,1), %%tmm3\n\t"
                            "tdpbusd %%tmm2, %%tmm0, %%tmm4\n\t"
                            "tdpbusd %%tmm3, %%tmm0, %%tmm5\n\t" ::"r"(a0 + s * kI8StepInputs),
                            "r"(b), "r"(b + 64), "r"(a_line), "r"(b_line)
                            : "memory");
                }
                end_tile_sums(c);
            }
        }
    }
    store_channel_outputs(stage, frames, x, w, y, y_stride, ep, f0, panel * 32);
}

PARAKEET_AMX_AVX512 void channel_items(const PackedI8ChannelMatrix & w, const ChannelRowsView & x, int64_t frames, float * y, size_t y_stride,
                                       PanelItems & items, const EpilogueView * ep) {
    thread_local Scratch sums, tail_rows;
    const int64_t steps = w.cols() / kI8StepInputs;
    const int64_t span = span_frames(x.stride, frames);
    const int64_t spans = (frames + span - 1) / span;
    int32_t * stage =
            reinterpret_cast<int32_t *>(sums.get(size_t((span + 2 * kTileFrames - 1) / (2 * kTileFrames)) * 2 * kTileFrames * 32 * sizeof(int32_t)));
    uint8_t * tail = reinterpret_cast<uint8_t *>(tail_rows.get(size_t(kTileFrames) * x.stride));
    if (stage == nullptr || tail == nullptr) GGML_ABORT("amx_bf16: out of memory for %lld inputs", (long long)w.cols());
    const TileConfig config = full_tiles();
    load_tile_config(config);
    items.start(spans);
    int64_t tail_of = -1;  // the span whose last tile `tail` holds
    for (int64_t s = 0, p = 0; items.next(s, p);) {
        const int64_t f0 = s * span, f1 = std::min(frames, f0 + span);
        const int64_t rest = (f1 - f0) % kTileFrames;
        if (rest != 0 && tail_of != s) {
            std::memset(tail, 0, size_t(kTileFrames) * x.stride);
            std::memcpy(tail, x.data + size_t(f1 - rest) * x.stride, size_t(rest) * x.stride);
            tail_of = s;
        }
        int64_t upcoming = 0;
        const int64_t pairs = (f1 - f0 + 2 * kTileFrames - 1) / (2 * kTileFrames);
        const PanelPrefetch next = items.upcoming_panel(upcoming)
                                           ? PanelPrefetch(w.panel_weights(upcoming), size_t(w.cols()) * 32, nullptr, 0, pairs * steps)
                                           : PanelPrefetch();
        channel_panel(x, tail, f0, f1, w, p, stage, y, y_stride, ep, next);
    }
    items.finish();
    release_tiles();
}

void channel_amx_op(ggml_tensor * dst, int, int nth, void * userdata) {
    const auto & config = *static_cast<const PackedOpConfig<PackedI8ChannelMatrix> *>(userdata);
    const PackedI8ChannelMatrix & w = *config.matrix;
    const ggml_tensor * xq = dst->src[0];
    PanelItems items = PanelItems::shared(dst, w.rows() / 32, nth);
    const EpilogueView view(dst, config.mode);
    channel_items(w, ChannelRowsView{static_cast<const uint8_t *>(xq->data), xq->nb[1], w.cols()}, xq->ne[1], static_cast<float *>(dst->data),
                  dst->nb[1] / sizeof(float), items, &view);
}

}  // namespace

bool channel_amx_fits(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % kI8StepInputs == 0 && cols > 0; }

ggml_tensor * channel_amx_apply(ggml_context * ctx, ggml_tensor * xq, const PackedI8ChannelMatrix & w,
                                const PackedOpConfigs<PackedI8ChannelMatrix> & configs, const char * weight_name, const Epilogue & e) {
    GGML_ASSERT(xq->type == GGML_TYPE_I8 && xq->ne[0] == int64_t(channel_activation_row_bytes(w.cols())) && xq->ne[2] == 1 && xq->ne[3] == 1);
    ggml_tensor * y = packed_matmul_node(ctx, xq, w.rows(), xq->ne[1], e, channel_amx_op, configs.get(&w, EpilogueMode::of(e)));
    ggml_format_name(y, "amx_i8c_gemm:%s", weight_name);
    return y;
}

#else

bool channel_amx_fits(int64_t, int64_t) { return false; }
ggml_tensor * channel_amx_apply(ggml_context *, ggml_tensor * xq, const PackedI8ChannelMatrix &, const PackedOpConfigs<PackedI8ChannelMatrix> &,
                                const char *, const Epilogue &) {
    return xq;
}

#endif

}  // namespace parakeet
