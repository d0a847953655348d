// Matmuls on AMX-BF16 tiles (see amx_bf16.h for why and for the numerics).
//
// Tiles (all 16 rows × 64 bytes): tmm0/tmm1 two A tiles (16 frames × 32 inputs as BF16 each),
// tmm2/tmm3 the panel's two B tiles (32 inputs × 16 outputs, as TDPBF16PS takes them: row k2 holds
// each output's inputs 2·k2 and 2·k2 + 1), tmm4–7 the 32 frames × 32 outputs of F32 sums. Every
// 32-input step loads 4 tiles and runs 4 products; the sums stay in the tiles over the whole row.
// The A tiles come from L2 (a span's activations) and are loaded with TILELOADDT1: read once per
// pass, they would otherwise push the chunk's B tiles, the sums and the chunk being widened out of L1
// (in an L1 loop with 256 weights widened per step: 811 → 974 G multiply–adds/s). That holds where
// the outputs go to memory the caches still hold, as ggml's allocator reuses the encoder's
// buffers (`bench:kernels -- --streamed`, 0.6B feed-forward pairs, one thread: 561–601 → 611–641
// G multiply–adds/s at 125 frames); with every output in memory untouched since the run before
// (each tensor its own), the same kernel ran 20 % slower than with plain TILELOADD.
#include "amx_bf16.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "amx.h"
#include "attention_blocks.h"
#include "block_chunks.h"
#include "int8_channel_vnni.h"
#include "simd_math.h"

namespace parakeet {
namespace {

struct BlockQ8_0 {  // ggml's block_q8_0
    ggml_fp16_t d;
    int8_t qs[32];
};

void check_shape(int64_t rows, int64_t cols) {
    if (rows <= 0 || cols <= 0 || rows % 32 != 0 || cols % 32 != 0)
        throw std::invalid_argument("AMX matrices: rows and cols must be multiples of 32");
}

}  // namespace

ggml_tensor * amx_tiles_view(ggml_context * ctx, ggml_tensor * padded, int64_t frames) {
    return ggml_view_2d(ctx, padded, padded->ne[0], frames, padded->nb[1], 0);
}

#ifdef PARAKEET_AMX
#define PARAKEET_AMX_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))

namespace {

constexpr int64_t kTileFrames = 16;
constexpr size_t kTileBytes = 1024;  // 16 rows × 64 bytes
// 32-input steps per chunk of a panel: the panel's B tiles for a chunk (16 KiB) stay in L1 while
// each frame pair of the span passes, whose sums go back to `stage` and return between chunks (a
// tile store and load each, per chunk and pair). Unchunked, a pair's pass over a row of 1024 inputs
// read 64 KiB of B tiles from L2 for every pair (0.6B at 10 s, one thread: these GEMMs 211 → 200–203 ms).
constexpr int64_t kChunkSteps = 8;
// Short spans (a 10 s window's 125 frames) took chunks of half that while the chunk was widened
// between pairs and A's tiles were plain TILELOADDs (their sums then stayed in L1); with the next
// chunk widened during the steps and A through TILELOADDT1, 8 steps are faster for them too (0.6B
// at 10 s, interleaved runs: one thread 155–163 ms against 162–170 for 4 steps and 164–174 for 16;
// two threads 91–94 against 96–99; 110M 37–38 against 37.5–39).
// A span's activations in tile order stay within this (L2 holds them while every panel passes; a
// panel's B tiles take only a chunk, 16 KiB): 1280 frames at 512 inputs, 160 at 4096 (whole 10 s
// calls are one span).
constexpr size_t kSpanActivationBytes = 1280u << 10;

/** A thread's conversion buffers, kept for the thread's life (ggml's workers persist) and grown on demand. */
class Scratch {
public:
    uint16_t * get(size_t bytes) {
        if (bytes > size_) {
            data_.reset(static_cast<uint8_t *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
            size_ = data_ != nullptr ? bytes : 0;
        }
        return reinterpret_cast<uint16_t *>(data_.get());
    }

private:
    struct Free {
        void operator()(uint8_t * p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t[], Free> data_;
    size_t size_ = 0;
};

/**
 * Frame tiles [tile_begin, tile_end) of x's `frames` frames (x_stride floats apart) as BF16 tiles at
 * `a` (the whole tensor's): per frame tile, per 32-input step, 16 rows of 32 values (1 KiB), rows
 * past `frames` zero. Rounded to nearest even (VCVTNE2PS2BF16). `a` need not be 64-byte aligned (a
 * ggml tensor).
 */
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

/**
 * A panel chunk's halves (PackedQ8TileMatrix: 16 int8 lines of 16 rows × 2, then the half's 16 row
 * scales) widened to BF16 tiles of d·q (rounded to nearest even) a few lines at a time, so that
 * the widening of the next chunk runs between the tile instructions of the current one: the tile
 * unit works through its products meanwhile (in an L1 loop, 256 weights widened per pair step cost
 * ≈ 5 ns beside the step's 4 products instead of the ≈ 16 ns they take alone).
 */
class ChunkWidening {
public:
    ChunkWidening() = default;
    /** `halves` consecutive halves from `q` (kHalfBytes apart) into `tiles` (512 BF16 values a half). */
    ChunkWidening(const uint8_t * q, int64_t halves, uint16_t * tiles) : q_(q), tiles_(tiles), lines_(halves * 16) {}
    int64_t lines() const { return lines_; }
    /** The next `n` lines (fewer at the end). */
    PARAKEET_AMX_AVX512 inline __attribute__((always_inline)) void step(int64_t n) {
        const int64_t end = std::min(lines_, at_ + n);
        while (at_ < end) {
            const int64_t half = at_ >> 4, first = at_ & 15, stop = std::min<int64_t>(16, first + (end - at_));
            const uint8_t * h = q_ + size_t(half) * PackedQ8TileMatrix::kHalfBytes;
            if (first == 0) {  // the half's 16 row scales, each for the two inputs of its row in a line
                const __m512 d = _mm512_loadu_ps(reinterpret_cast<const float *>(h + PackedQ8TileMatrix::kScalesAt));
                d_low_ = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7), d);
                d_high_ = _mm512_permutexvar_ps(_mm512_setr_epi32(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15), d);
            }
            uint16_t * tile = tiles_ + half * 512;
            for (int64_t line = first; line < stop; ++line) {
                const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i *>(h + line * 32));
                const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i *>(h + line * 32 + 16));
                const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(hi)), d_high_),
                                                       _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(lo)), d_low_));
                _mm512_store_si512(tile + line * 32, reinterpret_cast<const __m512i &>(v));
            }
            at_ += stop - first;
        }
    }
    PARAKEET_AMX_AVX512 void finish() { step(lines_); }

