#include "model_schema.h"

#include <algorithm>
#include <set>

#include "encoder_graph.h"
#include "foreign_models.h"
#include "log.h"
#include "parakeet/parakeet.h"
#include "tensor_table.h"

namespace parakeet {
namespace {

// Upper bounds far above any published model (D 1024, 42 layers, V 13087):
// anything beyond is a corrupt or hostile file, not a bigger model.
constexpr int64_t kMaxDim = 16384;
constexpr int64_t kMaxLayers = 256;
constexpr int64_t kMaxVocab = 1 << 20;

std::vector<int64_t> squeezed(const ggml_tensor * t) {
    std::vector<int64_t> out;
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (t->ne[i] != 1) out.push_back(t->ne[i]);
    }
    return out;
}

std::vector<int64_t> squeezed(std::vector<int64_t> ne) {
    ne.erase(std::remove(ne.begin(), ne.end(), int64_t(1)), ne.end());
    return ne;
}

std::string shape_text(const std::vector<int64_t> & ne) {
    std::string out = "[";
    for (size_t i = 0; i < ne.size(); ++i) out += (i ? ", " : "") + std::to_string(ne[i]);
    return out + "]";
}

std::string shape_text(const ggml_tensor * t) {
    int n = GGML_MAX_DIMS;
    while (n > 1 && t->ne[n - 1] == 1) --n;
    return shape_text(std::vector<int64_t>(t->ne, t->ne + n));
}

int64_t checked_dim(const GgufFile & f, const char * key, int64_t value, int64_t lo, int64_t hi) {
    if (value < lo || value > hi) {
        f.fail(std::string("key '") + key + "' = " + std::to_string(value) + " is out of range (expected " + std::to_string(lo) + ".." +
               std::to_string(hi) + ")");
    }
    return value;
}

/** Key if present; else the value inferred from a tensor (if any); else the default. */
int64_t dim_from(const GgufFile & f, const char * key, const char * tensor, int axis, int64_t fallback) {
    if (f.has_key(key)) return f.get_int(key, fallback);
    if (tensor != nullptr) {
        if (const ggml_tensor * t = f.tensor(tensor)) return t->ne[axis];
    }
    return fallback;
}

int count_indexed(const GgufFile & f, const std::string & prefix, const std::string & suffix) {
    int n = 0;
    while (f.tensor(prefix + std::to_string(n) + suffix) != nullptr && n < kMaxLayers + 1) ++n;
    return n;
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/**
 * The streaming presets: parakeet.encoder.att_context_presets ([l, r, l, r, …], first = default; NeMo's
 * att_context_size list of a multi-lookahead model), else the single att_context_left/right of a
 * chunked_limited model. The keys att_context_left/right, where absent, take the default preset.
 */
void read_att_presets(const GgufFile & f, Hparams & hp) {
    const std::vector<int64_t> flat = f.get_int_array("parakeet.encoder.att_context_presets");
    if (flat.size() % 2 != 0)
        f.fail("parakeet.encoder.att_context_presets holds " + std::to_string(flat.size()) + " numbers (expected pairs [left, right, …])");
    for (size_t i = 0; i + 1 < flat.size(); i += 2) {
        if (flat[i] < 1 || flat[i] > 10000 || flat[i + 1] < 0 || flat[i + 1] > 1000) {
            f.fail("parakeet.encoder.att_context_presets holds [" + std::to_string(flat[i]) + ", " + std::to_string(flat[i + 1]) +
                   "] (expected left 1..10000, right 0..1000)");
        }
        hp.att_presets.emplace_back(int(flat[i]), int(flat[i + 1]));
    }
    if (!hp.att_presets.empty()) {
        if (!f.has_key("parakeet.encoder.att_context_left")) hp.att_context_left = hp.att_presets[0].first;
        if (!f.has_key("parakeet.encoder.att_context_right")) hp.att_context_right = hp.att_presets[0].second;
    } else if (hp.att_context_style == "chunked_limited" && hp.att_context_left > 0 && hp.att_context_right >= 0) {
        hp.att_presets.emplace_back(hp.att_context_left, hp.att_context_right);
    }
}

}  // namespace

int prompt_index_for(const Hparams & hp, const std::string & language) {
    // "auto" is the dictionary's own entry for it where there is one (NeMo's prompt dictionary maps
    // "auto" to the language-agnostic prompt), else the entry of default_lang.
    const std::string & key = language == "auto" && std::find(hp.prompt_locales.begin(), hp.prompt_locales.end(), "auto") == hp.prompt_locales.end()
                                      ? hp.prompt_default_lang
                                      : language;
    for (size_t i = 0; i < hp.prompt_locales.size(); ++i) {
        if (hp.prompt_locales[i] == key) return hp.prompt_indices[i];
    }
    return -1;
}

std::string subsampling_conv_name(int index) { return "encoder.pre_encode.conv." + std::to_string(index); }

bool is_quantizable_name(const std::string & name) {
    static const char * suffixes[] = {
            ".feed_forward1.linear1.weight", ".feed_forward1.linear2.weight", ".feed_forward2.linear1.weight",
            ".feed_forward2.linear2.weight", ".self_attn.linear_q.weight",    ".self_attn.linear_k.weight",
            ".self_attn.linear_v.weight",    ".self_attn.linear_out.weight",  ".self_attn.linear_pos.weight",
    };
    if (name == "encoder.pre_encode.out.weight" || name == "joint.enc.weight" || name == "joint.pred.weight") return true;
    if (name.rfind("encoder.layers.", 0) != 0) return false;
    for (const char * s : suffixes) {
        const size_t n = std::char_traits<char>::length(s);
        if (name.size() > n && name.compare(name.size() - n, n, s) == 0) return true;
    }
    return false;
}

int Hparams::subsampling_stages() const {
    int stages = 0;
    for (int f = subsampling_factor; f > 1; f >>= 1) ++stages;
    return stages;
}

int Hparams::freq_after_subsampling() const {
    int f = n_mels;
    for (int s = 0; s < subsampling_stages(); ++s) f = causal_downsampling ? f / 2 + 1 : (f - 1) / 2 + 1;
    return f;
}

namespace {

/** general.architecture and parakeet.arch: a Parakeet speech-recognition model, and none of the kinds this engine refuses. */
void read_identity(const GgufFile & f, Hparams & hp) {
    const std::string general_arch = f.get_string("general.architecture", "");
    if (general_arch.empty()) {
        f.fail("no 'general.architecture' key: not a model in the parakeet.cpp GGUF format");
    }
    if (general_arch == "silero_vad") {
        f.fail("this is a Silero voice-activity model (general.architecture = 'silero_vad'), not a speech recognition model; "
               "choose a Parakeet ASR model such as tdt_ctc-110m");
    }
    const std::string foreign = foreign_gguf_refusal(f);
    if (!foreign.empty()) f.fail(foreign);
    if (general_arch != "parakeet") {
        f.fail("general.architecture is " + quoted_value(general_arch) + ", expected 'parakeet' or 'asr' (this is not a Parakeet speech model)");
    }
    hp.name = f.get_string("general.name", "");
    hp.arch = f.get_string("parakeet.arch", "");
    static const std::set<std::string> asr_arches = {"ctc", "rnnt", "tdt", "hybrid_rnnt_ctc", "hybrid_tdt_ctc"};
    if (hp.arch.empty()) f.fail("no 'parakeet.arch' key (expected one of ctc, rnnt, tdt, hybrid_rnnt_ctc, hybrid_tdt_ctc)");
    if (asr_arches.count(hp.arch) == 0) {
        f.fail("parakeet.arch = " + quoted_value(hp.arch) +
               " is not a speech recognition architecture this engine knows "
               "(expected ctc, rnnt, tdt, hybrid_rnnt_ctc or hybrid_tdt_ctc)");
    }
}

/** parakeet.preprocessor.* (NeMo AudioToMelSpectrogramPreprocessor). */
void read_preprocessor(const GgufFile & f, Hparams & hp) {
    hp.sample_rate = int(checked_dim(f, "parakeet.preprocessor.sample_rate", f.get_int("parakeet.preprocessor.sample_rate", 16000), 1000, 384000));
    hp.n_mels = int(checked_dim(f, "parakeet.preprocessor.n_mels", dim_from(f, "parakeet.preprocessor.n_mels", "preprocessor.featurizer.fb", 1, 80),
                                1, 1024));
    hp.feat_in = int(checked_dim(f, "parakeet.encoder.feat_in", f.get_int("parakeet.encoder.feat_in", hp.n_mels), 1, 1024));
    if (hp.feat_in != hp.n_mels) {
        f.fail("parakeet.encoder.feat_in = " + std::to_string(hp.feat_in) +
               " differs from parakeet.preprocessor.n_mels = " + std::to_string(hp.n_mels));
    }
    hp.n_fft = int(checked_dim(f, "parakeet.preprocessor.n_fft", f.get_int("parakeet.preprocessor.n_fft", 512), 8, 65536));
    if (!is_power_of_two(hp.n_fft)) f.fail("parakeet.preprocessor.n_fft = " + std::to_string(hp.n_fft) + " must be a power of two");
    hp.win_length = int(checked_dim(f, "parakeet.preprocessor.win_length",
                                    dim_from(f, "parakeet.preprocessor.win_length", "preprocessor.featurizer.window", 0, 400), 1, hp.n_fft));
    hp.hop_length = int(checked_dim(f, "parakeet.preprocessor.hop_length", f.get_int("parakeet.preprocessor.hop_length", 160), 1, hp.n_fft));
    hp.preemph = float(f.get_float("parakeet.preprocessor.preemph", 0.97));
    hp.mag_power = float(f.get_float("parakeet.preprocessor.mag_power", 2.0));
    hp.log_zero_guard = float(f.get_float("parakeet.preprocessor.log_zero_guard", 5.960464477539063e-08));
    hp.normalize = f.get_string("parakeet.preprocessor.normalize", "per_feature");
    if (!(hp.preemph >= 0.0f && hp.preemph < 1.0f)) f.fail("parakeet.preprocessor.preemph must be in [0, 1)");
    if (!(hp.mag_power > 0.0f && hp.mag_power <= 4.0f)) f.fail("parakeet.preprocessor.mag_power must be in (0, 4]");
    if (!(hp.log_zero_guard > 0.0f && hp.log_zero_guard < 1.0f)) f.fail("parakeet.preprocessor.log_zero_guard must be in (0, 1)");
    if (hp.normalize != "per_feature" && hp.normalize != "NA") {
        f.fail("parakeet.preprocessor.normalize = " + quoted_value(hp.normalize) + " (expected 'per_feature' or 'NA')");
    }
}

/** parakeet.encoder.* (NeMo ConformerEncoder), with dimensions inferred from layer 0 where a key is absent. */
void read_encoder(const GgufFile & f, Hparams & hp) {
    hp.d_model = int(checked_dim(f, "parakeet.encoder.d_model", dim_from(f, "parakeet.encoder.d_model", "encoder.layers.0.norm_out.weight", 0, 0), 1,
                                 kMaxDim));
    const int counted_layers = count_indexed(f, "encoder.layers.", ".norm_out.weight");
    hp.n_layers = int(checked_dim(f, "parakeet.encoder.n_layers", f.get_int("parakeet.encoder.n_layers", counted_layers), 1, kMaxLayers));
    hp.n_heads = int(checked_dim(f, "parakeet.encoder.n_heads",
                                 dim_from(f, "parakeet.encoder.n_heads", "encoder.layers.0.self_attn.pos_bias_u", 1, 8), 1, 1024));
    if (hp.d_model % 2 != 0) f.fail("parakeet.encoder.d_model = " + std::to_string(hp.d_model) + " must be even (sin/cos positional pairs)");
    if (hp.d_model % hp.n_heads != 0) {
        f.fail("parakeet.encoder.n_heads = " + std::to_string(hp.n_heads) + " does not divide d_model = " + std::to_string(hp.d_model));
    }
    hp.ff_dim = int(checked_dim(f, "parakeet.encoder.ff_dim",
                                dim_from(f, "parakeet.encoder.ff_dim", "encoder.layers.0.feed_forward1.linear1.weight", 1, 4 * int64_t(hp.d_model)),
                                1, 8 * kMaxDim));
    hp.conv_kernel = int(checked_dim(f, "parakeet.encoder.conv_kernel",
                                     dim_from(f, "parakeet.encoder.conv_kernel", "encoder.layers.0.conv.depthwise_conv.weight", 0, 9), 1, 255));
    if (hp.conv_kernel % 2 == 0) f.fail("parakeet.encoder.conv_kernel = " + std::to_string(hp.conv_kernel) + " must be odd");
    if (encoder_graph_nodes(hp) > kMaxEncoderGraphNodes) {
        f.fail(std::to_string(hp.n_layers) + " layers with conv_kernel " + std::to_string(hp.conv_kernel) +
               " exceed what this engine builds in one graph; this is not a published Parakeet shape");
    }
    hp.conv_norm_type = f.get_string("parakeet.encoder.conv_norm_type", "batch_norm");
    if (hp.conv_norm_type != "batch_norm" && hp.conv_norm_type != "layer_norm") {
        f.fail("parakeet.encoder.conv_norm_type = " + quoted_value(hp.conv_norm_type) + " (expected 'batch_norm' or 'layer_norm')");
    }
    hp.subsampling_factor = int(checked_dim(f, "parakeet.encoder.subsampling_factor", f.get_int("parakeet.encoder.subsampling_factor", 8), 2, 64));
    if (!is_power_of_two(hp.subsampling_factor)) f.fail("parakeet.encoder.subsampling_factor must be a power of two (dw_striding)");
    {
        // Each depthwise stage needs at least two frequency columns (ggml's channels-fastest kernel).
        int freq = hp.n_mels;
        const bool causal = f.get_bool("parakeet.encoder.causal_downsampling", false);
        for (int stage = 0; stage + 1 < hp.subsampling_stages(); ++stage) {
            freq = causal ? freq / 2 + 1 : (freq - 1) / 2 + 1;
            if (freq < 2)
                f.fail("parakeet.preprocessor.n_mels = " + std::to_string(hp.n_mels) + " is too small for ×" + std::to_string(hp.subsampling_factor) +
                       " subsampling");
        }
    }
    hp.subsampling_channels =
            int(checked_dim(f, "parakeet.encoder.subsampling_conv_channels",
                            dim_from(f, "parakeet.encoder.subsampling_conv_channels", "encoder.pre_encode.conv.0.weight", 3, 256), 1, 4096));
    hp.xscaling = f.get_bool("parakeet.encoder.xscaling", true);
    // The key, when written, is authoritative: every bias it implies is then required (a dropped one
    // must not quietly become zero). Files without the key say it by the first layer's bias.
    hp.use_bias = f.has_key("parakeet.encoder.use_bias") ? f.get_bool("parakeet.encoder.use_bias", true)
                                                         : f.tensor("encoder.layers.0.feed_forward1.linear1.bias") != nullptr;
    hp.att_context_style = f.get_string("parakeet.encoder.att_context_style", "regular");
    hp.att_context_left = int(f.get_int("parakeet.encoder.att_context_left", -1));
    hp.att_context_right = int(f.get_int("parakeet.encoder.att_context_right", -1));
    hp.causal_downsampling = f.get_bool("parakeet.encoder.causal_downsampling", false);
    hp.conv_causal = f.get_bool("parakeet.encoder.conv_causal", false);
    if (hp.att_context_style != "regular" && hp.att_context_style != "chunked_limited") {
        f.fail("parakeet.encoder.att_context_style = " + quoted_value(hp.att_context_style) +
               " is not supported (expected 'regular' or 'chunked_limited')");
    }
    read_att_presets(f, hp);
    if (hp.att_context_style == "chunked_limited" && (hp.att_context_left < 0 || hp.att_context_right < 0 || hp.att_context_right > 1000)) {
        f.fail("chunked_limited attention needs att_context_left ≥ 0 and att_context_right ≥ 0");
    }
}

/** parakeet.prompt.* (Nemotron-3.5's language prompt): the one-hot width and the locale → prompt index dictionary. */
void read_prompt(const GgufFile & f, Hparams & hp) {
    hp.has_prompt = f.get_bool("parakeet.prompt.present", false);
    if (!hp.has_prompt) return;
    hp.num_prompts = int(checked_dim(f, "parakeet.prompt.num_prompts", f.get_int("parakeet.prompt.num_prompts", 0), 1, 65536));
    hp.prompt_default_lang = f.get_string("parakeet.prompt.default_lang", "auto");
    hp.prompt_locales = f.get_string_array("parakeet.prompt.dictionary.keys");
    const std::vector<int64_t> values = f.get_int_array("parakeet.prompt.dictionary.values");
    if (hp.prompt_locales.empty()) f.fail("parakeet.prompt.present is true but 'parakeet.prompt.dictionary.keys' is missing or empty");
    if (values.size() != hp.prompt_locales.size()) {
        f.fail("parakeet.prompt.dictionary.values holds " + std::to_string(values.size()) + " entries for " +
               std::to_string(hp.prompt_locales.size()) + " keys (they must be parallel)");
    }
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] < 0 || values[i] >= hp.num_prompts) {
            f.fail("parakeet.prompt.dictionary.values[" + std::to_string(i) + "] = " + std::to_string(values[i]) + " is outside 0.." +
                   std::to_string(hp.num_prompts - 1) + " (parakeet.prompt.num_prompts)");
        }
        hp.prompt_indices.push_back(int(values[i]));
    }
    if (prompt_index_for(hp, "auto") < 0) {
        f.fail("parakeet.prompt.default_lang = " + quoted_value(hp.prompt_default_lang) + " names no entry of parakeet.prompt.dictionary.keys");
    }
}

