// Builders of one cache-aware streaming step of the FastConformer encoder (NeMo ConformerEncoder
// .cache_aware_stream_step): the conformer layers over one chunk of encoder frames, reading and
// updating each layer's attention and convolution caches in place.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "encoder_graph.h"

namespace parakeet {

/**
 * One layer's caches, persistent tensors of a stream (never in a graph's allocator). Each is a window:
 * the cached frames in its first columns, room for a chunk after them, so a step writes the chunk's
 * frames in place and reads [cache | chunk] as one tensor (no concat).
 */
struct StreamLayerCache {
    ggml_tensor * key = nullptr;    // [D, L + chunk]: linear_k of the last L attention inputs (NeMo cache_last_channel, projected)
    ggml_tensor * value = nullptr;  // linear_v of the same frames: [D, L + chunk] as `key` where value_columns, else [L + chunk, D]
                                    // (keys fastest, as ggml's attention·V matmul reads it)
    ggml_tensor * conv = nullptr;   // [D, K−1 + chunk]: the last K−1 GLU outputs (NeMo cache_last_time)
    int left = 0;                   // L
    bool value_columns = false;     // the fused CPU op runs the attention (stream_attention_op.h), reading V as columns
    bool fused = false;             // CPU: the fused attention, and window shifts in place (window_shift_op.h)
};

/**
 * Where each part of a chunk's graph ends, for profiles (ComputeBackend::compute_profiled's part_of):
 * each part is expanded into the graph as soon as it is built, so its nodes follow the previous
 * part's; the order is still one the data dependencies allow, so the numbers are the same.
 */
class GraphParts {
public:
    void mark(ggml_cgraph * graph, ggml_tensor * last, const char * name) {
        ggml_build_forward_expand(graph, last);
        ends_.emplace_back(ggml_graph_n_nodes(graph), name);
    }
    /** The part holding node `index`; "" after the last mark. */
    std::string of(int index) const {
        for (const auto & e : ends_) {
            if (index < e.first) return e.second;
        }
        return "";
    }

private:
    std::vector<std::pair<int, std::string>> ends_;  // (graph nodes once the part was added, its name)
};

/**
 * NeMo ConformerLayer.forward with caches over x [D, frames]. `positions` is this layer's linear_pos of
 * the relative table of L + frames keys, head-major [dk, 2(L+frames)−1, H]; `in.att_mask`
 * [L + frames, frames] hides unfilled cache slots. The chunk's writes into the
 * windows are expanded into `graph` at once (they must run before the reads that follow them); the
 * nodes that move each window's last frames to its front for the next chunk go to `cache_shifts`,
 * which the graph must run after everything else.
 */
ggml_tensor * build_stream_layer(ggml_context * ctx, ggml_cgraph * graph, const Hparams & hp, const ConformerLayerWeights & w, ggml_tensor * x,
                                 const EncoderInputs & in, ggml_tensor * positions, const StreamLayerCache & cache, int frames,
                                 std::vector<ggml_tensor *> & cache_shifts, GraphParts & parts);

}  // namespace parakeet