private:
    const uint8_t * q_ = nullptr;
    uint16_t * tiles_ = nullptr;
    int64_t lines_ = 0, at_ = 0;
    __m512 d_low_{}, d_high_{};
};

/** Where a GEMM's outputs go: F32 rows, or BF16 tiles for the next matmul (PackedMatmul::apply_quantized_to). */
struct Outputs {
    float * rows = nullptr;  // F32 [frames][stride]
    size_t stride = 0;
    uint16_t * tiles = nullptr;  // else BF16 tiles of `tile_steps` 32-input steps per frame tile
    int64_t tile_steps = 0;
};

/**
 * Frames [t0, t0 + count) of 32 sums each (c, 32 floats a frame) into `out` through the epilogue:
 * outputs col0 … col0 + 31, i.e. 32-input step col0 / 32 of the next matmul's tiles.
 */
PARAKEET_AMX_AVX512 void store_outputs(const float * c, int64_t count, const Outputs & out, const EpilogueView * ep, int64_t t0, int64_t col0) {
    for (int64_t r = 0; r < count; ++r) {
        const int64_t t = t0 + r;
        __m512 v[1][2] = {{_mm512_load_ps(c + r * 32), _mm512_load_ps(c + r * 32 + 16)}};
        if (ep != nullptr) finish_tile<1>(v, *ep, t, col0);  // packed_op.h: bias, SiLU, residual, ReLU, mask
        if (out.tiles != nullptr) {
            const __m512bh b = _mm512_cvtne2ps_pbh(v[0][1], v[0][0]);
            uint16_t * line = out.tiles + amx_tile_line(t, out.tile_steps * 32, col0);
            _mm512_storeu_si512(line, reinterpret_cast<const __m512i &>(b));  // ggml aligns tensors to less than 64
        } else {
            float * y = out.rows + size_t(t) * out.stride + size_t(col0);
            _mm512_storeu_ps(y, v[0][0]);
            _mm512_storeu_ps(y + 16, v[0][1]);
        }
    }
}

