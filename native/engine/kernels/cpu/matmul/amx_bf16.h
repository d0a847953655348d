// Matmul weights × F32 activations on AMX-BF16 tiles (Sapphire Rapids and later), for a quantized
// file under weightType 'auto' where the engine's probe passed (amx.h).
//
// Why BF16 and not AMX-INT8: Q8_0 keeps a scale per 32 inputs for every weight row and (in ggml's
// arithmetic) for every activation row, so an int8 tile product must be stored and rescaled after
// every 32 inputs. Measured on a Sapphire Rapids-class core, one 16 × 16 × 32 step: TDPBSSD 16
// cycles + TILESTORED 16 + the rescale (a convert, a multiply and an FMA per 16 outputs) ≈ 24, and
// the tile instructions do not overlap the AVX-512 ones: ≈ 390 G multiply–adds/s at best, 1.4×
// the VNNI kernel. In BF16 the block scales go into the weights (w = d·q rounded to BF16, 8
// significant bits) and the products sum in the tiles' F32 accumulators over the whole row: one
// TDPBF16PS per 16 × 16 × 32 and no rescale (≈ 450–650 G/s in a graph here, against 250–290 for
// the VNNI kernel).
//
// Numerics: each weight rounded to BF16 (relative 2⁻⁹; Q8_0 weights as d·q), each activation rounded
// to BF16 (relative 2⁻⁹), F32 sums. Against the file's own values in F32 that is ≈ 2.3e-3 relative
// per product on random rows, where ggml's Q8_0 arithmetic (activations quantized to 8 bits per 32)
// is ≈ 5.3e-3: nearer the file than Q8_0's own path (the parity tests hold it to that).
//
// Two layouts:
// * PackedQ8TileMatrix (Q8_0 weights): the Q8_0 values as int8 in tile order with their block scales
//   (1.125 bytes a weight, as the VNNI kernel's copy); each (span, panel) item widens its panel a
//   chunk at a time into the thread's two chunk buffers (L1), the next chunk while the tiles
//   read the current one, and every frame tile of the span reads each chunk. Widening the
//   whole model at load instead (2 bytes a weight) was no faster: each call streams its weights
//   from DRAM, twice the bytes in BF16 (110M at 10 s, one thread: 37–38 ms in these GEMMs per item,
//   39–40 at load; two threads: encoder 33 vs 35.5 ms, and 85 MB more resident at load);
// * PackedBf16TileMatrix (linear_pos's column halves, whose 32-input blocks mix two Q8_0 blocks):
//   BF16 tiles made at load from the dequantized values.
// Activations go in as BF16 tiles (ActivationFormat::Bf16Tiles: per 16 frames, per 32 inputs, 1 KiB
// contiguous; strided rows from L2 ran 5–30 % slower), made once per tensor: by the fused layer norm
// (q, k and v read one), by the matmul before (the feed-forward's linear1 for linear2), else by a
// conversion node whose threads share its frame tiles.
#pragma once

#include <cstdint>

#include "ggml.h"
#include "packed_op.h"
#include "packed_weights.h"

