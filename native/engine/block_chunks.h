// The traversal the block-scaled VNNI kernels share (Q8_0: int8_matmul, Q4_K: q4k_matmul, 14-bit:
// int16_matmul).
//
// The frames go in spans of about kFrameSpan; for each span and each of this thread's panels of 32
// output rows, the inputs go in chunks of blocks small enough that a chunk's weights and scales stay
// in L1 while every frame tile passes over it; the span's frames go in tiles of 6, then one tile of
// the 1–5 left. Each tile also prefetches its share of the next chunk's two streams (weights,
// scales) into L2 (weight_prefetch.h): the next panel's first chunk after a panel's last, the first
// panel's after the last panel's (the next span starts there).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "packed_op.h"
#include "weight_prefetch.h"

namespace parakeet {

// Frames per span (at least; fewer than two spans' worth stay one span). Within a span every panel
// passes over the span's activations, so they must stay in L2 between panels: over all of a 60 s
// call's frames (a few MB of activation rows, and the output rows written beside them) each panel
// fetched them from L3 again: in a chain of FF matmuls at 750 frames the Q8_0 kernel ran 15–25 %
// and the 14-bit one ≈ 20 % slower than at 125 (the 0.6B Q8_0 encoder on 60 s: ≈ 5 % in all).
// Each span streams the weights once more; at 96 frames and up that is a small share of the time.
constexpr int64_t kFrameSpan = 96;

/** A stream of a packed matrix laid out per panel, then per block: its start and bytes per block. */
struct BlockStream {
    const void * base;
    size_t block_bytes;

    const char * at(int64_t panel, int64_t blocks, int64_t block) const {
        return static_cast<const char *>(base) + (size_t(panel) * size_t(blocks) + size_t(block)) * block_bytes;
    }
};

/**
 * Calls tile(std::integral_constant<int, MR>{}, t0, panel, b0, b1, accumulate, epilogue, prefetch_weights,
 * prefetch_scales) for every frame tile of every chunk of panels [p0, p1), span of frames by span;
 * `epilogue` is `view` on a panel's last chunk, else nullptr; `accumulate` is false on its first.
 */
template <int64_t ChunkBlocks, typename Tile>
void for_each_block_chunk(int64_t p0, int64_t p1, int64_t blocks, int64_t frames, const BlockStream & weights, const BlockStream & scales,
                          const EpilogueView & view, Tile && tile) {
    constexpr int kTileFrames = 6;
    const int64_t spans = std::max<int64_t>(1, frames / kFrameSpan);
    const int64_t span_frames = (frames + spans - 1) / spans;
    const int64_t span = (span_frames + kTileFrames - 1) / kTileFrames * kTileFrames;
    for (int64_t f0 = 0; f0 < frames; f0 += span) {
        const int64_t f1 = std::min(frames, f0 + span);
        const int64_t tiles = (f1 - f0 + kTileFrames - 1) / kTileFrames;
        for (int64_t p = p0; p < p1; ++p) {
            for (int64_t b0 = 0; b0 < blocks; b0 += ChunkBlocks) {
                const int64_t b1 = std::min(blocks, b0 + ChunkBlocks);
                const bool accumulate = b0 > 0;
                const bool last_chunk = b1 == blocks;
                const EpilogueView * ep = last_chunk ? &view : nullptr;
                const int64_t next_panel = !last_chunk ? p : p + 1 < p1 ? p + 1 : p0, next_b0 = !last_chunk ? b1 : 0;
                const int64_t next_blocks = std::min(ChunkBlocks, !last_chunk ? blocks - b1 : blocks);
                const PrefetchBlock next_weights{weights.at(next_panel, blocks, next_b0), size_t(next_blocks) * weights.block_bytes, tiles, b1 - b0};
                const PrefetchBlock next_scales{scales.at(next_panel, blocks, next_b0), size_t(next_blocks) * scales.block_bytes, tiles, b1 - b0};
                int64_t t = f0, index = 0;
                for (; t + kTileFrames <= f1; t += kTileFrames, ++index) {
                    tile(std::integral_constant<int, kTileFrames>{}, t, p, b0, b1, accumulate, ep, next_weights.share(index), next_scales.share(index));
                }
                // The last 1–5 frames as one tile of their own count: tiles of 2 and 1 (4 and 2
                // chains of VPDPBUSD, each waiting out the instruction's latency) took 1.7× and 2×
                // a full tile's time per frame in an L1 loop, a 5-frame tile 1.1×; the 5 left of a
                // 10 s call (125 frames) cost ≈ 2.5 % of the GEMM as 2 + 2 + 1.
                const auto rest = [&](auto rows) { tile(rows, t, p, b0, b1, accumulate, ep, next_weights.share(index), next_scales.share(index)); };
                switch (f1 - t) {
                    case 5: rest(std::integral_constant<int, 5>{}); break;
                    case 4: rest(std::integral_constant<int, 4>{}); break;
                    case 3: rest(std::integral_constant<int, 3>{}); break;
                    case 2: rest(std::integral_constant<int, 2>{}); break;
                    case 1: rest(std::integral_constant<int, 1>{}); break;
                    default: break;
                }
            }
        }
    }
}

#ifdef PARAKEET_X86
/**
 * After one block's integer dot products of a tile's MR frames × 32 rows: acc += float(dot) ·
 * (the rows' block scales · the frame's), the frame's at float index `block` from `x_scales_at`
 * bytes into its activation row (the Q8_0 and 14-bit kernels' rows keep them there).
 */
template <int MR>
PARAKEET_VNNI512 inline __attribute__((always_inline)) void add_scaled_block(__m512 (&acc)[MR][2], const __m512i (&dot)[MR][2], const float * row_scales,
                                                                            const uint8_t * xq, size_t x_stride, size_t x_scales_at, int64_t block) {
    const __m512 s0 = _mm512_loadu_ps(row_scales), s1 = _mm512_loadu_ps(row_scales + 16);
    for (int r = 0; r < MR; ++r) {
        const float * xs = reinterpret_cast<const float *>(xq + size_t(r) * x_stride + x_scales_at);
        const __m512 sx = _mm512_set1_ps(xs[block]);
        acc[r][0] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r][0]), _mm512_mul_ps(s0, sx), acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r][1]), _mm512_mul_ps(s1, sx), acc[r][1]);
    }
}
#endif