/**
 * The next panel's packed weights and scales (they stream from DRAM: each GEMM reads its matrix
 * once per call) asked into L2 a few lines per 32-input step of this panel's products, so they
 * arrive while it computes: all at once, the requests queue behind each other and the widening
 * of the next panel waits for DRAM anyway.
 */
class PanelPrefetch {
public:
    /** Two byte ranges (the second may be empty), spread over `steps_total` calls of step(). */
    PanelPrefetch() = default;
    PanelPrefetch(const void * first, size_t first_bytes, const void * second, size_t second_bytes, int64_t steps_total)
            : first_(static_cast<const char *>(first)),
              second_(static_cast<const char *>(second)),
              first_end_(first_bytes),
              second_end_(second_bytes) {
        const size_t lines = (first_bytes + second_bytes) / 64;
        per_step_ = int64_t((lines + size_t(std::max<int64_t>(1, steps_total)) - 1) / size_t(std::max<int64_t>(1, steps_total)));
    }
    PARAKEET_AMX_AVX512 inline __attribute__((always_inline)) void step() {
        for (int64_t i = 0; i < per_step_; ++i) {
            if (at_ < first_end_) {
                _mm_prefetch(first_ + at_, _MM_HINT_T1);
            } else if (at_ - first_end_ < second_end_) {
                _mm_prefetch(second_ + (at_ - first_end_), _MM_HINT_T1);
            } else {
                return;
            }
            at_ += 64;
        }
    }

private:
    const char * first_ = nullptr;
    const char * second_ = nullptr;
    size_t first_end_ = 0, second_end_ = 0, at_ = 0;
    int64_t per_step_ = 0;
};

/**
 * The sums of a frame pair × 32 outputs (tmm4–7; c: 32 frames of 32, 128 bytes a frame) at a chunk's
 * start: zero for the first chunk, else what the previous chunk left in `c`.
 */
inline void start_pair_sums(const void * c, bool first) {
    const size_t line = 128;
    const char * p = static_cast<const char *>(c);
    if (first) {
        asm volatile("tilezero %%tmm4\n\ttilezero %%tmm5\n\ttilezero %%tmm6\n\ttilezero %%tmm7" ::: "memory");
    } else {
        asm volatile(
                "tileloadd (%0,%4,1), %%tmm4\n\t"
                "tileloadd (%1,%4,1), %%tmm5\n\t"
                "tileloadd (%2,%4,1), %%tmm6\n\t"
                "tileloadd (%3,%4,1), %%tmm7\n\t" ::"r"(p),
                "r"(p + 64), "r"(p + 16 * line), "r"(p + 16 * line + 64), "r"(line)
                : "memory");
    }
}
inline void end_pair_sums(void * c) {
    const size_t line = 128;
    char * p = static_cast<char *>(c);
    asm volatile(
            "tilestored %%tmm4, (%0,%4,1)\n\t"
            "tilestored %%tmm5, (%1,%4,1)\n\t"
            "tilestored %%tmm6, (%2,%4,1)\n\t"
            "tilestored %%tmm7, (%3,%4,1)\n\t" ::"r"(p),
            "r"(p + 64), "r"(p + 16 * line), "r"(p + 16 * line + 64), "r"(line)
            : "memory");
}
/** The same for a lone last frame tile (tmm4–5: 16 frames × 32 outputs). */
inline void start_tile_sums(const void * c, bool first) {
    const size_t line = 128;
    const char * p = static_cast<const char *>(c);
    if (first)
        asm volatile("tilezero %%tmm4\n\ttilezero %%tmm5" ::: "memory");
    else
        asm volatile("tileloadd (%0,%2,1), %%tmm4\n\ttileloadd (%1,%2,1), %%tmm5" ::"r"(p), "r"(p + 64), "r"(line) : "memory");
}
inline void end_tile_sums(void * c) {
    const size_t line = 128;
    char * p = static_cast<char *>(c);
    asm volatile("tilestored %%tmm4, (%0,%2,1)\n\ttilestored %%tmm5, (%1,%2,1)" ::"r"(p), "r"(p + 64), "r"(line) : "memory");
}

/**
 * A thread's two chunk buffers of widened B tiles: the chunk the tiles read and the one widened
 * meanwhile (ChunkWidening), and which (panel, steps) the second holds once widened.
 */