/** parakeet.tokenizer.pieces, vocab_size and blank_id. */
void read_vocabulary(const GgufFile & f, Hparams & hp) {
    hp.pieces = f.get_string_array("parakeet.tokenizer.pieces");
    if (hp.pieces.empty()) f.fail("no vocabulary: key 'parakeet.tokenizer.pieces' is missing or empty");
    hp.vocab_size = int(checked_dim(f, "parakeet.vocab_size", f.get_int("parakeet.vocab_size", int64_t(hp.pieces.size())), 1, kMaxVocab));
    if (size_t(hp.vocab_size) != hp.pieces.size()) {
        f.fail("parakeet.vocab_size = " + std::to_string(hp.vocab_size) + " but parakeet.tokenizer.pieces holds " + std::to_string(hp.pieces.size()) +
               " pieces");
    }
    hp.blank_id = int(f.get_int("parakeet.blank_id", hp.vocab_size));
    if (hp.blank_id != hp.vocab_size) {
        f.fail("parakeet.blank_id = " + std::to_string(hp.blank_id) + ", expected vocab_size (" + std::to_string(hp.vocab_size) + ")");
    }
}

/** Which decoder heads the file holds (spec §1.3: by tensor presence), checked against parakeet.arch. */
void read_heads(const GgufFile & f, Hparams & hp) {
    const bool has_embed = f.tensor("decoder.prediction.embed.weight") != nullptr;
    const bool has_joint = f.tensor("joint.enc.weight") != nullptr;
    if (has_embed != has_joint) {
        f.fail(std::string("incomplete transducer head: '") + (has_embed ? "joint.enc.weight" : "decoder.prediction.embed.weight") + "' is missing");
    }
    hp.has_transducer = has_embed && has_joint;
    if (f.tensor("ctc_decoder.decoder_layers.0.weight") != nullptr) {
        hp.has_ctc = true;
        hp.ctc_prefix = "ctc_decoder.";
    } else if (f.tensor("decoder.decoder_layers.0.weight") != nullptr) {
        hp.has_ctc = true;
        hp.ctc_prefix = "decoder.";
    }
    const bool arch_wants_transducer = hp.arch != "ctc";
    if (arch_wants_transducer && !hp.has_transducer) {
        f.fail("parakeet.arch = " + quoted_value(hp.arch) + " but the transducer tensors (decoder.prediction.*, joint.*) are missing");
    }
    if (hp.arch == "ctc" && !hp.has_ctc) f.fail("parakeet.arch = 'ctc' but tensor 'decoder.decoder_layers.0.weight' is missing");
}

