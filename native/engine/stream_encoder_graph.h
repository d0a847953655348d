// Builders of one cache-aware streaming step of the FastConformer encoder (NeMo ConformerEncoder
// .cache_aware_stream_step): the conformer layers over one chunk of encoder frames, reading and
// updating each layer's attention and convolution caches in place.
#pragma once

#include <vector>

#include "encoder_graph.h"

namespace parakeet {

/** One layer's caches, persistent tensors of a stream (never in a graph's allocator). */
struct StreamLayerCache {
    ggml_tensor * key = nullptr;    // [D, L]: linear_k of the last L attention inputs (NeMo cache_last_channel, projected)
    ggml_tensor * value = nullptr;  // [D, L]: linear_v of the same frames
    ggml_tensor * conv = nullptr;   // [D, K−1]: the last K−1 GLU outputs (NeMo cache_last_time)
};

/**
 * NeMo ConformerLayer.forward with caches over x [D, frames]. `in.pos` is the relative table of
 * L + frames keys ([D, 2(L+frames)−1]) and `in.att_mask` [L + frames, frames] hides unfilled cache
 * slots. The nodes that write the updated caches are appended to `cache_writes` (the graph must run them).
 */
ggml_tensor * build_stream_layer(ggml_context * ctx, const Hparams & hp, const ConformerLayerWeights & w, ggml_tensor * x, const EncoderInputs & in,
                                 const StreamLayerCache & cache, int frames, std::vector<ggml_tensor *> & cache_writes);

}  // namespace parakeet