struct ChunkBuffers {
    uint16_t * buffer[2] = {nullptr, nullptr};
    int current = 0;
    int64_t ahead_panel = -1, ahead_s0 = 0, ahead_s1 = 0;  // what buffer[1 − current] holds, panel −1: nothing
    bool ahead_holds(int64_t panel, int64_t s0, int64_t s1) const { return ahead_panel == panel && ahead_s0 == s0 && ahead_s1 == s1; }
};

/**
 * Panel `panel` (32 outputs) of `w` for the span's `frames` frames (activation tiles `a`, the span's
 * first frame t0), through `chunks` (widened B tiles) and `stage`, into `out`. `next_panel` is the
 * panel this thread most likely takes next (−1: none), whose first chunk is widened during this
 * panel's last one.
 *
 * The inputs go in chunks of kChunkSteps steps, each over every frame pair. The tiles' sums go to
 * `stage` (the span's frames × 32 floats, this thread's, 128 bytes a frame) between chunks, and reach
 * y through the epilogue during the last chunk, a pair's while the next pair's tiles run: y's rows
 * are a matmul's width apart, so each frame's 32 outputs are two lines no cache holds yet, and
 * storing them straight from the tiles held up the next tile's loads behind those misses (the
 * 2048 × 512 product at 125 frames, one thread: 480 → 550 G multiply–adds/s staged).
 */
template <typename Panels>
PARAKEET_AMX_AVX512 void panel_gemm(const uint16_t * a, int64_t frames, const Panels & w, int64_t panel, ChunkBuffers & chunks, float * stage,
                                    const Outputs & out, const EpilogueView * ep, int64_t t0, PanelPrefetch next, int64_t next_panel) {
    const size_t line = 64;
    const int64_t steps = w.cols() / 32;
    const size_t tile_stride = size_t(steps) * kTileBytes;  // bytes from one frame tile to the next
    const int64_t chunk = kChunkSteps;
    const int64_t pairs = (frames + 2 * kTileFrames - 1) / (2 * kTileFrames);
    for (int64_t s0 = 0; s0 < steps; s0 += chunk) {
        const int64_t s1 = std::min(steps, s0 + chunk);
        // The chunk's B tiles, step s0 first: widened during the chunk before (or the panel
        // before), else now; tiles made at load are read in place.
        const uint16_t * tiles = nullptr;
        if (chunks.ahead_holds(panel, s0, s1)) {
            chunks.current = 1 - chunks.current;
            tiles = chunks.buffer[chunks.current];
        } else {
            tiles = w.chunk(panel, s0, s1, chunks.buffer[chunks.current]);
        }
        chunks.ahead_panel = -1;
        const uint8_t * bp = reinterpret_cast<const uint8_t *>(tiles) - size_t(2 * s0) * kTileBytes;
        const bool last_chunk = s1 == steps;
        // The chunk after this one (the next panel's first after the last), widened a few lines per
        // step between the tile instructions (0.6B Q8_0 encoder, one thread: 10 s ≈ 2–3 % faster,
        // 60 s 3–4 %; widened all at once before the pairs, as before, TILELOADDT1 alone was no faster).
        // Each step's lines come before its tile loads in program order: the tile loads take the
        // vector ports the widening needs, and after them the widening waited (interleaved runs,
        // 0.6B at 10 s, one thread: 156–167 → 150–154 ms; 110M 38–39 → 36–37; two threads and
        // 60 s the same; tile loads, widening, then the products was slower, as was the prefetch
        // of the next panel after the products).
        const int64_t ahead_panel = last_chunk ? next_panel : panel, ahead_s0 = last_chunk ? 0 : s1;
        const int64_t ahead_s1 = std::min(steps, ahead_s0 + chunk);
        ChunkWidening ahead = ahead_panel >= 0 ? w.widening(ahead_panel, ahead_s0, ahead_s1, chunks.buffer[1 - chunks.current]) : ChunkWidening();
        const int64_t ahead_per_step = (ahead.lines() + pairs * (s1 - s0) - 1) / (pairs * (s1 - s0));
        // In the last chunk each pair's outputs go through the epilogue a few frames per step of
        // the next pair's products, whose tile instructions run meanwhile (AVX-512 work between
        // tile instructions overlaps them; after the panel, it waited for them).
        const int64_t per_step = (2 * kTileFrames + (s1 - s0) - 1) / (s1 - s0);
        int64_t pending = 0, pending_end = 0;  // the previous pair's frames still to store
        auto store_some = [&](int64_t n) {
            n = std::min(n, pending_end - pending);
            if (n <= 0) return;
            store_outputs(stage + size_t(pending) * 32, n, out, ep, t0 + pending, panel * 32);
            pending += n;
        };
        for (int64_t f = 0; f < frames; f += 2 * kTileFrames) {
            float * c = stage + size_t(f) * 32;
            const uint8_t * a0 = reinterpret_cast<const uint8_t *>(a) + size_t(f / kTileFrames) * tile_stride;
            if (frames - f > kTileFrames) {
                const uint8_t * a1 = a0 + tile_stride;
                start_pair_sums(c, s0 == 0);
                for (int64_t s = s0; s < s1; ++s) {
                    next.step();
                    ahead.step(ahead_per_step);
                    asm volatile(
                            "tileloaddt1 (%0,%4,1), %%tmm0\n\t"
                            "tileloaddt1 (%1,%4,1), %%tmm1\n\t"
                            "tileloadd (%2,%4,1), %%tmm2\n\t"
                            "tileloadd (%3,%4,1), %%tmm3\n\t"
                            "tdpbf16ps %%tmm2, %%tmm0, %%tmm4\n\t"
                            "tdpbf16ps %%tmm3, %%tmm0, %%tmm5\n\t"
                            "tdpbf16ps %%tmm2, %%tmm1, %%tmm6\n\t"
                            "tdpbf16ps %%tmm3, %%tmm1, %%tmm7\n\t" ::"r"(a0 + s * kTileBytes),
                            "r"(a1 + s * kTileBytes), "r"(bp + 2 * s * kTileBytes), "r"(bp + (2 * s + 1) * kTileBytes), "r"(line)
                            : "memory");
                    if (last_chunk) store_some(per_step);
                }
                end_pair_sums(c);
            } else {  // the span's last 1–16 frames: one A tile
                start_tile_sums(c, s0 == 0);
                for (int64_t s = s0; s < s1; ++s) {
                    next.step();
                    ahead.step(ahead_per_step);
                    asm volatile(
                            "tileloaddt1 (%0,%3,1), %%tmm0\n\t"
                            "tileloadd (%1,%3,1), %%tmm2\n\t"
                            "tileloadd (%2,%3,1), %%tmm3\n\t"
                            "tdpbf16ps %%tmm2, %%tmm0, %%tmm4\n\t"
                            "tdpbf16ps %%tmm3, %%tmm0, %%tmm5\n\t" ::"r"(a0 + s * kTileBytes),
                            "r"(bp + 2 * s * kTileBytes), "r"(bp + (2 * s + 1) * kTileBytes), "r"(line)
                            : "memory");
                    if (last_chunk) store_some(per_step);
                }
                end_tile_sums(c);
            }
            if (last_chunk) {
                store_some(pending_end - pending);
                pending = f;
                pending_end = std::min(frames, f + 2 * kTileFrames);
            }
        }
        if (last_chunk) store_some(pending_end - pending);
        if (ahead.lines() > 0) {
            ahead.finish();
            chunks.ahead_panel = ahead_panel;
            chunks.ahead_s0 = ahead_s0;
            chunks.ahead_s1 = ahead_s1;
        }
    }
}