/** parakeet.decoder.*, parakeet.joint.*, max_symbols and the TDT durations (transducer models). */
void read_transducer(const GgufFile & f, Hparams & hp) {
    hp.pred_hidden = int(checked_dim(f, "parakeet.decoder.pred_hidden",
                                     dim_from(f, "parakeet.decoder.pred_hidden", "decoder.prediction.embed.weight", 0, 640), 1, kMaxDim));
    const int counted = count_indexed(f, "decoder.prediction.dec_rnn.lstm.weight_ih_l", "");
    int64_t layers = f.get_int("parakeet.decoder.pred_rnn_layers", counted > 0 ? counted : 1);
    if (layers == 0) layers = 1;  // parakeet.cpp treats 0 as 1
    hp.pred_layers = int(checked_dim(f, "parakeet.decoder.pred_rnn_layers", layers, 1, 16));
    hp.joint_hidden =
            int(checked_dim(f, "parakeet.joint.joint_hidden", dim_from(f, "parakeet.joint.joint_hidden", "joint.enc.weight", 1, 640), 1, kMaxDim));
    hp.joint_activation = f.get_string("parakeet.joint.activation", "relu");
    if (hp.joint_activation != "relu" && hp.joint_activation != "tanh" && hp.joint_activation != "sigmoid") {
        f.fail("parakeet.joint.activation = " + quoted_value(hp.joint_activation) + " (expected relu, tanh or sigmoid)");
    }
    hp.max_symbols = int(checked_dim(f, "parakeet.decoding.max_symbols", f.get_int("parakeet.decoding.max_symbols", 10), 1, 1000));
    for (int64_t d : f.get_int_array("parakeet.tdt.durations")) {
        if (d < 0 || d > 1000) f.fail("parakeet.tdt.durations holds " + std::to_string(d) + " (expected 0..1000)");
        hp.durations.push_back(int(d));
    }
}

}  // namespace

