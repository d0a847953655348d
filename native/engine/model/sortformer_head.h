// Sortformer's layers after the FastConformer, as one ggml graph on the model's backend (the encoder's
// device, threads and compute arena): encoder_proj, NeMo's post-LN TransformerEncoder (no positional
// encoding, every frame visible) and SortformerModules.forward_speaker_sigmoids. They run over at most
// spkcache + FIFO + chunk frames when streaming, over the whole clip offline.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "compute_backend.h"
#include "ggml-backend.h"
#include "gguf_file.h"
#include "sortformer_hparams.h"

namespace parakeet {

/** An nn.Linear on the device: weight ggml [in, out] (the GGUF's layout), bias [out]. */
struct DeviceLinear {
    ggml_tensor * w = nullptr;
    ggml_tensor * b = nullptr;
};

/** An nn.LayerNorm on the device: gamma, beta [d]. */
struct DeviceLayerNorm {
    ggml_tensor * gamma = nullptr;
    ggml_tensor * beta = nullptr;
};

/** One NeMo TransformerEncoderBlock (post-LN). */
struct TransformerLayerTensors {
    DeviceLinear query, key, value, out_projection;  // first_sub_layer (MultiHeadAttention)
    DeviceLayerNorm norm1;
    DeviceLinear dense_in, dense_out;  // second_sub_layer (PositionWiseFF)
    DeviceLayerNorm norm2;
};

class SortformerHead {
public:
    /** Reads sortformer_modules.* and transformer_encoder.* (names checked by read_sortformer_hparams) onto `backend`. */
    SortformerHead(const GgufFile & file, const SortformerHparams & sp, ComputeBackend & backend);
    ~SortformerHead();
    SortformerHead(const SortformerHead &) = delete;
    SortformerHead & operator=(const SortformerHead &) = delete;

    /**
     * NeMo SortformerEncLabelModel.forward_infer after frontend_encoder, over `frames` FastConformer outputs
     * [frames][fc_d_model]: the speaker activities, into `activities` [frames][n_speakers] (its memory
     * reused). One computation at a time (the backend's arena is shared with the encoder).
     */
    void speaker_activities(const float * encoded, int frames, std::vector<float> & activities, const std::atomic<bool> * abort);

    /** sortformer_modules.learnable_sil_emb [fc_d_model] (host), empty unless use_learnable_sil_emb. */
    const std::vector<float> & learnable_sil_emb() const { return learnable_sil_emb_; }

private:
    SortformerHparams sp_;
    ComputeBackend & backend_;
    ggml_context * weights_ctx_ = nullptr;
    ggml_backend_buffer_t weights_buffer_ = nullptr;
    DeviceLinear encoder_proj_, hidden_to_hidden_, hidden_to_spks_;  // first_hidden_to_hidden, single_hidden_to_spks
    std::vector<TransformerLayerTensors> layers_;
    std::vector<float> learnable_sil_emb_;
    std::vector<uint8_t> graph_meta_;  // the graph's tensor descriptions, about 1 MB for 18 layers: made once, not per chunk
};

}  // namespace parakeet
