// F32, F16 and Q8_0 weights as BF16 tiles made at load × BF16 activation tiles on AMX (kernel id
// f32_amx_bf16: PackedBf16TileMatrix, amx_bf16.h; linear_pos's column halves, whose 32-input blocks
// mix two Q8_0 blocks), through the panel GEMM of amx_panel_gemm.inc.
#include "amx_panel_gemm.inc"
#include "attention_blocks.h"

namespace parakeet {

#ifdef PARAKEET_AMX

namespace {

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

#else

PackedBf16TileMatrix::PackedBf16TileMatrix(const float *, int64_t rows, int64_t cols, uint8_t *) : rows_(rows), cols_(cols) {
    throw std::invalid_argument("AMX matrices: not in this build");
}
ggml_tensor * PackedBf16TileMatrix::gemm(ggml_context *, ggml_tensor * xt, const char *, const Epilogue &, bool) const { return xt; }
void PackedBf16TileMatrix::multiply(const float *, size_t, int64_t, float *, size_t) const {}

#endif

}  // namespace parakeet
