// The encoder of one cache-aware stream: its per-layer caches and, per chunk shape, a graph built and
// allocated once (its own ggml_gallocr), then only fed and run for every later chunk of that shape.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "compute_backend.h"
#include "hparams.h"
#include "model_weights.h"
#include "parakeet/parakeet.h"
#include "stream_encoder_graph.h"

namespace parakeet {

/**
 * The CPU's fused streaming ops (stream_attention_op.h, window_shift_op.h) run for heads of width `dk`;
 * PARAKEET_STREAM_FUSED=0 keeps ggml's ops instead (an A/B in one build: bench:streaming --profile).
 */
bool fused_stream_ops(const ComputeBackend & backend, int64_t dk);

class StreamEncoder {
public:
    /** `schedule`: the preset's chunking (StreamInfo); `prompt_index` ≥ 0 applies the prompt kernel before joint.enc. */
    StreamEncoder(const Hparams & hp, const EncoderWeights & w, const PackedWeights & packed, ComputeBackend & backend, const StreamInfo & schedule,
                  int prompt_index);
    ~StreamEncoder();
    StreamEncoder(const StreamEncoder &) = delete;
    StreamEncoder & operator=(const StreamEncoder &) = delete;

    /**
     * One streaming step over mel rows [rows][M] (the pre-encode cache, then the chunk's new frames):
     * subsampling, the first `drop` encoder frames dropped, the conformer layers with the caches
     * (updated), then joint.enc. Writes [frames][J] to `joint` and, when `encoded` is given, the encoder
     * frames [frames][D] to it; returns the frame count. With `profile`, the graph runs node by node, timed into it.
     */
    int step(const float * mel_rows, int rows, int drop, std::vector<float> & joint, std::vector<float> * encoded,
             EncoderProfile * profile = nullptr);

private:
    struct ChunkGraph;
    ChunkGraph & graph_for(int rows, int drop);
    /**
     * Every layer's linear_pos of the relative table for a full chunk (L + chunk keys), computed once:
     * the table depends only on the key count, and a shorter chunk's table is its centre rows.
     */
    void fill_positions();

    const Hparams & hp_;
    const EncoderWeights & w_;
    const PackedWeights & packed_;
    ComputeBackend & backend_;
    const int left_;   // attention cache length L
    const int chunk_;  // encoder frames per chunk of the preset (right + 1)
    const int prompt_index_;
    ggml_context * cache_ctx_ = nullptr;
    ggml_backend_buffer_t cache_buffer_ = nullptr;
    std::vector<StreamLayerCache> caches_;
    std::vector<ggml_tensor *> positions_;                               // per layer [D, 2(L + chunk)−1], in cache_buffer_'s context
    int filled_ = 0;                                                     // cache frames holding real frames (the rest are masked)
    std::map<std::pair<int, int>, std::unique_ptr<ChunkGraph>> graphs_;  // by (mel rows, dropped frames)
    std::vector<float> mask_;                                            // the attention mask upload [frames][L + frames]
};

}  // namespace parakeet
