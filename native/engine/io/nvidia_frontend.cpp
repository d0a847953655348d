#include "nvidia_frontend.h"

#include <cmath>
#include <vector>

#include "gguf_file.h"
#include "log.h"
#include "mel_filterbank.h"

namespace parakeet {
namespace {

constexpr double kPi = 3.14159265358979323846;

/** seconds × sample rate as whole samples (NeMo's FilterbankFeatures: int(window_size * sample_rate)). */
int64_t samples_of(double seconds, int64_t sample_rate) { return int64_t(std::llround(seconds * double(sample_rate))); }

/**
 * The STFT window the schema does not store: torch.hann_window(win_length, periodic=False), as NeMo's
 * FilterbankFeatures builds it (periodic only where the file says <prefix>.preprocessor.hann_periodic).
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

}  // namespace

void copy_int(const GgufFile & f, gguf_context * overlay, const std::string & from, const char * to) {
    if (f.has_key(from.c_str())) gguf_set_val_i64(overlay, to, f.get_int(from.c_str(), 0));
}

void copy_bool(const GgufFile & f, gguf_context * overlay, const std::string & from, const char * to) {
    if (f.has_key(from.c_str())) gguf_set_val_bool(overlay, to, f.get_bool(from.c_str(), false));
}

void copy_string(const GgufFile & f, gguf_context * overlay, const std::string & from, const char * to) {
    if (f.has_key(from.c_str())) gguf_set_val_str(overlay, to, f.get_string(from.c_str(), "").c_str());
}

void translate_frontend_keys(const GgufFile & f, gguf_context * o, const std::string & prefix) {
    const std::string enc = prefix + ".encoder.", pre = prefix + ".preprocessor.";
    copy_int(f, o, enc + "d_model", "parakeet.encoder.d_model");
    copy_int(f, o, enc + "n_layers", "parakeet.encoder.n_layers");
    copy_int(f, o, enc + "n_heads", "parakeet.encoder.n_heads");
    copy_int(f, o, enc + "d_ff", "parakeet.encoder.ff_dim");
    copy_int(f, o, enc + "conv_kernel_size", "parakeet.encoder.conv_kernel");
    copy_int(f, o, enc + "subsampling_factor", "parakeet.encoder.subsampling_factor");
    copy_int(f, o, enc + "subsampling_conv_channels", "parakeet.encoder.subsampling_conv_channels");
    copy_int(f, o, enc + "feat_in", "parakeet.encoder.feat_in");
    copy_bool(f, o, enc + "xscaling", "parakeet.encoder.xscaling");
    copy_bool(f, o, enc + "use_bias", "parakeet.encoder.use_bias");
    copy_string(f, o, enc + "conv_norm", "parakeet.encoder.conv_norm_type");
    copy_string(f, o, enc + "att_context_style", "parakeet.encoder.att_context_style");
    copy_int(f, o, enc + "offline_left_ctx", "parakeet.encoder.att_context_left");
    copy_int(f, o, enc + "offline_right_ctx", "parakeet.encoder.att_context_right");
    // The schema has one switch for both: NeMo-Speech.cpp runs causal convolutions and causal
    // subsampling exactly when <prefix>.encoder.conv_context is "causal" (cache-aware Nemotron models).
    const bool causal = f.get_string((enc + "conv_context").c_str(), "symmetric") == "causal";
    gguf_set_val_bool(o, "parakeet.encoder.conv_causal", causal);
    gguf_set_val_bool(o, "parakeet.encoder.causal_downsampling", causal);

    const int64_t sample_rate = f.get_int((pre + "sample_rate").c_str(), 16000);
    gguf_set_val_i64(o, "parakeet.preprocessor.sample_rate", sample_rate);
    copy_int(f, o, pre + "features", "parakeet.preprocessor.n_mels");
    copy_int(f, o, pre + "n_fft", "parakeet.preprocessor.n_fft");
    gguf_set_val_i64(o, "parakeet.preprocessor.win_length", samples_of(f.get_float((pre + "window_size").c_str(), 0.025), sample_rate));
    gguf_set_val_i64(o, "parakeet.preprocessor.hop_length", samples_of(f.get_float((pre + "window_stride").c_str(), 0.01), sample_rate));
    if (f.has_key((pre + "preemph").c_str()))
        gguf_set_val_f32(o, "parakeet.preprocessor.preemph", float(f.get_float((pre + "preemph").c_str(), 0.97)));
    copy_string(f, o, pre + "normalize", "parakeet.preprocessor.normalize");
}

void map_frontend_tensors(GgufFile & f, const std::string & prefix) {
    map_filterbank(f);
    // encoder.pos_enc.pe (NeMo RelPositionalEncoding's table, stored analytically) is not read: the engine
    // builds the same sin/cos table itself (position_table.cpp).
    const int64_t win_length = f.get_int("parakeet.preprocessor.win_length", 400);
    if (win_length < 1 || win_length > f.get_int("parakeet.preprocessor.n_fft", 512)) {
        f.fail(prefix + ".preprocessor.window_size gives a window of " + std::to_string(win_length) + " samples, which does not fit n_fft");
    }
    f.add_computed_tensor("preprocessor.featurizer.window",
                          hann_window(win_length, f.get_bool((prefix + ".preprocessor.hann_periodic").c_str(), false)));
}

}  // namespace parakeet
