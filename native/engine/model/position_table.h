// linear_pos of the relative positional encoding, per conformer layer, kept between encoder runs
// (NeMo RelPositionMultiHeadAttention.linear_pos applied to RelPositionalEncoding's pe).
//
// Why it can be kept: the projection depends on the frame count only, never on the audio. pe's row
// for relative position p is a fixed sinusoid (relative_positions, encoder.cpp), and each output
// row of the projection depends on its own input row only, so the 2T−1 rows a run of T frames
// needs are the middle rows of the table made for any T_table ≥ T: row j of the run (position
// T−1−j) is row T_table−T+j of the table, the same numbers bit for bit. Recomputed every run it
// was 2 GEMMs per layer on 249 positions' halves (0.6B at 10 s, one thread: ≈ 11 of 188 ms).
//
// The table grows to the longest run seen, within a byte budget (past it the runs project as
// before); dictation's short windows and file windows of one length reuse it every run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ggml-backend.h"
#include "ggml.h"

namespace parakeet {

class PositionTable {
public:
    enum class Layout {
        F32Rows,   // [d, 2·frames − 1] F32, row r = relative position frames − 1 − r (fused_rel_pos_attention's p)
        AmxWords,  // [amx_position_columns(frames), d/2] I32: Pᵀ as the AMX attention op's BF16 pair words (attention_op.h)
    };
    explicit PositionTable(size_t max_bytes) : max_bytes_(max_bytes) {}
    ~PositionTable();
    PositionTable(const PositionTable &) = delete;
    PositionTable & operator=(const PositionTable &) = delete;

    /** Frames the table holds (0: none yet). */
    int frames() const { return frames_; }
    Layout layout() const { return layout_; }
    /** Whether a table for `frames` frames of `layers` layers of width d fits the budget. */
    bool fits(Layout layout, int frames, int64_t d, size_t layers) const { return bytes_for(layout, frames, d, layers) <= max_bytes_; }
    /**
     * Replaces the table with an unfilled one for `frames` frames, one tensor per layer, in a buffer of
     * `host` (the CPU backend's buffer type: the table is only kept for CPU graphs).
     */
    void allocate(Layout layout, int frames, int64_t d, size_t layers, ggml_backend_buffer_type_t host);
    /** Layer i's whole table (the tensor a filling graph writes). */
    ggml_tensor * layer(size_t i) const { return layers_[i]; }
    /**
     * Layer i's part for a run of `frames` ≤ frames() frames, a view in ctx: F32Rows [d, 2·frames − 1];
     * AmxWords [2·frames − 1, d/2] I32 whose column 0 is the run's position row 0, rows as far apart as the table's.
     */
    ggml_tensor * view(ggml_context * ctx, size_t i, int frames) const;
    size_t bytes() const { return frames_ == 0 ? 0 : bytes_for(layout_, frames_, d_, layers_.size()); }
    /** Frees the table (frames() 0). */
    void clear();

private:
    static size_t bytes_for(Layout layout, int frames, int64_t d, size_t layers);

    size_t max_bytes_;
    Layout layout_ = Layout::F32Rows;
    int frames_ = 0;
    int64_t d_ = 0;
    ggml_context * ctx_ = nullptr;
    ggml_backend_buffer_t buffer_ = nullptr;
    std::vector<ggml_tensor *> layers_;
};

}  // namespace parakeet