Hparams read_frontend_hparams(const GgufFile & f) {
    Hparams hp;
    hp.name = f.get_string("general.name", "");
    hp.arch = f.get_string("parakeet.arch", "");
    read_preprocessor(f, hp);
    read_encoder(f, hp);
    return hp;
}

Hparams read_hparams(const GgufFile & f) {
    Hparams hp;
    read_identity(f, hp);
    read_preprocessor(f, hp);
    read_encoder(f, hp);
    read_vocabulary(f, hp);
    read_heads(f, hp);
    if (hp.has_transducer) read_transducer(f, hp);
    read_prompt(f, hp);
    if (hp.has_prompt && !hp.has_transducer) f.fail("parakeet.prompt.present is true but the model has no transducer head for the prompt to feed");
    return hp;
}

void validate_tensors(const GgufFile & f, const Hparams & hp) {
    auto expect = [&](const std::string & name, const std::vector<int64_t> & ne) {
        const ggml_tensor * t = f.tensor(name);
        if (t == nullptr) f.fail("tensor '" + name + "' is missing (expected shape " + shape_text(ne) + ")");
        if (squeezed(t) != squeezed(ne)) {
            f.fail("tensor '" + name + "' has shape " + shape_text(t) + ", expected " + shape_text(ne));
        }
        if (ggml_get_type_traits(t->type)->to_float == nullptr && t->type != GGML_TYPE_F32) {
            f.fail("tensor '" + name + "' has type " + ggml_type_name(t->type) + ", which this engine cannot read");
        }
    };
    if (f.tensor("encoder.layers." + std::to_string(hp.n_layers) + ".norm_out.weight") != nullptr) {
        f.fail("parakeet.encoder.n_layers = " + std::to_string(hp.n_layers) + " but the file holds more encoder layers");
    }
    for (const TensorUse & use : tensors_for(hp)) {
        if (use.spec->need == TensorNeed::EncoderBias) {
            // The encoder's optional biases: all present with use_bias, none without (one the engine would
            // ignore is a file that disagrees with itself).
            const bool there = f.tensor(use.name) != nullptr;
            if (!use.present) {
                if (there) f.fail("tensor '" + use.name + "' is present but parakeet.encoder.use_bias = false");
                continue;
            }
            if (!there)
                f.fail("tensor '" + use.name + "' is missing (expected shape " + shape_text(use.shape) + ", parakeet.encoder.use_bias = true)");
        }
        if (use.name == "joint.joint_net.2.weight") {
            // The output count says whether durations are missing, the likeliest mistake: say so.
            const ggml_tensor * out = f.tensor(use.name);
            if (out == nullptr) f.fail("tensor 'joint.joint_net.2.weight' is missing");
            const int64_t want = use.shape.back();
            if (out->ne[1] != want) {
                f.fail("tensor 'joint.joint_net.2.weight' has " + std::to_string(out->ne[1]) + " outputs, expected " + std::to_string(want) +
                       (hp.durations.empty() ? " (vocab + blank; a TDT model also needs the key parakeet.tdt.durations)"
                                             : " (vocab + blank + " + std::to_string(hp.durations.size()) + " durations)"));
            }
        }
        expect(use.name, use.shape);
    }
}

}  // namespace parakeet
