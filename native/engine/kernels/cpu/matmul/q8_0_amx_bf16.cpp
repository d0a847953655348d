// Q8_0 weights kept at one byte a weight in tile order, widened to BF16 tiles a chunk at a time, ×
// BF16 activation tiles on AMX (kernel id q8_0_amx_bf16: PackedQ8TileMatrix, amx_bf16.h), through the
// panel GEMM of amx_panel_gemm.inc.
#include "amx_panel_gemm.inc"

namespace parakeet {

#ifdef PARAKEET_AMX

namespace {

struct BlockQ8_0 {  // ggml's block_q8_0
    ggml_fp16_t d;
    int8_t qs[32];
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

}  // namespace

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

#else

PackedQ8TileMatrix::PackedQ8TileMatrix(const void *, int64_t rows, int64_t cols, uint8_t *) : rows_(rows), cols_(cols) {
    throw std::invalid_argument("AMX matrices: not in this build");
}
ggml_tensor * PackedQ8TileMatrix::gemm(ggml_context *, ggml_tensor * xt, const char *, const Epilogue &, bool) const { return xt; }
void PackedQ8TileMatrix::multiply(const float *, size_t, int64_t, float *, size_t) const {}

#endif

}  // namespace parakeet