/** Panels made at load (PackedBf16TileMatrix). */
struct TilesAtLoad {
    const PackedBf16TileMatrix & w;
    int64_t rows() const { return w.rows(); }
    int64_t cols() const { return w.cols(); }
    /** Panel p's tiles from 32-input step s0 on (to s1). */
    const uint16_t * chunk(int64_t p, int64_t s0, int64_t, uint16_t *) const { return w.panel_tiles(p) + size_t(2 * s0) * 512; }
    /** Nothing to widen. */
    ChunkWidening widening(int64_t, int64_t, int64_t, uint16_t *) const { return ChunkWidening(); }
    PanelPrefetch prefetch(int64_t p, int64_t steps_total) const {
        return PanelPrefetch(w.panel_tiles(p), size_t(w.cols()) * 64, nullptr, 0, steps_total);
    }
};

/** Panels widened per chunk into the thread's chunk buffers (PackedQ8TileMatrix). */
struct TilesPerItem {
    const PackedQ8TileMatrix & w;
    int64_t rows() const { return w.rows(); }
    int64_t cols() const { return w.cols(); }
    /** Panel p's steps [s0, s1) widened to BF16 tiles at `tiles`, step s0 first. */
    ChunkWidening widening(int64_t p, int64_t s0, int64_t s1, uint16_t * tiles) const {
        return ChunkWidening(w.panel_halves(p) + size_t(2 * s0) * PackedQ8TileMatrix::kHalfBytes, 2 * (s1 - s0), tiles);
    }
    /** The same, widened now. */
    PARAKEET_AMX_AVX512 const uint16_t * chunk(int64_t p, int64_t s0, int64_t s1, uint16_t * tiles) const {
        widening(p, s0, s1, tiles).finish();
        return tiles;
    }
    PanelPrefetch prefetch(int64_t p, int64_t steps_total) const {
        return PanelPrefetch(w.panel_halves(p), size_t(w.cols() / 32) * 2 * PackedQ8TileMatrix::kHalfBytes, nullptr, 0, steps_total);
    }
};