/**
 * A block-scaled GEMM over panels [p0, p1): `frames` activation rows from xq (stride xs bytes) times
 * `w` into y (stride ys floats), tile(rows, x, x_stride, k, w, panel, b0, b1, y, y_stride, accumulate,
 * epilogue, t0, prefetch_weights, prefetch_scales) computing each tile (rows: std::integral_constant<int, MR>).
 */
template <int64_t ChunkBlocks, typename Matrix, typename Tile>
void block_chunk_rows(const uint8_t * xq, size_t xs, int64_t frames, float * y, size_t ys, const Matrix & w, int64_t p0, int64_t p1,
                      const EpilogueView & view, const BlockStream & weights, const BlockStream & scales, Tile && tile) {
    const int64_t k = w.cols();
    for_each_block_chunk<ChunkBlocks>(p0, p1, k / 32, frames, weights, scales, view,
                                      [&](auto rows, int64_t t, int64_t p, int64_t b0, int64_t b1, bool acc, const EpilogueView * ep,
                                          PrefetchShare next_weights, PrefetchShare next_scales) {
                                          tile(rows, xq + size_t(t) * xs, xs, k, w, p, b0, b1, y + size_t(t) * ys + size_t(p) * 32, ys, acc, ep, t,
                                               next_weights, next_scales);
                                      });
}

/** The same with the activations dst->src[0]-style tensor xq and the output tensor dst. */
template <int64_t ChunkBlocks, typename Matrix, typename Tile>
void block_chunk_gemm(const ggml_tensor * xq, ggml_tensor * dst, const Matrix & w, int64_t p0, int64_t p1, const EpilogueView & view,
                      const BlockStream & weights, const BlockStream & scales, Tile && tile) {
    block_chunk_rows<ChunkBlocks>(static_cast<const uint8_t *>(xq->data), xq->nb[1], xq->ne[1], static_cast<float *>(dst->data),
                                  dst->nb[1] / sizeof(float), w, p0, p1, view, weights, scales, std::forward<Tile>(tile));
}

}  // namespace parakeet
