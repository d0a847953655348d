#include "nvidia_sortformer_schema.h"

#include <string>

#include "gguf_file.h"
#include "nvidia_frontend.h"

namespace parakeet {
namespace {

/**
 * Its sortformer.* keys as parakeet.diar.*: the transformer's shape, the speaker count, the AOSC
 * scoring constants (sortformer.scoring.*) and the checkpoint's streaming geometry (sortformer.streaming.*,
 * which NeMo-Speech.cpp records but replaces by its own presets; NeMo's forward_streaming uses these).
 */
void translate_diarizer_keys(const GgufFile & f, gguf_context * o) {
    gguf_set_val_str(o, "general.architecture", "parakeet");
    gguf_set_val_str(o, "parakeet.arch", "diarization");
    copy_int(f, o, "sortformer.num_speakers", "parakeet.diar.n_speakers");
    copy_int(f, o, "sortformer.transformer.hidden_size", "parakeet.diar.tf_d_model");
    copy_int(f, o, "sortformer.transformer.n_heads", "parakeet.diar.tf_n_heads");
    for (const char * key : {"spkcache_sil_frames_per_spk", "pred_score_threshold", "scores_boost_latest", "sil_threshold", "strong_boost_rate",
                             "weak_boost_rate", "min_pos_scores_rate"}) {
        const std::string from = std::string("sortformer.scoring.") + key, to = std::string("parakeet.diar.") + key;
        if (!f.has_key(from.c_str())) continue;
        if (std::string(key) == "spkcache_sil_frames_per_spk")
            copy_int(f, o, from, to.c_str());
        else
            gguf_set_val_f32(o, to.c_str(), float(f.get_float(from.c_str(), 0.0)));
    }
    for (const char * key : {"spkcache_len", "fifo_len", "chunk_len", "spkcache_update_period", "chunk_left_context", "chunk_right_context"}) {
        copy_int(f, o, std::string("sortformer.streaming.") + key, (std::string("parakeet.diar.") + key).c_str());
    }
}

/**
 * The converter's renames undone: encoder_proj.* and head.* were sortformer_modules.*, transformer.* was
 * transformer_encoder.*; out_projection is read as out_proj (the name the engine reads for parakeet.cpp
 * files, whose full NeMo name is longer than ggml's 64-byte tensor names).
 */
void map_diarizer_tensors(GgufFile & f) {
    for (const char * part : {"weight", "bias"}) {
        const std::string p = part;
        f.alias_tensor("sortformer_modules.encoder_proj." + p, "encoder_proj." + p);
        f.alias_tensor("sortformer_modules.first_hidden_to_hidden." + p, "head.first_hidden_to_hidden." + p);
        f.alias_tensor("sortformer_modules.single_hidden_to_spks." + p, "head.single_hidden_to_spks." + p);
    }
    for (int i = 0; f.tensor("transformer.layers." + std::to_string(i) + ".layer_norm_1.weight") != nullptr; ++i) {
        const std::string from = "transformer.layers." + std::to_string(i) + ".", to = "transformer_encoder.layers." + std::to_string(i) + ".";
        for (const char * part : {"weight", "bias"}) {
            const std::string p = part;
            for (const char * net : {"query_net", "key_net", "value_net"}) {
                f.alias_tensor(to + "first_sub_layer." + net + "." + p, from + "first_sub_layer." + net + "." + p);
            }
            f.alias_tensor(to + "first_sub_layer.out_proj." + p, from + "first_sub_layer.out_projection." + p);
            for (const char * module : {"layer_norm_1", "second_sub_layer.dense_in", "second_sub_layer.dense_out", "layer_norm_2"}) {
                f.alias_tensor(to + module + "." + p, from + module + "." + p);
            }
        }
    }
}

}  // namespace

bool is_nvidia_sortformer_schema(const GgufFile & file) { return file.get_string("general.architecture", "") == "sortformer"; }

void read_through_nvidia_sortformer_schema(GgufFile & f) {
    // NeMo's Sortformer transformer is post-LN (TransformerEncoderBlock.forward_postln), which the engine runs.
    if (f.get_bool("sortformer.transformer.pre_ln", false)) {
        f.fail("sortformer.transformer.pre_ln = true: a pre-LN transformer head, which Streaming Sortformer 4spk-v2 does not use and this "
               "engine does not run; use a diar_streaming_sortformer_4spk-v2 conversion");
    }
    translate_frontend_keys(f, f.key_overlay(), "sortformer");
    translate_diarizer_keys(f, f.key_overlay());
    map_frontend_tensors(f, "sortformer");
    map_diarizer_tensors(f);
}

}  // namespace parakeet
