#include "nvidia_schema.h"

#include <cmath>
#include <vector>

#include "gguf_file.h"
#include "log.h"
#include "mel_filterbank.h"

namespace parakeet {
namespace {

constexpr double kPi = 3.14159265358979323846;

/** Copies the integer key `from` to `to` (UINT32 in the overlay) when the file has it. */
void copy_int(const GgufFile & f, gguf_context * overlay, const char * from, const char * to) {
    if (f.has_key(from)) gguf_set_val_i64(overlay, to, f.get_int(from, 0));
}

void copy_bool(const GgufFile & f, gguf_context * overlay, const char * from, const char * to) {
    if (f.has_key(from)) gguf_set_val_bool(overlay, to, f.get_bool(from, false));
}

void copy_string(const GgufFile & f, gguf_context * overlay, const char * from, const char * to) {
    if (f.has_key(from)) gguf_set_val_str(overlay, to, f.get_string(from, "").c_str());
}

/** seconds × sample rate as whole samples (NeMo's FilterbankFeatures: int(window_size * sample_rate)). */
int64_t samples_of(double seconds, int64_t sample_rate) { return int64_t(std::llround(seconds * double(sample_rate))); }

/**
 * The STFT window the schema does not store: torch.hann_window(win_length, periodic=False), as NeMo's
 * FilterbankFeatures builds it (periodic only where the file says asr.preprocessor.hann_periodic).
 * Computed in double and rounded to float, the value parakeet.cpp's converter stores for the same
 * model (torch's float32 evaluation can differ from it by one float ulp).
 */
std::vector<float> hann_window(int64_t length, bool periodic) {
    std::vector<float> w(size_t(length), 1.0f);
    const double denominator = double(periodic ? length : length - 1);
    if (denominator <= 0) return w;
    for (int64_t n = 0; n < length; ++n) w[size_t(n)] = float(0.5 - 0.5 * std::cos(2.0 * kPi * double(n) / denominator));
    return w;
}

/** asr.head_type plus the CTC tensors of a hybrid as the engine's parakeet.arch. */
std::string engine_arch(const GgufFile & f) {
    const std::string head = f.get_string("asr.head_type", "ctc");
    const bool auxiliary_ctc = f.tensor("ctc_decoder.decoder_layers.0.weight") != nullptr;
    if (head == "ctc") return "ctc";
    if (head == "rnnt") return auxiliary_ctc ? "hybrid_rnnt_ctc" : "rnnt";
    if (head == "tdt") return auxiliary_ctc ? "hybrid_tdt_ctc" : "tdt";
    f.fail("asr.head_type = " + quoted_value(head) + " is not a head this engine runs (expected ctc, rnnt or tdt)");
}

/** What of the file this engine cannot run, by name, before anything is translated. */
void refuse_unsupported(const GgufFile & f) {
    for (const char * key : {"asr.encoder.q8_layout", "asr.encoder.qkv_q8_layout"}) {
        const std::string layout = f.get_string(key, "block_q8_0");
        if (layout != "block_q8_0") {
            f.fail(std::string(key) + " = " + quoted_value(layout) +
                   ": Q8_0 weights in NVIDIA's CUDA-only planar layout, which no CPU reader can use; export the model again with "
                   "NeMo-Speech.cpp's default '--q8-layout block', or use its F16/BF16 file");
        }
    }
    if (f.get_int("asr.rnnt.num_prompts", 0) > 0 || f.has_key("asr.rnnt.prompt_dictionary")) {
        f.fail("asr.rnnt.num_prompts > 0: a prompt-conditioned model (Nemotron-3.5 language prompts) in NVIDIA's schema, which "
               "this engine does not run yet; use a model without language prompts");
    }
    if (!f.get_bool("asr.preprocessor.stft_center_window", true)) {
        f.fail("asr.preprocessor.stft_center_window = false: an uncentred STFT window, which NeMo's preprocessor (and this engine) "
               "never uses; export the model again with NeMo-Speech.cpp's current converter");
    }
}

void translate_keys(const GgufFile & f, gguf_context * o) {
    gguf_set_val_str(o, "general.architecture", "parakeet");
    gguf_set_val_str(o, "parakeet.arch", engine_arch(f).c_str());

    copy_int(f, o, "asr.encoder.d_model", "parakeet.encoder.d_model");
    copy_int(f, o, "asr.encoder.n_layers", "parakeet.encoder.n_layers");
    copy_int(f, o, "asr.encoder.n_heads", "parakeet.encoder.n_heads");
    copy_int(f, o, "asr.encoder.d_ff", "parakeet.encoder.ff_dim");
    copy_int(f, o, "asr.encoder.conv_kernel_size", "parakeet.encoder.conv_kernel");
    copy_int(f, o, "asr.encoder.subsampling_factor", "parakeet.encoder.subsampling_factor");
    copy_int(f, o, "asr.encoder.subsampling_conv_channels", "parakeet.encoder.subsampling_conv_channels");
    copy_int(f, o, "asr.encoder.feat_in", "parakeet.encoder.feat_in");
    copy_bool(f, o, "asr.encoder.xscaling", "parakeet.encoder.xscaling");
    copy_bool(f, o, "asr.encoder.use_bias", "parakeet.encoder.use_bias");
    copy_string(f, o, "asr.encoder.conv_norm", "parakeet.encoder.conv_norm_type");
    copy_string(f, o, "asr.encoder.att_context_style", "parakeet.encoder.att_context_style");
    copy_int(f, o, "asr.encoder.offline_left_ctx", "parakeet.encoder.att_context_left");
    copy_int(f, o, "asr.encoder.offline_right_ctx", "parakeet.encoder.att_context_right");
    // The schema has one switch for both: NeMo-Speech.cpp runs causal convolutions and causal
    // subsampling exactly when asr.encoder.conv_context is "causal" (cache-aware Nemotron models).
    const bool causal = f.get_string("asr.encoder.conv_context", "symmetric") == "causal";
    gguf_set_val_bool(o, "parakeet.encoder.conv_causal", causal);
    gguf_set_val_bool(o, "parakeet.encoder.causal_downsampling", causal);

    const int64_t sample_rate = f.get_int("asr.preprocessor.sample_rate", 16000);
    gguf_set_val_i64(o, "parakeet.preprocessor.sample_rate", sample_rate);
    copy_int(f, o, "asr.preprocessor.features", "parakeet.preprocessor.n_mels");
    copy_int(f, o, "asr.preprocessor.n_fft", "parakeet.preprocessor.n_fft");
    gguf_set_val_i64(o, "parakeet.preprocessor.win_length", samples_of(f.get_float("asr.preprocessor.window_size", 0.025), sample_rate));
    gguf_set_val_i64(o, "parakeet.preprocessor.hop_length", samples_of(f.get_float("asr.preprocessor.window_stride", 0.01), sample_rate));
    if (f.has_key("asr.preprocessor.preemph"))
        gguf_set_val_f32(o, "parakeet.preprocessor.preemph", float(f.get_float("asr.preprocessor.preemph", 0.97)));
    copy_string(f, o, "asr.preprocessor.normalize", "parakeet.preprocessor.normalize");

    // Vocabulary: asr.tokenizer.vocab holds the pieces without blank. A CTC file counts them in
    // asr.ctc.num_classes; a transducer file's asr.rnnt.vocab_size includes the blank.
    const std::vector<std::string> pieces = f.get_string_array("asr.tokenizer.vocab");
    std::vector<const char *> piece_ptrs;
    piece_ptrs.reserve(pieces.size());
    for (const std::string & p : pieces) piece_ptrs.push_back(p.c_str());
    if (!pieces.empty()) gguf_set_arr_str(o, "parakeet.tokenizer.pieces", piece_ptrs.data(), piece_ptrs.size());
    if (f.get_string("asr.head_type", "ctc") == "ctc") {
        copy_int(f, o, "asr.ctc.num_classes", "parakeet.vocab_size");
        copy_int(f, o, "asr.ctc.blank_id", "parakeet.blank_id");
    } else {
        if (f.has_key("asr.rnnt.vocab_size")) {
            const int64_t with_blank = f.get_int("asr.rnnt.vocab_size", 0);
            if (with_blank < 2) f.fail("asr.rnnt.vocab_size = " + std::to_string(with_blank) + " (it counts the pieces and the blank: at least 2)");
            gguf_set_val_i64(o, "parakeet.vocab_size", with_blank - 1);
        }
        copy_int(f, o, "asr.rnnt.blank_id", "parakeet.blank_id");
        copy_int(f, o, "asr.rnnt.pred_hidden", "parakeet.decoder.pred_hidden");
        copy_int(f, o, "asr.rnnt.pred_num_layers", "parakeet.decoder.pred_rnn_layers");
        copy_int(f, o, "asr.rnnt.joint_dim", "parakeet.joint.joint_hidden");
        copy_int(f, o, "asr.rnnt.max_symbols_per_step", "parakeet.decoding.max_symbols");
        const std::vector<int64_t> durations = f.get_int_array("asr.tdt.durations");
        if (!durations.empty()) {
            std::vector<int32_t> narrow(durations.begin(), durations.end());
            gguf_set_arr_data(o, "parakeet.tdt.durations", GGUF_TYPE_INT32, narrow.data(), narrow.size());
        }
    }
}

/**
 * preprocessor.fb as the engine's preprocessor.featurizer.fb. NeMo-Speech.cpp's converter leaves it out
 * when librosa is missing (its runtime then uses unit-peak triangles, which NeMo never does): NeMo's own
 * Slaney filterbank is computed instead.
 */
void map_filterbank(GgufFile & f) {
    if (f.tensor("preprocessor.fb") != nullptr) {
        f.alias_tensor("preprocessor.featurizer.fb", "preprocessor.fb");
        return;
    }
    const int64_t sample_rate = f.get_int("parakeet.preprocessor.sample_rate", 16000);
    const int64_t n_fft = f.get_int("parakeet.preprocessor.n_fft", 512);
    const int64_t n_mels = f.get_int("parakeet.preprocessor.n_mels", 80);
    // Out-of-range values are left for read_hparams to name; nothing is computed from them.
    if (sample_rate < 1000 || sample_rate > 384000 || n_fft < 8 || n_fft > 65536 || n_mels < 1 || n_mels > 1024) return;
    log_line(LogLevel::Warn, f.path() + ": no preprocessor.fb in this NeMo-Speech.cpp file; using NeMo's Slaney mel filterbank computed at load");
    f.add_computed_tensor("preprocessor.featurizer.fb", slaney_mel_filterbank(int(sample_rate), int(n_fft), int(n_mels)), {n_fft / 2 + 1, n_mels});
}

/** NeMo-Speech.cpp renames PyTorch's LSTM parameters (weight_ih_l0 → ih_l0.weight) for its Linear module. */
void map_tensor_names(GgufFile & f) {
    const std::string lstm = "decoder.prediction.dec_rnn.lstm.";
    for (int layer = 0; f.tensor(lstm + "ih_l" + std::to_string(layer) + ".weight") != nullptr; ++layer) {
        const std::string l = std::to_string(layer);
        for (const char * gate : {"ih", "hh"}) {
            f.alias_tensor(lstm + "weight_" + gate + "_l" + l, lstm + gate + "_l" + l + ".weight");
            f.alias_tensor(lstm + "bias_" + gate + "_l" + l, lstm + gate + "_l" + l + ".bias");
        }
    }
}

}  // namespace

bool is_nvidia_schema(const GgufFile & file) { return file.get_string("general.architecture", "") == "asr"; }

void read_through_nvidia_schema(GgufFile & f) {
    refuse_unsupported(f);
    translate_keys(f, f.key_overlay());
    map_filterbank(f);
    map_tensor_names(f);
    // encoder.pos_enc.pe (NeMo RelPositionalEncoding's table, stored analytically) is not read: the engine
    // builds the same sin/cos table itself (position_table.cpp).
    const int64_t win_length = f.get_int("parakeet.preprocessor.win_length", 400);
    if (win_length < 1 || win_length > f.get_int("parakeet.preprocessor.n_fft", 512)) {
        f.fail("asr.preprocessor.window_size gives a window of " + std::to_string(win_length) + " samples, which does not fit n_fft");
    }
    f.add_computed_tensor("preprocessor.featurizer.window", hann_window(win_length, f.get_bool("asr.preprocessor.hann_periodic", false)));
}

std::string nvidia_sentencepiece_model(const GgufFile & f) {
    const std::string encoded = f.get_string("asr.tokenizer.spm_model", "");
    std::string out;
    out.reserve(encoded.size() * 3 / 4);
    uint32_t bits = 0;
    int count = 0;
    for (char c : encoded) {
        int v = -1;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+')
            v = 62;
        else if (c == '/')
            v = 63;
        else if (c == '=')
            break;
        else
            f.fail("asr.tokenizer.spm_model is not base64 (it holds the embedded SentencePiece model)");
        bits = (bits << 6) | uint32_t(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out.push_back(char((bits >> count) & 0xFF));
        }
    }
    return out;
}

}  // namespace parakeet
