// Streaming Sortformer's memory: the speaker cache and the FIFO of pre-encoded frames, updated after
// each chunk as NeMo's SortformerModules.streaming_update (synchronous version, batch of one), with
// the speaker-cache compression of _compress_spkcache and the silence profile of _get_silence_profile.
#pragma once

#include <vector>

#include "sortformer_hparams.h"

namespace parakeet {

struct SortformerCache {
    int dim = 0;  // fc_d_model
    int n_speakers = 0;
    std::vector<float> spkcache;        // [spkcache_frames][dim]
    std::vector<float> spkcache_preds;  // [spkcache_frames][S], meaningful once compressed
    int spkcache_frames = 0;
    bool compressed = false;  // NeMo spkcache_compressed
    std::vector<float> fifo;  // [fifo_frames][dim]
    int fifo_frames = 0;
    std::vector<float> mean_sil_emb;  // [dim]
    long long n_sil_frames = 0;
    // The compression's output rows and predictions, swapped with spkcache / spkcache_preds: each
    // compression reuses the memory of the one before (a stream compresses every chunk for hours).
    std::vector<float> spare_rows, spare_preds;

    SortformerCache(int dim, int n_speakers);
    /** Sets `rows` to the rows the next chunk's encoder input starts with: the speaker cache, then the FIFO. */
    void prefix(std::vector<float> & rows) const;
    int prefix_frames() const { return spkcache_frames + fifo_frames; }
};

/**
 * NeMo streaming_update: `chunk` [lc + chunk + rc][dim] pre-encoded rows, `preds` [prefix + lc + chunk + rc][S]
 * the activities over [spkcache, FIFO, chunk]. Moves the chunk into the FIFO, pops the FIFO's oldest frames
 * into the speaker cache when it overflows, and compresses the cache past spkcache_len. Returns the chunk's
 * own activities [chunk][S].
 */
std::vector<float> sortformer_streaming_update(const SortformerHparams & sp, const std::vector<float> & learnable_sil_emb, SortformerCache & cache,
                                               const std::vector<float> & chunk, int chunk_rows, int lc, int rc, const std::vector<float> & preds);

}  // namespace parakeet
