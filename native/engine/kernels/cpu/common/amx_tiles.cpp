// F32 frames as BF16 activation tiles (ActivationFormat::Bf16Tiles, amx_bf16.h): the conversion node
// every AMX matmul's input goes through (or a producer's row writer, amx_tile_row), shared by the
// f32_amx_bf16, q8_0_amx_bf16 and attention_amx_bf16 kernels.
#include "amx_tiles.h"

#include "amx_bf16.h"
#include "block_chunks.h"
#include "simd_math.h"

namespace parakeet {

ggml_tensor * amx_tiles_view(ggml_context * ctx, ggml_tensor * padded, int64_t frames) {
    return ggml_view_2d(ctx, padded, padded->ne[0], frames, padded->nb[1], 0);
}

#ifdef PARAKEET_AMX

namespace amx_tiles {

PARAKEET_AMX_AVX512 void activation_tiles(const float * x, size_t x_stride, int64_t frames, int64_t k, int64_t tile_begin, int64_t tile_end,
                                          uint16_t * a) {
    const int64_t steps = k / 32;
    for (int64_t ft = tile_begin; ft < tile_end; ++ft) {
        for (int64_t r = 0; r < kTileFrames; ++r) {
            const int64_t t = ft * kTileFrames + r;
            if (t < frames) {
                amx_tile_row(x + size_t(t) * x_stride, k, reinterpret_cast<uint8_t *>(a), t);
                continue;
            }
            uint16_t * row = a + amx_tile_line(t, k, 0);
            for (int64_t s = 0; s < steps; ++s) _mm512_storeu_si512(row + size_t(s) * 512, _mm512_setzero_si512());
        }
    }
}

}  // namespace amx_tiles

namespace {

using amx_tiles::activation_tiles;
using amx_tiles::kTileFrames;

/** The ggml op that writes x's frames as BF16 tiles: this thread's share of the frame tiles. */
void activation_tiles_op(ggml_tensor * dst, int ith, int nth, void *) {
    const ggml_tensor * x = dst->src[0];
    const int64_t frames = x->ne[1], k = x->ne[0];
    const ThreadShare share = thread_share((frames + kTileFrames - 1) / kTileFrames, ith, nth);
    activation_tiles(static_cast<const float *>(x->data), x->nb[1] / sizeof(float), frames, k, share.begin, share.end,
                     static_cast<uint16_t *>(dst->data));
}

ggml_tensor * activation_tiles_node(ggml_context * ctx, ggml_tensor * x, const char * weight_name) {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && x->nb[0] == sizeof(float) && x->nb[1] % sizeof(float) == 0 && x->ne[0] % 32 == 0 && x->ne[2] == 1 &&
                x->ne[3] == 1);
    ggml_tensor * args[] = {x};
    ggml_tensor * tiles =
            ggml_custom_4d(ctx, GGML_TYPE_I8, 2 * x->ne[0], amx_tile_frames(x->ne[1]), 1, 1, args, 1, activation_tiles_op, GGML_N_TASKS_MAX, nullptr);
    ggml_format_name(tiles, "amx_tiles:%s", weight_name);
    return amx_tiles_view(ctx, tiles, x->ne[1]);
}

}  // namespace

ggml_tensor * amx_activation_tiles(ggml_context * ctx, ggml_tensor * x, const char * weight_name) {
    return activation_tiles_node(ctx, x, weight_name);
}

PARAKEET_AMX_AVX512 void amx_tile_row(const float * x, int64_t k, uint8_t * tiles, int64_t t) {
    const int64_t steps = k / 32;
    uint16_t * row = reinterpret_cast<uint16_t *>(tiles) + amx_tile_line(t, k, 0);
    for (int64_t s = 0; s < steps; ++s) {
        const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + s * 32 + 16), _mm512_loadu_ps(x + s * 32));
        _mm512_storeu_si512(row + size_t(s) * 512, reinterpret_cast<const __m512i &>(v));
    }
}

#else

ggml_tensor * amx_activation_tiles(ggml_context *, ggml_tensor * x, const char *) { return x; }
void amx_tile_row(const float *, int64_t, uint8_t *, int64_t) {}

#endif

}  // namespace parakeet
