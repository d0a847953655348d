// The traversal the block-scaled VNNI kernels share (Q8_0: q8_0_vnni, Q4_K: q4_k_vnni, 14-bit:
// i16_vnni).
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
 * The (span, panel) items of a GEMM a thread computes: a fixed range of panels, span by span
 * (range), or all of a graph node's panels handed to its threads one item at a time as each asks
 * (shared): on a busy machine a thread that loses its core for a while then holds up only the item
 * it has, not a fixed half of the node, while the others take the rest. (Each of ggml's nodes ends in
 * a barrier: with a fixed split, two threads ran the Q8_0 GEMMs only ≈ 1.5× as fast as one on a
 * shared host where two single-threaded copies each ran at full speed.) The shared count lives in
 * the node's op_params beside ggml's custom-op parameters; the last of the node's threads to finish
 * sets it back to zero for the graph's next run (every thread of a node runs it once).
 *
 * A thread takes a group of up to 8 neighbouring panels at a time (at least 4 groups per thread
 * remain for the balance): handed out one by one, neighbouring panels went to alternate threads,
 * whose 128-byte stretches of every output row then sat side by side and the cores' prefetchers
 * pulled each other's lines away (two threads ran a 1024 × 1024 Q8_0 product at 125 frames only
 * 1.4× as fast as one; the outputs' stores took twice the share of the time).
 * `group_multiple` rounds the group up to a multiple of that many panels, for outputs where a panel
 * writes less than a line (the Q8 rows' per-block numbers: 4 bytes a panel, 16 panels to a line).
 */
class PanelItems {
public:
    static PanelItems range(int64_t p0, int64_t p1) { return PanelItems(p0, p1, nullptr, 0, 1); }
    static PanelItems shared(ggml_tensor * node, int64_t panels, int nth, int64_t group_multiple = 1) {
        int64_t group = std::clamp<int64_t>(panels / (4 * int64_t(std::max(1, nth))), 1, kMaxGroup);
        group = std::min(panels, (group + group_multiple - 1) / group_multiple * group_multiple);
        return PanelItems(0, panels, node->op_params + kCountAt, nth, group);
    }

    void start(int64_t spans) { groups_ = spans * groups_per_span(); }
    /** The next item, false when none is left. */
    bool next(int64_t & span, int64_t & panel) {
        if (left_in_group_ > 0) {
            --left_in_group_;
            span = span_;
            panel = ++panel_;
            return true;
        }
        taken_ = shared_ != nullptr ? int64_t(__atomic_fetch_add(shared_, 1, __ATOMIC_RELAXED)) : taken_ + 1;
        if (!group_at(taken_, span_, panel_, left_in_group_)) return false;
        span = span_;
        panel = panel_;
        return true;
    }
    /** The panel of the item this thread most likely takes next (its weights are worth prefetching); false if none. */
    bool upcoming_panel(int64_t & panel) const {
        if (left_in_group_ > 0) {
            panel = panel_ + 1;
            return true;
        }
        int64_t span = 0, left = 0;
        return group_at(taken_ + (shared_ != nullptr ? nth_ : 1), span, panel, left);
    }
    /** Once per thread, after its last next(). */
    void finish() {
        if (shared_ != nullptr && __atomic_add_fetch(shared_ + 1, 1, __ATOMIC_ACQ_REL) == nth_) {
            __atomic_store_n(shared_, 0, __ATOMIC_RELAXED);
            __atomic_store_n(shared_ + 1, 0, __ATOMIC_RELEASE);
        }
    }

private:
    // op_params: ggml's custom-op parameters (a function, a count, a pointer) come first.
    static constexpr int kCountAt = 12;
    static_assert(3 * sizeof(void *) <= kCountAt * sizeof(int32_t) && kCountAt + 2 <= GGML_MAX_OP_PARAMS / int(sizeof(int32_t)), "op_params room");

    static constexpr int64_t kMaxGroup = 8;
    PanelItems(int64_t p0, int64_t p1, int32_t * shared, int nth, int64_t group) : p0_(p0), p1_(p1), shared_(shared), nth_(nth), group_(group) {}
    int64_t groups_per_span() const { return (p1_ - p0_ + group_ - 1) / group_; }
    /** Group k: its span, first panel and the panels after that one. */
    bool group_at(int64_t k, int64_t & span, int64_t & panel, int64_t & left) const {
        if (k < 0 || k >= groups_) return false;
        const int64_t per_span = groups_per_span();
        span = k / per_span;
        panel = p0_ + (k % per_span) * group_;
        left = std::min(group_, p1_ - panel) - 1;
        return true;
    }

    int64_t p0_, p1_;
    int32_t * shared_;  // [groups taken, threads finished], or nullptr for a fixed range
    int nth_;
    int64_t group_;
    int64_t groups_ = 0, taken_ = -1;
    int64_t span_ = 0, panel_ = 0, left_in_group_ = 0;  // the group in hand
};

/**
 * Calls tile(std::integral_constant<int, MR>{}, t0, panel, b0, b1, accumulate, epilogue, prefetch_weights,
 * prefetch_scales) for every frame tile of every chunk of the (span, panel) items this thread takes
 * from `items`; `epilogue` is `view` on a panel's last chunk, else nullptr; `accumulate` is false
 * on its first.
 */
/**
 * Frames of the next tile with `left` frames of a span to go: 6, the last 1–5 as one tile; but 7 or
 * 14 left (a stream's 560 ms and 1120 ms chunks) go as tiles of 7, not 6 + 1 and 6 + 6 + 2: a short
 * tile reads the block again for a fraction of the work, its VPDPBUSD chains waiting out their
 * latency. 7 rows of accumulators and dot products fill 28 of the 32 registers.
 */
constexpr int64_t next_tile_frames(int64_t left) { return left == 7 || left == 14 ? 7 : std::min<int64_t>(left, 6); }

template <int64_t ChunkBlocks, typename Tile>
void for_each_block_chunk(PanelItems & items, int64_t blocks, int64_t frames, const BlockStream & weights, const BlockStream & scales,
                          const EpilogueView & view, Tile && tile) {
    constexpr int kTileFrames = 6;  // the span is cut in multiples of 6 frames
    const int64_t spans = std::max<int64_t>(1, frames / kFrameSpan);
    const int64_t span_frames = (frames + spans - 1) / spans;
    const int64_t span = (span_frames + kTileFrames - 1) / kTileFrames * kTileFrames;
    items.start(spans);
    for (int64_t s = 0, p = 0; items.next(s, p);) {
        const int64_t f0 = s * span, f1 = std::min(frames, f0 + span);
        if (f0 >= f1) continue;
        int64_t tiles = 0;
        for (int64_t left = f1 - f0; left > 0; left -= next_tile_frames(left)) ++tiles;
        int64_t upcoming_panel = p;  // the next item's first chunk is prefetched during the last chunk
        const bool has_upcoming = items.upcoming_panel(upcoming_panel);
        for (int64_t b0 = 0; b0 < blocks; b0 += ChunkBlocks) {
            const int64_t b1 = std::min(blocks, b0 + ChunkBlocks);
            const bool accumulate = b0 > 0;
            const bool last_chunk = b1 == blocks;
            const EpilogueView * ep = last_chunk ? &view : nullptr;
            const int64_t next_panel = !last_chunk ? p : upcoming_panel, next_b0 = !last_chunk ? b1 : 0;
            const int64_t next_blocks = !last_chunk || has_upcoming ? std::min(ChunkBlocks, !last_chunk ? blocks - b1 : blocks) : 0;
            const PrefetchBlock next_weights{weights.at(next_panel, blocks, next_b0), size_t(next_blocks) * weights.block_bytes, tiles, b1 - b0};
            const PrefetchBlock next_scales{scales.at(next_panel, blocks, next_b0), size_t(next_blocks) * scales.block_bytes, tiles, b1 - b0};
            // Tiles of next_tile_frames(): the last 1–5 frames as one tile of their own count, since
            // tiles of 2 and 1 (4 and 2 chains of VPDPBUSD, each waiting out the instruction's latency)
            // took 1.7× and 2× a full tile's time per frame in an L1 loop, a 5-frame tile 1.1×.
            for (int64_t t = f0, index = 0; t < f1; ++index) {
                const int64_t size = next_tile_frames(f1 - t);
                const auto run = [&](auto rows) { tile(rows, t, p, b0, b1, accumulate, ep, next_weights.share(index), next_scales.share(index)); };
                switch (size) {
                    case 7: run(std::integral_constant<int, 7>{}); break;
                    case 6: run(std::integral_constant<int, 6>{}); break;
                    case 5: run(std::integral_constant<int, 5>{}); break;
                    case 4: run(std::integral_constant<int, 4>{}); break;
                    case 3: run(std::integral_constant<int, 3>{}); break;
                    case 2: run(std::integral_constant<int, 2>{}); break;
                    default: run(std::integral_constant<int, 1>{}); break;
                }
                t += size;
            }
        }
    }
    items.finish();
}

#ifdef PARAKEET_X86
/**
 * After one block's integer dot products of a tile's MR frames × 32 rows: acc += float(dot) ·
 * (the rows' block scales · the frame's), the frame's at float index `block` from `x_scales_at`
 * bytes into its activation row (the Q8_0 and 14-bit kernels' rows keep them there).
 */
template <int MR>
PARAKEET_VNNI512 inline __attribute__((always_inline)) void add_scaled_block(__m512 (&acc)[MR][2], const __m512i (&dot)[MR][2],
                                                                             const float * row_scales, const uint8_t * xq, size_t x_stride,
                                                                             size_t x_scales_at, int64_t block) {
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
void block_chunk_rows(const uint8_t * xq, size_t xs, int64_t frames, float * y, size_t ys, const Matrix & w, PanelItems & items,
                      const EpilogueView & view, const BlockStream & weights, const BlockStream & scales, Tile && tile) {
    const int64_t k = w.cols();
    for_each_block_chunk<ChunkBlocks>(items, k / 32, frames, weights, scales, view,
                                      [&](auto rows, int64_t t, int64_t p, int64_t b0, int64_t b1, bool acc, const EpilogueView * ep,
                                          PrefetchShare next_weights, PrefetchShare next_scales) {
                                          tile(rows, xq + size_t(t) * xs, xs, k, w, p, b0, b1, y + size_t(t) * ys + size_t(p) * 32, ys, acc, ep, t,
                                               next_weights, next_scales);
                                      });
}

/** The same with the activations dst->src[0]-style tensor xq and the output tensor dst. */
template <int64_t ChunkBlocks, typename Matrix, typename Tile>
void block_chunk_gemm(const ggml_tensor * xq, ggml_tensor * dst, const Matrix & w, PanelItems & items, const EpilogueView & view,
                      const BlockStream & weights, const BlockStream & scales, Tile && tile) {
    block_chunk_rows<ChunkBlocks>(static_cast<const uint8_t *>(xq->data), xq->nb[1], xq->ne[1], static_cast<float *>(dst->data),
                                  dst->nb[1] / sizeof(float), w, items, view, weights, scales, std::forward<Tile>(tile));
}

/**
 * The ggml op body of a block-scaled GEMM: the node's (span, panel) items shared among its threads
 * (PanelItems::shared, groups a multiple of GroupMultiple panels), run by `Panels` (the kernel's
 * traversal) with the node's epilogue.
 */
template <typename Matrix, void (*Panels)(const ggml_tensor *, ggml_tensor *, const Matrix &, PanelItems &, const EpilogueView &),
          int64_t GroupMultiple = 1>
void share_panels(ggml_tensor * dst, int, int nth, void * userdata) {
    const auto & config = *static_cast<const PackedOpConfig<Matrix> *>(userdata);
    PanelItems items = PanelItems::shared(dst, config.matrix->rows() / 32, nth, GroupMultiple);
    Panels(dst->src[0], dst, *config.matrix, items, EpilogueView(dst, config.mode));
}

}  // namespace parakeet