/** Frames per span: a multiple of 16 whose activations (frame_bytes each) fit kSpanActivationBytes, the call's frames split evenly. */
int64_t span_frames(size_t frame_bytes, int64_t frames) {
    const int64_t most = std::max<int64_t>(2 * kTileFrames, int64_t(kSpanActivationBytes / frame_bytes) / (2 * kTileFrames) * (2 * kTileFrames));
    const int64_t spans = (frames + most - 1) / most;
    const int64_t even = (frames + spans - 1) / spans;
    return (even + kTileFrames - 1) / kTileFrames * kTileFrames;
}

/**
 * The (span, panel) items this thread takes from `items` (PanelItems, block_chunks.h) over the
 * activation tiles `a` of `frames` frames: each item's panel in chunks (widened per chunk for
 * PackedQ8TileMatrix), then its frame tiles.
 */
template <typename Panels>
PARAKEET_AMX_AVX512 void run_items(const Panels & w, const uint16_t * a, int64_t frames, const Outputs & out, PanelItems & items,
                                   const EpilogueView * ep) {
    thread_local Scratch panel, sums;
    const int64_t k = w.cols(), steps = k / 32;
    const int64_t span = span_frames(size_t(k) * 2, frames);
    const int64_t spans = (frames + span - 1) / span;
    const size_t chunk_bytes = size_t(2 * kChunkSteps) * kTileBytes;  // a chunk of widened B tiles (TilesPerItem)
    ChunkBuffers chunks;
    chunks.buffer[0] = panel.get(2 * chunk_bytes);
    chunks.buffer[1] = chunks.buffer[0] + chunk_bytes / sizeof(uint16_t);
    float * stage =
            reinterpret_cast<float *>(sums.get(size_t((span + 2 * kTileFrames - 1) / (2 * kTileFrames)) * 2 * kTileFrames * 32 * sizeof(float)));
    if (chunks.buffer[0] == nullptr || stage == nullptr) GGML_ABORT("amx_bf16: out of memory for %lld inputs", (long long)k);
    const TileConfig config = full_tiles();
    load_tile_config(config);
    items.start(spans);
    for (int64_t s = 0, p = 0; items.next(s, p);) {
        const int64_t f0 = s * span, f1 = std::min(frames, f0 + span);
        int64_t upcoming = 0;  // the panel this thread most likely takes next
        const int64_t pairs = (f1 - f0 + 2 * kTileFrames - 1) / (2 * kTileFrames);
        const bool has_upcoming = items.upcoming_panel(upcoming);
        const PanelPrefetch next = has_upcoming ? w.prefetch(upcoming, pairs * steps) : PanelPrefetch();
        panel_gemm(a + size_t(f0 / kTileFrames) * size_t(steps) * 512, f1 - f0, w, p, chunks, stage, out, ep, f0, next, has_upcoming ? upcoming : -1);
    }
    items.finish();
    release_tiles();
}

template <typename Matrix, typename Panels>
void amx_gemm_op(ggml_tensor * dst, int, int nth, void * userdata) {
    const auto & config = *static_cast<const PackedOpConfig<Matrix> *>(userdata);
    const Panels panels{*config.matrix};
    const ggml_tensor * xt = dst->src[0];
    PanelItems items = PanelItems::shared(dst, panels.rows() / 32, nth);
    const EpilogueView view(dst, config.mode);
    Outputs out;
    if (dst->type == GGML_TYPE_F32) {
        out.rows = static_cast<float *>(dst->data);
        out.stride = dst->nb[1] / sizeof(float);
    } else {  // BF16 tiles for the next matmul (dst: a view of [2·rows bytes, frames rounded up to 16])
        out.tiles = static_cast<uint16_t *>(dst->data);
        out.tile_steps = panels.rows() / 32;
    }
    run_items(panels, static_cast<const uint16_t *>(xt->data), xt->ne[1], out, items, &view);
}

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

