// The diarization GGUF schema: parakeet.arch = diarization, parakeet.diar.* keys, and the NeMo
// state_dict names of SortformerEncLabelModel's sortformer_modules.* and transformer_encoder.*.
// parakeet.cpp's converter (scripts/convert_parakeet_to_gguf.py) writes every state_dict name verbatim,
// leaving out encoder.pos_enc.*, sortformer_modules.hidden_to_spks.* (unused at inference),
// spec_augmentation.*, loss.* and sortformer_modules.transformer_encoder.*; its engine runs
// Nemotron-3-Diarization (a RoPE transformer, refused below) and reads no transformer_encoder.*. One name
// here differs from verbatim: "transformer_encoder.layers.N.first_sub_layer.out_projection.weight" is
// 66 bytes, and ggml's GGUF reader refuses a tensor name of 64 bytes or more (GGML_MAX_NAME), so a file
// with the verbatim name cannot be opened by any stock ggml; the output projection is stored as
// ….first_sub_layer.out_proj.* (the short form other ggml ports of NeMo's transformer use).
#include <string>
#include <vector>

#include "foreign_models.h"
#include "sortformer_hparams.h"

namespace parakeet {
namespace {

int checked(const GgufFile & f, const char * key, int64_t value, int64_t lo, int64_t hi) {
    if (value < lo || value > hi) {
        f.fail(std::string("key '") + key + "' = " + std::to_string(value) + " is out of range (expected " + std::to_string(lo) + ".." +
               std::to_string(hi) + ")");
    }
    return int(value);
}

float checked_rate(const GgufFile & f, const char * key, double fallback, double lo, double hi) {
    const double v = f.get_float(key, fallback);
    if (!(v >= lo && v <= hi)) f.fail(std::string("key '") + key + "' = " + std::to_string(v) + " is out of range");
    return float(v);
}

/** A tensor's ggml shape, or a failure naming it and the expected shape. */
void expect_shape(const GgufFile & f, const std::string & name, std::vector<int64_t> ne) {
    const ggml_tensor * t = f.tensor(name);
    std::string want = "[";
    for (size_t i = 0; i < ne.size(); ++i) want += (i ? ", " : "") + std::to_string(ne[i]);
    want += "]";
    if (t == nullptr) f.fail("tensor '" + name + "' is missing (expected shape " + want + ")");
    for (size_t i = 0; i < ne.size(); ++i) {
        if (t->ne[i] != ne[i]) f.fail("tensor '" + name + "' has the wrong shape (expected " + want + ")");
    }
}

void expect_linear(const GgufFile & f, const std::string & prefix, int64_t in, int64_t out) {
    expect_shape(f, prefix + ".weight", {in, out});
    expect_shape(f, prefix + ".bias", {out});
}

}  // namespace

void check_diarizer_identity(const GgufFile & f) {
    const std::string general_arch = f.get_string("general.architecture", "");
    const std::string arch = f.get_string("parakeet.arch", "");
    if (general_arch == "silero_vad") f.fail("this is a Silero voice-activity model, not a speaker-diarization model (choose a Sortformer GGUF)");
    if (general_arch != "parakeet" || arch != "diarization") {
        // Files of other tools and kinds are named as the speech model's loader names them.
        const std::string foreign = foreign_gguf_refusal(f);
        if (!foreign.empty()) f.fail(foreign + " (as the diarizer: choose a Sortformer GGUF, parakeet.arch = 'diarization')");
    }
    if (general_arch != "parakeet") f.fail("general.architecture is '" + general_arch + "', expected 'parakeet' (this is not a Sortformer diarizer)");
    if (arch != "diarization") {
        f.fail("this is a speech recognition model (parakeet.arch = '" + arch +
               "'), not a speaker-diarization model; "
               "choose a Sortformer GGUF (parakeet.arch = 'diarization') as the diarizer, and this file as the speech model");
    }
    if (f.tensor("sortformer_modules.subpixel_upsample.weight") != nullptr) {
        f.fail("tensor 'sortformer_modules.subpixel_upsample.weight': this is a 10 ms speaker head (Nemotron-3-Diarization), not supported; "
               "use a Streaming Sortformer 4spk-v2 GGUF");
    }
    const std::string attention = f.get_string("parakeet.encoder.self_attention_model", "rel_pos");
    if (attention != "rel_pos") {
        f.fail("parakeet.encoder.self_attention_model = '" + attention +
               "': this diarizer's encoder (e.g. Nemotron-3-Diarization's RoPE transformer) is not supported; "
               "use a Streaming Sortformer 4spk-v2 GGUF (FastConformer with rel_pos attention)");
    }
}

SortformerHparams read_sortformer_hparams(const GgufFile & f, const Hparams & enc) {
    SortformerHparams sp;
    sp.fc_d_model = enc.d_model;
    sp.n_speakers = checked(f, "parakeet.diar.n_speakers", f.get_int("parakeet.diar.n_speakers", 4), 1, 64);
    sp.tf_d_model = checked(f, "parakeet.diar.tf_d_model", f.get_int("parakeet.diar.tf_d_model", 192), 1, 16384);
    sp.tf_heads = checked(f, "parakeet.diar.tf_n_heads", f.get_int("parakeet.diar.tf_n_heads", 8), 1, 256);
    if (sp.tf_d_model % sp.tf_heads != 0) {
        f.fail("parakeet.diar.tf_n_heads = " + std::to_string(sp.tf_heads) +
               " does not divide parakeet.diar.tf_d_model = " + std::to_string(sp.tf_d_model));
    }
    while (sp.tf_layers < 256 && f.tensor("transformer_encoder.layers." + std::to_string(sp.tf_layers) + ".layer_norm_1.weight") != nullptr)
        ++sp.tf_layers;
    if (sp.tf_layers == 0) f.fail("tensor 'transformer_encoder.layers.0.layer_norm_1.weight' is missing (a Sortformer has a transformer encoder)");
    const ggml_tensor * dense_in = f.tensor("transformer_encoder.layers.0.second_sub_layer.dense_in.weight");
    if (dense_in == nullptr) f.fail("tensor 'transformer_encoder.layers.0.second_sub_layer.dense_in.weight' is missing");
    sp.tf_inner = int(dense_in->ne[1]);

    sp.streaming_mode = f.get_bool("parakeet.diar.streaming_mode", true);
    sp.chunk_len = checked(f, "parakeet.diar.chunk_len", f.get_int("parakeet.diar.chunk_len", 188), 1, 100000);
    sp.chunk_left_context = checked(f, "parakeet.diar.chunk_left_context", f.get_int("parakeet.diar.chunk_left_context", 1), 0, 10000);
    sp.chunk_right_context = checked(f, "parakeet.diar.chunk_right_context", f.get_int("parakeet.diar.chunk_right_context", 1), 0, 10000);
    sp.spkcache_sil_frames_per_spk =
            checked(f, "parakeet.diar.spkcache_sil_frames_per_spk", f.get_int("parakeet.diar.spkcache_sil_frames_per_spk", 3), 0, 10000);
    // NeMo _check_streaming_parameters: the cache holds at least one speech and the silence frames per speaker.
    sp.spkcache_len = checked(f, "parakeet.diar.spkcache_len", f.get_int("parakeet.diar.spkcache_len", 188),
                              int64_t(1 + sp.spkcache_sil_frames_per_spk) * sp.n_speakers, 100000);
    sp.fifo_len = checked(f, "parakeet.diar.fifo_len", f.get_int("parakeet.diar.fifo_len", 0), 0, 100000);
    sp.spkcache_update_period = checked(f, "parakeet.diar.spkcache_update_period", f.get_int("parakeet.diar.spkcache_update_period", 188), 1, 100000);
    sp.sil_threshold = checked_rate(f, "parakeet.diar.sil_threshold", 0.2, 0.0, 64.0);
    sp.pred_score_threshold = checked_rate(f, "parakeet.diar.pred_score_threshold", 0.25, 1e-6, 1.0);
    sp.scores_boost_latest = checked_rate(f, "parakeet.diar.scores_boost_latest", 0.05, 0.0, 100.0);
    sp.strong_boost_rate = checked_rate(f, "parakeet.diar.strong_boost_rate", 0.75, 0.0, 100.0);
    sp.weak_boost_rate = checked_rate(f, "parakeet.diar.weak_boost_rate", 1.5, 0.0, 100.0);
    sp.min_pos_scores_rate = checked_rate(f, "parakeet.diar.min_pos_scores_rate", 0.5, 0.0, 100.0);
    // Segment post-processing (NeMo ts_vad_post_processing): parakeet.cpp's converter writes these two from the
    // model config's diarizer.onset / offset; NeMo's PostProcessingParams default is 0.5 for both.
    sp.onset_threshold = checked_rate(f, "parakeet.diar.onset_threshold", 0.5, 0.0, 1.0);
    sp.offset_threshold = checked_rate(f, "parakeet.diar.offset_threshold", 0.5, 0.0, 1.0);
    sp.use_learnable_sil_emb = f.get_bool("parakeet.diar.use_learnable_sil_emb", f.tensor("sortformer_modules.learnable_sil_emb") != nullptr);

    const int64_t fc = sp.fc_d_model, tf = sp.tf_d_model, S = sp.n_speakers;
    expect_linear(f, "sortformer_modules.encoder_proj", fc, tf);
    expect_linear(f, "sortformer_modules.first_hidden_to_hidden", tf, tf);
    expect_linear(f, "sortformer_modules.single_hidden_to_spks", tf, S);
    if (sp.use_learnable_sil_emb) expect_shape(f, "sortformer_modules.learnable_sil_emb", {fc});
    for (int i = 0; i < sp.tf_layers; ++i) {
        const std::string p = "transformer_encoder.layers." + std::to_string(i) + ".";
        for (const char * net : {"query_net", "key_net", "value_net", "out_proj"}) expect_linear(f, p + "first_sub_layer." + net, tf, tf);
        expect_shape(f, p + "layer_norm_1.weight", {tf});
        expect_shape(f, p + "layer_norm_1.bias", {tf});
        expect_linear(f, p + "second_sub_layer.dense_in", tf, sp.tf_inner);
        expect_linear(f, p + "second_sub_layer.dense_out", sp.tf_inner, tf);
        expect_shape(f, p + "layer_norm_2.weight", {tf});
        expect_shape(f, p + "layer_norm_2.bias", {tf});
    }
    return sp;
}

}  // namespace parakeet
