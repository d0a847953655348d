// Model hyper-parameters, read from the `parakeet.*` GGUF keys (spec §1.2).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace parakeet {

struct Hparams {
    std::string name;  // general.name
    std::string arch;  // parakeet.arch as written

    // preprocessor (NeMo AudioToMelSpectrogramPreprocessor)
    int sample_rate = 16000;
    int n_mels = 80;
    int n_fft = 512;
    int win_length = 400;
    int hop_length = 160;
    float preemph = 0.97f;
    float mag_power = 2.0f;
    float log_zero_guard = 5.960464477539063e-08f;  // 2^-24
    std::string normalize = "per_feature";

    // encoder (NeMo ConformerEncoder)
    int feat_in = 80;
    int d_model = 0;
    int n_layers = 0;
    int n_heads = 0;
    int ff_dim = 0;
    int conv_kernel = 9;
    std::string conv_norm_type = "batch_norm";
    int subsampling_factor = 8;
    int subsampling_channels = 256;
    bool xscaling = true;
    bool use_bias = true;
    std::string att_context_style = "regular";
    int att_context_left = -1;
    int att_context_right = -1;
    bool causal_downsampling = false;
    bool conv_causal = false;
    /**
     * Cache-aware streaming presets (left, right) in encoder frames: parakeet.encoder.att_context_presets
     * (first = default), else the one (att_context_left, att_context_right); empty for offline models.
     */
    std::vector<std::pair<int, int>> att_presets;

    // language prompt (Nemotron-3.5: parakeet.prompt.*; NeMo's prompt-conditioned RNNT)
    bool has_prompt = false;
    int num_prompts = 0;
    std::string prompt_default_lang;          // parakeet.prompt.default_lang ("auto")
    std::vector<std::string> prompt_locales;  // parakeet.prompt.dictionary.keys
    std::vector<int> prompt_indices;          // parakeet.prompt.dictionary.values (parallel)

    // vocabulary
    int vocab_size = 0;
    int blank_id = 0;
    std::vector<std::string> pieces;

    // transducer
    int pred_hidden = 640;
    int pred_layers = 1;
    int joint_hidden = 640;
    std::string joint_activation = "relu";
    int max_symbols = 10;
    std::vector<int> durations;

    // heads (decided by tensor presence, spec §1.3)
    bool has_transducer = false;
    bool has_ctc = false;
    std::string ctc_prefix;  // "ctc_decoder." or "decoder."

    int subsampling_stages() const;  // log2(subsampling_factor)
    int freq_after_subsampling() const;
    int head_dim() const { return n_heads > 0 ? d_model / n_heads : 0; }
    /** A cache-aware streaming model (spec §1.2: att_context_style != regular, causal convs). */
    bool is_streaming() const { return att_context_style == "chunked_limited" && causal_downsampling && conv_causal; }
    bool is_tdt() const { return has_transducer && !durations.empty(); }
    double frame_sec() const { return double(hop_length) * subsampling_factor / sample_rate; }
};

}  // namespace parakeet
