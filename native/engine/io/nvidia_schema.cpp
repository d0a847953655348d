#include "nvidia_schema.h"

#include <vector>

#include "gguf_file.h"
#include "nvidia_frontend.h"

namespace parakeet {
namespace {

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

    translate_frontend_keys(f, o, "asr");

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
    map_frontend_tensors(f, "asr");
    map_tensor_names(f);
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
