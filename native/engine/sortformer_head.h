// Sortformer's layers after the FastConformer, on the host in F32: encoder_proj, NeMo's post-LN
// TransformerEncoder and SortformerModules.forward_speaker_sigmoids. They are small (192 wide) next to
// the encoder, and run over at most spkcache + FIFO + chunk frames when streaming: plain loops the
// compiler vectorizes (weights kept k-major), split over frames across the model's CPU threads.
#pragma once

#include <vector>

#include "gguf_file.h"
#include "sortformer_hparams.h"

namespace parakeet {

/** nn.Linear: weight transposed to [in][out] (k-major: one input feature's weights over all outputs), bias [out]. */
struct HostLinear {
    int in = 0, out = 0;
    std::vector<float> w_t, b;
};

struct HostLayerNorm {
    std::vector<float> gamma, beta;
};

struct TransformerLayerWeights {
    HostLinear query, key, value, out_projection;  // first_sub_layer (MultiHeadAttention)
    HostLayerNorm norm1;
    HostLinear dense_in, dense_out;                // second_sub_layer (PositionWiseFF)
    HostLayerNorm norm2;
};

struct SortformerHeadWeights {
    HostLinear encoder_proj;
    std::vector<TransformerLayerWeights> layers;
    HostLinear hidden_to_hidden;   // first_hidden_to_hidden
    HostLinear hidden_to_spks;     // single_hidden_to_spks
    std::vector<float> learnable_sil_emb;  // [fc_d_model] when use_learnable_sil_emb
};

SortformerHeadWeights read_sortformer_head(const GgufFile & file, const SortformerHparams & sp);

/**
 * NeMo SortformerEncLabelModel.forward_infer after frontend_encoder: encoder_proj, the transformer
 * encoder (no positional encoding, every frame visible) and forward_speaker_sigmoids, over
 * `frames` FastConformer outputs [frames][fc_d_model] on `threads` CPU threads; returns the speaker activities
 * [frames][n_speakers].
 */
std::vector<float> sortformer_speaker_activities(const SortformerHeadWeights & w, const SortformerHparams & sp, const float * encoded, int frames,
                                                 int threads);

}  // namespace parakeet