template <typename Matrix, typename Panels>
ggml_tensor * amx_node(ggml_context * ctx, ggml_tensor * xt, const Matrix & w, const PackedOpConfigs<Matrix> & configs, const char * weight_name,
                       const Epilogue & e, bool tiles_out) {
    GGML_ASSERT(xt->type == GGML_TYPE_I8 && xt->ne[0] == 2 * w.cols() && xt->ne[2] == 1 && xt->ne[3] == 1);
    const int64_t frames = xt->ne[1];
    const PackedOpConfig<Matrix> * config = configs.get(&w, EpilogueMode::of(e));
    if (!tiles_out) {
        ggml_tensor * y = packed_matmul_node(ctx, xt, w.rows(), frames, e, amx_gemm_op<Matrix, Panels>, config);
        ggml_format_name(y, "amx_gemm:%s", weight_name);
        return y;
    }
    // The op writes frames [0, frames) of the padded tiles; the last tile's rows past them are never read as outputs.
    ggml_tensor * tiles =
            packed_matmul_node(ctx, xt, w.rows(), amx_tile_frames(frames), e, amx_gemm_op<Matrix, Panels>, config, size_t(2 * w.rows()));
    ggml_format_name(tiles, "amx_gemm:%s", weight_name);
    return amx_tiles_view(ctx, tiles, frames);
}

/** W·x for x F32 rows outside a graph (tests): x as tiles, then every panel on the calling thread. */
template <typename Panels>
void multiply_rows(const Panels & w, const float * x, size_t x_stride, int64_t frames, float * y, size_t y_stride) {
    thread_local Scratch converted;
    const int64_t tiles = (frames + kTileFrames - 1) / kTileFrames;
    uint16_t * a = converted.get(size_t(tiles) * size_t(w.cols() / 32) * kTileBytes);
    if (a == nullptr) GGML_ABORT("amx_bf16: out of memory");
    activation_tiles(x, x_stride, frames, w.cols(), 0, tiles, a);
    PanelItems items = PanelItems::range(0, w.rows() / 32);
    Outputs out;
    out.rows = y;
    out.stride = y_stride;
    run_items(w, a, frames, out, items, nullptr);
}

// ---- Per-channel int8 weights × per-frame uint8 activations on AMX-INT8 (weightType 'int8') ----
//
// The VNNI kernel's packed panels are already what TDPBUSD takes as B (per group of 4 inputs the 32
// rows' 4 bytes: two 16-row tiles, lines 128 bytes apart), and its activation rows (ChannelRows:
// K unsigned bytes, the frame's scale and zero point) are A's rows; the int32 sums run over the whole
// row, one TDPBUSD per 16 × 16 × 64, twice BF16's inputs per instruction and no widening. The sums
// are then finished as the VNNI kernel finishes them (z·(−Σ w) added in int32, one float multiply by
// the two scales): the same numbers, bit for bit (int8_channel_matmul_tests.cpp).

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

/**
 * 16 rows' 32 values (rows[n], already BF16 pairs: 16 × 32 bits each) as a tile: row n is the
 * tile's column n, so the rows are transposed as 32-bit pairs (transpose16 moves lanes only).
 */
PARAKEET_AMX_AVX512 void pairs_to_tile(const uint32_t (&rows)[16][16], uint16_t * tile) {
    const float * row_ptrs[16];
    for (int n = 0; n < 16; ++n) row_ptrs[n] = reinterpret_cast<const float *>(rows[n]);
    attention_blocks::transpose16(row_ptrs, reinterpret_cast<float *>(tile), 16);
}

PARAKEET_AMX_AVX512 void f32_to_tiles(const float * w, int64_t rows, int64_t cols, uint16_t * tiles) {
    const int64_t blocks = cols / 32;
    alignas(64) uint32_t pairs[16][16];
    for (int64_t p = 0; p < rows / 32; ++p) {
        for (int64_t b = 0; b < blocks; ++b) {
            for (int h = 0; h < 2; ++h) {
                for (int n = 0; n < 16; ++n) {
                    const float * row = w + size_t(p * 32 + h * 16 + n) * size_t(cols) + size_t(b) * 32;
                    const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(row + 16), _mm512_loadu_ps(row));
                    _mm512_store_si512(pairs[n], reinterpret_cast<const __m512i &>(v));
                }
                pairs_to_tile(pairs, tiles + (size_t(p) * size_t(blocks) * 2 + size_t(b * 2 + h)) * 512);
            }
        }
    }
}

}  // namespace