namespace parakeet {

/** x [cols, T] F32 as BF16 activation tiles (ActivationFormat::Bf16Tiles): the node "amx_tiles:<weight>". */
ggml_tensor * amx_activation_tiles(ggml_context * ctx, ggml_tensor * x, const char * weight_name);
/** Frames a tile tensor of `frames` frames holds (whole tiles of 16). */
inline int64_t amx_tile_frames(int64_t frames) { return (frames + 15) / 16 * 16; }
/**
 * Where frame t's 32 values from input `col` (a multiple of 32) sit in a tile tensor of k inputs, in
 * BF16 values: per 16 frames, per 32-input step, 16 rows of 32.
 */
inline size_t amx_tile_line(int64_t t, int64_t k, int64_t col) {
    return (size_t(t / 16) * size_t(k / 32) + size_t(col / 32)) * 512 + size_t(t % 16) * 32;
}
/**
 * A tile tensor as a graph sees it: [2·k bytes, frames] I8, a view of the tiles' [2·k, amx_tile_frames]
 * (the last tile's rows past `frames` are part of it; every reader takes the frame count from the view).
 */
ggml_tensor * amx_tiles_view(ggml_context * ctx, ggml_tensor * padded, int64_t frames);
/** One frame t's k values written into the tile tensor at `tiles` (a producer's row writer: the fused layer norm). */
void amx_tile_row(const float * x, int64_t k, uint8_t * tiles, int64_t t);

/**
 * What both tile layouts share: the activations as a tile tensor made once per input (Bf16Tiles:
 * one node, its frame tiles shared by the node's threads, read by every matmul of that input), one
 * GEMM node per product (Derived::gemm), whose outputs can also be the next AMX matmul's tiles.
 */
template <typename Derived>
class AmxTileMatmul : public PackedMatmul {
public:
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const override {
        return apply_quantized(ctx, quantize(ctx, x, weight_name), weight_name, epilogue);
    }
    ActivationFormat activation_format() const override { return ActivationFormat::Bf16Tiles; }
    ggml_tensor * quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const override {
        GGML_ASSERT(x->ne[0] == self().cols());
        return amx_activation_tiles(ctx, x, weight_name);
    }
    ggml_tensor * apply_quantized(ggml_context * ctx, ggml_tensor * xt, const char * weight_name, const Epilogue & epilogue) const override {
        return self().gemm(ctx, xt, weight_name, epilogue, false);
    }
    /** Bf16Tiles out: the outputs (after the epilogue) written as the next AMX matmul's activation tiles. */
    ggml_tensor * apply_quantized_to(ggml_context * ctx, ggml_tensor * xt, const char * weight_name, const Epilogue & epilogue,
                                     ActivationFormat out) const override {
        return out == ActivationFormat::Bf16Tiles ? self().gemm(ctx, xt, weight_name, epilogue, true) : nullptr;
    }

private:
    const Derived & self() const { return static_cast<const Derived &>(*this); }
};

/**
 * A matrix [rows out][cols in] as BF16 tiles: per panel of 32 rows, per 32 inputs, the tile of rows
 * 0–15 then 16–31, each 16 lines of (w[n][2·k2], w[n][2·k2 + 1]) for n = 0…15 (what TDPBF16PS
 * takes as its B operand). Only where amx_bf16_usable().
 */
class PackedBf16TileMatrix final : public AmxTileMatmul<PackedBf16TileMatrix> {
public:
    static size_t storage_bytes(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols) * 2; }
    /** F32 rows rounded to BF16 (nearest even). rows, cols % 32 == 0; `storage` 64-byte aligned, outlives this. */
    PackedBf16TileMatrix(const float * w, int64_t rows, int64_t cols, uint8_t * storage);

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    const char * layout_name() const override { return "f32_amx_bf16"; }
    const uint16_t * panel_tiles(int64_t panel) const { return tiles_ + size_t(panel) * size_t(cols_) * 32; }
    /** The GEMM node on activation tiles xt; its outputs F32 rows, or BF16 tiles (tiles_out). */
    ggml_tensor * gemm(ggml_context * ctx, ggml_tensor * xt, const char * weight_name, const Epilogue & epilogue, bool tiles_out) const;
    /** y = W·x outside a graph (y rows y_stride floats apart), every panel, on the calling thread (tests). */
    void multiply(const float * x, size_t x_stride, int64_t frames, float * y, size_t y_stride) const;

private:
    int64_t rows_ = 0, cols_ = 0;
    uint16_t * tiles_ = nullptr;
    PackedOpConfigs<PackedBf16TileMatrix> configs_;
};

/**
 * A Q8_0 matrix [rows out][cols in] kept at one byte a weight, in tile order: per panel of 32 rows,
 * per 32 inputs, per half of 16 rows, 16 lines of (q[n][2·k2], q[n][2·k2 + 1]), then the half's 16
 * row scales (kHalfBytes in all: the widening reads, and the prefetch streams, one range).
 * Widened to BF16 tiles a chunk at a time per call. Only where amx_bf16_usable().
 */
class PackedQ8TileMatrix final : public AmxTileMatmul<PackedQ8TileMatrix> {
public:
    static size_t storage_bytes(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols) + size_t(rows) * size_t(cols / 32) * 4; }
    PackedQ8TileMatrix(const void * q8_0, int64_t rows, int64_t cols, uint8_t * storage);

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    size_t bytes() const override { return storage_bytes(rows_, cols_); }
    const char * layout_name() const override { return "q8_0_amx_bf16"; }
    /** One half-tile: 16 lines of 16 rows × 2 int8, then at kScalesAt the 16 rows' float scales. */
    static constexpr size_t kScalesAt = 512;
    static constexpr size_t kHalfBytes = kScalesAt + 16 * sizeof(float);
    /** Panel p's halves, 2 per 32 inputs, kHalfBytes apart. */
    const uint8_t * panel_halves(int64_t panel) const { return packed_ + size_t(panel) * size_t(cols_ / 32) * 2 * kHalfBytes; }
    ggml_tensor * gemm(ggml_context * ctx, ggml_tensor * xt, const char * weight_name, const Epilogue & epilogue, bool tiles_out) const;
    /** y = W·x outside a graph, every panel, on the calling thread (tests). */
    void multiply(const float * x, size_t x_stride, int64_t frames, float * y, size_t y_stride) const;

private:
    int64_t rows_ = 0, cols_ = 0;
    uint8_t * packed_ = nullptr;
    PackedOpConfigs<PackedQ8TileMatrix> configs_;
};

class PackedI8ChannelMatrix;  // int8_channel_vnni.h

/**
 * weightType 'int8' on AMX-INT8: the per-channel int8 matrix (its VNNI panels are TDPBUSD's B tiles)
 * times ChannelRows activations, the same numbers as the VNNI kernel. Where amx_bf16_usable() (the
 * probe covers the tile unit) and channel_amx_fits(rows, cols).
 */
bool channel_amx_fits(int64_t rows, int64_t cols);
ggml_tensor * channel_amx_apply(ggml_context * ctx, ggml_tensor * xq, const PackedI8ChannelMatrix & w,
                                const PackedOpConfigs<PackedI8ChannelMatrix> & configs, const char * weight_name, const Epilogue & epilogue);

}  // namespace parakeet
