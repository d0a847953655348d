// Sortformer diarizer hyper-parameters: the parakeet.diar.* keys of a parakeet.arch = diarization GGUF
// (NeMo SortformerModules' constructor arguments, its transformer_encoder's shape) next to the
// FastConformer's Hparams (model_schema.h).
#pragma once

#include "gguf_file.h"
#include "hparams.h"

namespace parakeet {

struct SortformerHparams {
    int n_speakers = 4;    // parakeet.diar.n_speakers (NeMo num_spks)
    int fc_d_model = 0;    // the FastConformer's d_model
    int tf_d_model = 192;  // parakeet.diar.tf_d_model
    int tf_layers = 0;     // counted transformer_encoder.layers.N
    int tf_heads = 8;      // parakeet.diar.tf_n_heads (NeMo transformer_encoder.num_attention_heads)
    int tf_inner = 0;      // from second_sub_layer.dense_in (NeMo inner_size)

    // Streaming (NeMo SortformerModules, in encoder frames of 80 ms); defaults: streaming_sortformer_diarizer_4spk-v2.yaml.
    bool streaming_mode = true;
    int chunk_len = 188;
    int chunk_left_context = 1;
    int chunk_right_context = 1;
    int spkcache_len = 188;
    int fifo_len = 0;
    int spkcache_update_period = 188;
    int spkcache_sil_frames_per_spk = 3;
    float sil_threshold = 0.2f;
    float pred_score_threshold = 0.25f;
    float scores_boost_latest = 0.05f;
    float strong_boost_rate = 0.75f;
    float weak_boost_rate = 1.5f;
    float min_pos_scores_rate = 0.5f;
    bool use_learnable_sil_emb = false;

    // Segment thresholds (parakeet.diar.onset_threshold / offset_threshold): a speaker's segment opens above
    // onset and closes below offset (NeMo binarization); NeMo's PostProcessingParams defaults.
    float onset_threshold = 0.5f;
    float offset_threshold = 0.5f;
};

/** The identity check of a diarizer file: throws Error(ModelInvalid) naming what the file is otherwise. */
void check_diarizer_identity(const GgufFile & file);

/** Reads and checks the parakeet.diar.* keys and every Sortformer tensor's shape (the encoder's: validate_tensors). */
SortformerHparams read_sortformer_hparams(const GgufFile & file, const Hparams & encoder);

}  // namespace parakeet
