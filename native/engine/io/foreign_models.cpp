#include "foreign_models.h"

#include <cstring>
#include <vector>

#include "gguf_file.h"

namespace parakeet {
namespace {

// What every refusal offers instead: the two GGUF schemas this engine reads.
constexpr const char * kUseInstead =
        "choose a Parakeet speech-recognition model in the parakeet.cpp GGUF format (Models, e.g. tdt_ctc-110m) "
        "or an NVIDIA NeMo-Speech.cpp GGUF (general.architecture 'asr')";

bool starts_with(const std::string & s, const char * prefix) { return s.rfind(prefix, 0) == 0; }

bool any_key_starts_with(const std::vector<std::string> & keys, const char * prefix) {
    for (const std::string & k : keys) {
        if (starts_with(k, prefix)) return true;
    }
    return false;
}

/** A tensor name ending in `suffix` (packed-ternary files replace `.weight` by `.qweight`). */
bool any_tensor_ends_with(const GgufFile & f, const char * suffix) {
    const size_t n = std::strlen(suffix);
    for (int64_t i = 0; i < gguf_get_n_tensors(f.gguf()); ++i) {
        const std::string name = gguf_get_tensor_name(f.gguf(), i);
        if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) return true;
    }
    return false;
}

/** general.architecture values of other model families people pick by mistake, and what they are. */
std::string other_family(const std::string & arch) {
    struct Family {
        const char * arch;
        const char * what;
    };
    static const Family families[] = {
            {"whisper", "an OpenAI Whisper model (whisper.cpp / CrispASR GGUF)"},
            {"parakeet-ctc",
             "a legacy NeMo-Speech.cpp CTC file (re-export it with NeMo-Speech.cpp's converter, which writes 'asr' files this app reads)"},
            {"nemo", "a legacy NeMo-Speech.cpp RNNT file (re-export it with NeMo-Speech.cpp's converter, which writes 'asr' files this app reads)"},
            {"sortformer", "a Sortformer speaker-diarization model (who speaks when, not what is said)"},
            {"clip", "a CLIP vision encoder"},
            {"bert", "a BERT text encoder"},
    };
    for (const Family & family : families) {
        if (arch == family.arch) return family.what;
    }
    static const char * language_models[] = {"llama",   "qwen2", "qwen3", "gemma", "gemma2", "gemma3",
                                             "mistral", "phi2",  "phi3",  "gpt2",  "falcon", "mpt"};
    for (const char * lm : language_models) {
        if (arch == lm) return "a large language model (text generation, not speech recognition)";
    }
    return "";
}

}  // namespace

std::string foreign_container_refusal(const uint8_t * head, size_t n) {
    // whisper.cpp's legacy files open with a little-endian uint32 magic: 'ggml' (0x67676d6c) and the older
    // llama.cpp-era 'ggmf' / 'ggjt' variants; its Parakeet ports write the same container.
    static const char * magics[] = {"lmgg", "fmgg", "tjgg"};
    for (const char * magic : magics) {
        if (n >= 4 && std::memcmp(head, magic, 4) == 0) {
            return std::string("this is a whisper.cpp model file (legacy ggml .bin container, not GGUF); this app does not read it: ") + kUseInstead +
                   ", or convert the original NeMo checkpoint with parakeet.cpp's converter";
        }
    }
    return "";
}

std::string foreign_gguf_refusal(const GgufFile & f) {
    const std::vector<std::string> keys = f.key_names();
    const std::string arch = f.get_string("general.architecture", "");
    if (arch == "stt" || any_key_starts_with(keys, "stt.")) {
        return std::string("this is a transcribe.cpp model file (its keys are 'stt.*'), a schema this app does not read: ") + kUseInstead;
    }
    const std::string family = other_family(arch);
    if (!family.empty())
        return "general.architecture is " + quoted_value(arch) + ": this is " + family + ", not a Parakeet speech model; " + kUseInstead;
    if (arch.empty()) return "";  // the loader names the missing key itself
    if (arch == "asr" || arch == "parakeet-bundle") {
        // Models load these through their dialect (model_dialect.h); this is a tool that reads parakeet.cpp files only.
        return "general.architecture is " + quoted_value(arch) + (arch == "asr" ? " (an NVIDIA NeMo-Speech.cpp file)" : " (a parakeet.cpp bundle)") +
               ": this tool reads single parakeet.cpp files only; load it as a model instead";
    }
    if (arch != "parakeet") {
        return "general.architecture is " + quoted_value(arch) + ", a model family this app does not know (expected 'parakeet' or 'asr'); " +
               kUseInstead;
    }
    const std::string parakeet_arch = f.get_string("parakeet.arch", "");
    if (parakeet_arch.empty() && (f.has_key("parakeet.d_model") || f.has_key("parakeet.n_layers"))) {
        return std::string(
                       "this is a CrispASR Parakeet file (flat keys such as 'parakeet.d_model', no 'parakeet.arch'), "
                       "a schema this app does not read: ") +
               kUseInstead;
    }
    if (parakeet_arch == "diarization") {
        return std::string(
                       "parakeet.arch = 'diarization': this is a speaker-diarization model (Nemotron diarization / Sortformer), "
                       "which says who speaks when, not what is said: use it as the diarizer (parakeet transcribe --diarizer, "
                       "parakeet diarize --model); as the speech model, ") +
               kUseInstead;
    }
    if (parakeet_arch == "vad") {
        return std::string("parakeet.arch = 'vad': this is a VAD-only slice") +
               (any_key_starts_with(keys, "parakeet.vad_only.") ? " (parakeet.vad_only.*)" : "") +
               ", the voice-activity head of a Moondream Ultra/Redux model cut out of it: not a speech-recognition model, "
               "and this app does not run that head (its voice-activity detection uses Silero); " +
               kUseInstead;
    }
    if (f.get_bool("parakeet.ternary.present", false) || any_tensor_ends_with(f, ".qweight")) {
        return std::string(
                       "this is a packed-ternary Moondream Redux model (parakeet.ternary.present, '.qweight' tensors), whose 1.58-bit "
                       "weights this engine does not run; use that model's F16 or Q8_0 build, or ") +
               kUseInstead;
    }
    return "";
}

}  // namespace parakeet
