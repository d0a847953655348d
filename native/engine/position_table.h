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
    explicit PositionTable(size_t max_bytes) : max_bytes_(max_bytes) {}
    ~PositionTable();
    PositionTable(const PositionTable &) = delete;
    PositionTable & operator=(const PositionTable &) = delete;

    /** Frames the table holds (0: none yet). */
    int frames() const { return frames_; }
    /** Whether a table for `frames` frames of `layers` layers of width d fits the budget. */
    bool fits(int frames, int64_t d, size_t layers) const { return bytes_for(frames, d, layers) <= max_bytes_; }
    /** Replaces the table with an unfilled one for `frames` frames: [d, 2·frames − 1] F32 per layer, in host memory. */
    void allocate(int frames, int64_t d, size_t layers);
    /** Layer i's whole table (the tensor a filling graph copies into). */
    ggml_tensor * layer(size_t i) const { return layers_[i]; }
    /** Layer i's rows for a run of `frames` ≤ frames() frames: [d, 2·frames − 1], a view in ctx. */
    ggml_tensor * view(ggml_context * ctx, size_t i, int frames) const;
    size_t bytes() const { return frames_ == 0 ? 0 : bytes_for(frames_, d_, layers_.size()); }
    /** Frees the table (frames() 0). */
    void clear();

private:
    static size_t bytes_for(int frames, int64_t d, size_t layers) { return size_t(2 * int64_t(frames) - 1) * size_t(d) * sizeof(float) * layers; }

    size_t max_bytes_;
    int frames_ = 0;
    int64_t d_ = 0;
    ggml_context * ctx_ = nullptr;
    ggml_backend_buffer_t buffer_ = nullptr;
    std::vector<ggml_tensor *> layers_;
};

}  // namespace parakeet