PackedBf16TileMatrix::PackedBf16TileMatrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage)
        : rows_(rows),
          cols_(cols),
          tiles_(reinterpret_cast<uint16_t *>(storage)) {
    check_shape(rows, cols);
    f32_to_tiles(w, rows, cols, tiles_);
}

ggml_tensor * PackedBf16TileMatrix::gemm(ggml_context * ctx, ggml_tensor * xt, const char * weight_name, const Epilogue & e, bool tiles_out) const {
    return amx_node<PackedBf16TileMatrix, TilesAtLoad>(ctx, xt, *this, configs_, weight_name, e, tiles_out);
}

void PackedBf16TileMatrix::multiply(const float * x, size_t x_stride, int64_t frames, float * y, size_t y_stride) const {
    multiply_rows(TilesAtLoad{*this}, x, x_stride, frames, y, y_stride);
}

PackedQ8TileMatrix::PackedQ8TileMatrix(const void * q8_0, int64_t rows, int64_t cols, uint8_t * storage)
        : rows_(rows),
          cols_(cols),
          packed_(storage) {
    check_shape(rows, cols);
    const BlockQ8_0 * src = static_cast<const BlockQ8_0 *>(q8_0);
    const int64_t blocks = cols / 32;
    for (int64_t p = 0; p < rows / 32; ++p) {
        for (int64_t b = 0; b < blocks; ++b) {
            for (int h = 0; h < 2; ++h) {
                uint8_t * half = packed_ + (size_t(p) * size_t(blocks) * 2 + size_t(b * 2 + h)) * kHalfBytes;
                uint16_t * lines = reinterpret_cast<uint16_t *>(half);
                float * scales = reinterpret_cast<float *>(half + kScalesAt);
                for (int n = 0; n < 16; ++n) {
                    const BlockQ8_0 & block = src[size_t(p * 32 + h * 16 + n) * size_t(blocks) + size_t(b)];
                    scales[n] = ggml_fp16_to_fp32(block.d);
                    for (int k2 = 0; k2 < 16; ++k2)
                        std::memcpy(lines + k2 * 16 + n, block.qs + 2 * k2, 2);  // line k2: (q[2·k2], q[2·k2 + 1]) of each row
                }
            }
        }
    }
}

ggml_tensor * PackedQ8TileMatrix::gemm(ggml_context * ctx, ggml_tensor * xt, const char * weight_name, const Epilogue & e, bool tiles_out) const {
    return amx_node<PackedQ8TileMatrix, TilesPerItem>(ctx, xt, *this, configs_, weight_name, e, tiles_out);
}

void PackedQ8TileMatrix::multiply(const float * x, size_t x_stride, int64_t frames, float * y, size_t y_stride) const {
    multiply_rows(TilesPerItem{*this}, x, x_stride, frames, y, y_stride);
}

bool channel_amx_fits(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % kI8StepInputs == 0 && cols > 0; }

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
ggml_tensor * amx_activation_tiles(ggml_context *, ggml_tensor * x, const char *) { return x; }
void amx_tile_row(const float *, int64_t, uint8_t *, int64_t) {}

PackedBf16TileMatrix::PackedBf16TileMatrix(const float *, int64_t rows, int64_t cols, uint8_t *) : rows_(rows), cols_(cols) {
    throw std::invalid_argument("AMX matrices: not in this build");
}
ggml_tensor * PackedBf16TileMatrix::gemm(ggml_context *, ggml_tensor * xt, const char *, const Epilogue &, bool) const { return xt; }
void PackedBf16TileMatrix::multiply(const float *, size_t, int64_t, float *, size_t) const {}
PackedQ8TileMatrix::PackedQ8TileMatrix(const void *, int64_t rows, int64_t cols, uint8_t *) : rows_(rows), cols_(cols) {
    throw std::invalid_argument("AMX matrices: not in this build");
}
ggml_tensor * PackedQ8TileMatrix::gemm(ggml_context *, ggml_tensor * xt, const char *, const Epilogue &, bool) const { return xt; }
void PackedQ8TileMatrix::multiply(const float *, size_t, int64_t, float *, size_t) const {}

#endif

}  // namespace parakeet
