// Parakeet engine: NVIDIA Parakeet speech recognition (FastConformer encoder +
// CTC / RNNT / TDT decoders) on ggml. The one public header of the engine.
//
// Usage:
//   std::shared_ptr<parakeet::Model> model = parakeet::Model::load("tdt_ctc-110m-q8_0.gguf", parakeet::default_load_params());
//   std::unique_ptr<parakeet::State> state = model->create_state(model->default_state_params());
//   parakeet::TranscribeResult r = state->transcribe(pcm16k.data(), pcm16k.size(), parakeet::default_transcribe_params());
//
// Two kinds of object, as whisper.cpp splits a context from its states:
//   Model  the weights (placed once, packed twins included), hyper-parameters
//          and tokenizer. Read-only after load: shared by every state, kept
//          alive by a reference count (std::shared_ptr) that each state holds.
//   State  what one transcription at a time needs: compute backend and its
//          buffers (graph allocator / scheduler, CPU thread pool), the
//          decoder's scratch, the abort hook, adaptive thread counts, the
//          profile. States of one model run concurrently, each on its own
//          thread; one state runs one call at a time.
//
// Threading and ownership, per call:
//   Model::load            any thread; blocks for the load. The caller owns the returned pointer (shared).
//   Model::info, default_state_params   any thread, any time (immutable after load).
//   Model::create_state    any thread, concurrently with transcriptions on other states; the state shares
//                          ownership of the model, so the model outlives every state made from it.
//   State::transcribe      one call at a time per state (a concurrent call on the same state throws
//                          Error(Busy)); calls on different states may run at the same time.
//   State destructor       not while its own transcribe runs; frees only the state's buffers.
//   Model::transcribe      the same as transcribe on the model's default state (made on first use).
//
// Every failure throws parakeet::Error with a stable code and a message that
// says what happened and what to do. Nothing in here aborts the process on bad
// input.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace parakeet {

// ---------------------------------------------------------------- errors

enum class ErrorCode {
    ModelInvalid,       // not a usable Parakeet GGUF (names the key/tensor and what was expected)
    DeviceUnavailable,  // the compute device failed or vanished
    OutOfMemory,        // a buffer could not be allocated
    Aborted,            // cancelled through the abort flag
    Busy,               // another compute is running on this state
    BadAudio,           // empty, non-finite, absurdly long or malformed audio
    BadArgument,        // an option the model or engine cannot honour (e.g. a decoder head it lacks)
    Internal,           // a bug: please report
};

/** "MODEL_INVALID", "DEVICE_UNAVAILABLE", … (the `.code` seen from JavaScript). */
const char * error_code_name(ErrorCode code);

class Error : public std::runtime_error {
public:
    Error(ErrorCode code, const std::string & message) : std::runtime_error(message), code_(code) {}
    ErrorCode code() const { return code_; }

private:
    ErrorCode code_;
};

// ---------------------------------------------------------------- logging

enum class LogLevel { Debug, Info, Warn, Error };
using LogCallback = std::function<void(LogLevel, const std::string &)>;
/** Routes engine and ggml log lines; by default they go to stderr at Warn and above. */
void set_log_callback(LogCallback callback);

// ---------------------------------------------------------------- build

struct BuildInfo {
    std::string ggml_version;           // e.g. "0.25.1"
    std::string ggml_commit;            // the llama.cpp release commit the ggml source came from
    std::string ggml_source;            // e.g. "node-llama-cpp@3.22.1" or "GGML_SOURCE_DIR=…"
    bool backend_dl = false;            // backends are loadable libraries
    std::vector<std::string> backends;  // registered ggml backends ("CPU", "CUDA", …)
    // Loadable backends next to the addon that did not register, each "<Name>: <why>" (backend_dl builds;
    // e.g. Vulkan without a Vulkan loader on the machine): the app runs on the CPU and says why.
    std::vector<std::string> backends_not_loaded;
    // The kernel registry's ids (ModelInfo::kernels names these), in order of preference:
    std::vector<std::string> matmul_kernels;  // one per matmul row ("q8_0_vnni", …)
    std::vector<std::string> op_kernels;      // one per fused-op row ("layer_norm_avx512", …)
};
BuildInfo build_info();

/** For builds with loadable backends: load every ggml backend library found in `dir`. */
void load_backends(const std::string & dir);

// ---------------------------------------------------------------- devices

enum class DeviceType { Cpu, Gpu, IGpu, Accel };
const char * device_type_name(DeviceType type);  // "cpu" | "gpu" | "igpu" | "accel"

/**
 * What the GPU API itself says about a device, beyond ggml's device props: read in the Vulkan variant only
 * (runtime/gpu_properties.cpp); absent on every other device and build.
 */
struct GpuProperties {
    std::string api;                  // "Vulkan"
    std::string api_version;          // the device's API version: "1.3.289"
    std::string driver_name;          // VkPhysicalDeviceDriverProperties::driverName: "llvmpipe", "NVIDIA", "radv"
    std::string driver_info;          // its driverInfo: "Mesa 25.0.7-2~bpo12+1 (LLVM 19.1.7)", "550.54.14"
    bool cpu_device = false;          // the API types it as a CPU (VK_PHYSICAL_DEVICE_TYPE_CPU)
    bool fp16 = false;                // 16-bit storage buffers and shaderFloat16 (ggml-vulkan's fp16 condition)
    bool integer_dot = false;         // accelerated packed 4×8-bit signed dot products (VK_KHR_shader_integer_dot_product)
    bool cooperative_matrix = false;  // VK_KHR_cooperative_matrix (matrix cores), as the driver offers it
};

struct DeviceInfo {
    std::string name;         // ggml device name: "CPU", "CUDA0", "Vulkan1", …
    std::string description;  // e.g. the CPU model or GPU product name
    std::string backend;      // ggml backend (registry) name: "CPU", "CUDA", "Vulkan", "Metal", "BLAS", …
    DeviceType type = DeviceType::Cpu;
    uint64_t memory_free = 0;
    uint64_t memory_total = 0;
    std::string device_id;                  // PCI bus id where known
    std::vector<std::string> cpu_features;  // CPU device only: "AVX2", "AVX512_BF16", …; "PARAKEET_AMX_BF16" where the engine's kernels use AMX tiles
    int cpu_threads = 0;                    // CPU device only: hardware threads
    /**
     * A GPU-API device that computes on the CPU (Mesa's lavapipe/llvmpipe, SwiftShader): slower than the CPU
     * backend it competes with, so never picked automatically, only by name.
     */
    bool software_renderer = false;
    std::optional<GpuProperties> gpu;  // a Vulkan device in a Vulkan build; absent otherwise
};

/** Every device the ggml registry knows, in registry order. */
std::vector<DeviceInfo> list_devices();

struct DeviceSelection {
    std::string requested;   // what was asked ("" = nothing)
    std::string source;      // "argument" | "environment" (PARAKEET_DEVICE) | "auto"
    DeviceInfo device;       // what was chosen
    bool fell_back = false;  // the request could not be honoured; `reason` says why
    bool no_room = false;    // ... because the device has too little free memory for this model's weights (it works)
    std::string reason;      // human-readable: why this device
};

/**
 * Picks a device: an explicit name (case-insensitive: "cpu", "CUDA0",
 * "vulkan1"), else $PARAKEET_DEVICE, else the first GPU/iGPU, else the CPU.
 * An unknown name falls back to the CPU with the reason filled in.
 */
DeviceSelection select_device(const std::string & requested);

// ---------------------------------------------------------------- model

enum class DecoderKind { Auto, Ctc, Rnnt, Tdt };
const char * decoder_kind_name(DecoderKind kind);  // "auto" | "ctc" | "rnnt" | "tdt"

/** NeMo's two greedy TDT decoders (they differ only at max_symbols). */
enum class TdtRule { GreedyBatch, Greedy };

struct LoadParams {
    std::string device;  // "" = $PARAKEET_DEVICE or auto
    int n_threads = 0;   // 0 = all hardware threads (the default for the model's states)
    /**
     * Weight layout chosen at load time:
     *   "auto"  keep the file's types; repack quantized weights into the CPU's
     *           fastest layout where ggml has one, and run Q8_0 weights on the
     *           AVX512-VNNI kernel where the CPU has it (lossless: same weights,
     *           same activation quantization as ggml's Q8_0 path)
     *   "f32"   dequantize to F32 (lossless from any type)
     *   "f16", "bf16", "q8_0", "q4_0"  convert the matmul weights (lossy from F32)
     */
    std::string weight_type = "auto";
    bool use_mmap = true;
    /** Default for states: route every graph through ggml_backend_sched, even when the device runs it alone (diagnostics, tests). */
    bool always_schedule = false;
    /** Let "auto" use the engine's own int8 kernels (q8_0_vnni.h); false = ggml's kernels only (diagnostics, comparisons). */
    bool packed_kernels = true;
    /**
     * Default for states: pick, per encoder run, between n_threads and one thread by the measured cost per
     * frame (adaptive_threads.h): for machines that are busy, where spinning workers make n threads slower.
     */
    bool adaptive_threads = false;
    std::function<void(float)> on_progress;     // 0..1
    const std::atomic<bool> * abort = nullptr;  // load is abandoned when set
};

/** The defaults of every LoadParams field (the device from $PARAKEET_DEVICE or auto, all threads, "auto" weights, mapped). */
LoadParams default_load_params();

/** One state's compute: everything a load-time choice does not fix. Model::default_state_params() gives the model's own. */
struct StateParams {
    int n_threads = 0;              // 0 = all hardware threads
    bool always_schedule = false;   // see LoadParams::always_schedule
    bool adaptive_threads = false;  // see LoadParams::adaptive_threads
};

/** What a state runs on (ModelInfo carries the same for the model's default state). */
struct StateInfo {
    std::string device;  // ggml device name
    int n_threads = 0;
    bool scheduled = false;
    bool adaptive_threads = false;
};

/** One component of a parakeet.cpp bundle GGUF (general.architecture "parakeet-bundle"), from its header. */
struct BundleComponent {
    std::string name;  // the key and tensor prefix ("asr", "vad", …)
    std::string kind;  // parakeet.bundle.<name>.kind: "asr", "vad", or a kind this engine does not load
    std::string license, source, attribution;
    int tensors = 0;
    uint64_t bytes = 0;   // its tensors' bytes in the file
    bool loaded = false;  // the component this model was loaded from
};

struct ModelInfo {
    std::string path;
    /** The file's GGUF schema: "parakeet.cpp", "NeMo-Speech.cpp" (general.architecture "asr") or "parakeet.cpp bundle". */
    std::string schema;
    std::vector<BundleComponent> components;  // a bundle's components, in file order (empty otherwise)
    uint64_t sentencepiece_bytes = 0;         // size of the embedded SentencePiece model (Model::sentencepiece_model); 0 = none
    std::string name;                         // general.name
    std::string arch;                         // parakeet.arch as written
    bool has_ctc = false;
    bool has_transducer = false;
    bool is_tdt = false;  // transducer with duration outputs
    DecoderKind default_decoder = DecoderKind::Auto;
    std::vector<std::string> decoders;  // the heads available: "tdt" / "rnnt" / "ctc"

    int sample_rate = 16000;
    int n_mels = 0, n_fft = 0, win_length = 0, hop_length = 0;
    int d_model = 0, n_layers = 0, n_heads = 0, ff_dim = 0, conv_kernel = 0;
    int subsampling_factor = 0, subsampling_channels = 0;
    bool xscaling = false, use_bias = true;
    std::string conv_norm_type, normalize, att_context_style;
    int att_context_left = -1, att_context_right = -1;
    int vocab_size = 0, blank_id = 0;
    int pred_hidden = 0, pred_layers = 0, joint_hidden = 0, max_symbols = 0;
    std::vector<int> durations;
    double frame_sec = 0.08;  // seconds per encoder frame

    // Cache-aware streaming (State::begin_stream): a chunked_limited model with causal convolutions and
    // frame-local features (normalize NA) and an RNNT head.
    bool streaming = false;
    std::vector<std::pair<int, int>> att_context_presets;  // (left, right) encoder frames; the first is the default
    // Language prompt (Nemotron-3.5): the locales of parakeet.prompt.dictionary.keys, and default_lang ("auto").
    bool has_prompt = false;
    std::vector<std::string> languages;
    std::string default_language;

    uint64_t file_bytes = 0;
    uint64_t weight_bytes = 0;  // bytes of weights as placed on the device
    int tensor_count = 0;
    std::map<std::string, int> tensor_types;  // type in the file -> count
    std::map<std::string, int> weight_types;  // type as placed (after weight_type / repack) -> count
    // Every engine CPU kernel a call runs, by its registry id (kernels/cpu/registry.cpp): a matmul row ("q8_0_vnni")
    // -> the weights it runs; a fused op ("layer_norm_avx512") -> the layers it runs in (LSTM layers for "lstm_cell_avx512",
    // decoder matrices for "f32_gemv_avx512"), 1 for once a call ("log_mel_avx512", "subsampling_avx512").
    std::map<std::string, int> kernels;
    std::string weight_type;  // the LoadParams.weight_type used
    bool mmap = false;        // weights read straight from the mapped file

    DeviceSelection device;
    int n_threads = 0;
    bool scheduled = false;  // graphs always go through ggml_backend_sched
    double load_ms = 0;
};

/** A phrase to boost while decoding (custom vocabulary, phrase_graph.h): its text and a positive weight (1 = the default bonus). */
struct VocabularyPhrase {
    std::string text;
    float weight = 1.0f;
};

/** Most phrases one call accepts (more: Error(BadArgument) saying so). */
constexpr size_t kMaxVocabularyPhrases = 1000;

/** A phrase the model's pieces cannot spell, or that is never boosted, and why. */
struct RejectedPhrase {
    std::string phrase;
    std::string reason;
};

struct AudioWindow {
    double start = 0, end = 0;  // seconds in the input
};

/** Samples [begin, end) of the input (TranscribeParams::windows). */
struct SampleRange {
    size_t begin = 0, end = 0;
};

/** Settings' per-phrase check (Model::check_vocabulary): whether a phrase is boosted, and as which pieces. */
struct PhraseCheck {
    std::string phrase;
    std::string reason;                               // why it cannot be used; "" when it can
    std::vector<std::vector<std::string>> spellings;  // the piece sequences it was compiled into (casings, segmentations)
    bool exact = false;                               // tokenized by the file's own SentencePiece model (else from the piece list)
};

struct TranscribeParams {
    DecoderKind decoder = DecoderKind::Auto;
    TdtRule tdt_rule = TdtRule::GreedyBatch;
    int max_symbols = 0;  // 0 = the model's value
    const std::atomic<bool> * abort = nullptr;
    std::function<void(float)> on_progress;  // 0..1
    /** The longest encoder window: a clip longer than this needs `windows`. */
    double max_window_sec = 60.0;
    /**
     * Long audio: the windows the clip is cut into, in order, covering it, each at most max_window_sec,
     * every cut on the encoder-frame grid (hop_length × subsampling_factor samples). native/windows.ts
     * (WindowPlanner) plans them at pauses: the one planner, the app's file jobs' too. Each window is
     * normalized with the whole clip's mel statistics. Empty: the whole clip is one window.
     */
    std::vector<SampleRange> windows;
    bool capture_mel = false;      // keep the log-mel in the result (debugging / parity)
    bool capture_encoder = false;  // keep the encoder output in the result
    bool capture_logits = false;   // CTC: keep the log-probs
    bool profile = false;          // time every encoder node (TranscribeResult::profile)
    /**
     * At most this many CPU threads for this call (0 = the state's own count): the app gives a file job's
     * windows fewer threads while live dictation decodes beside them on another state.
     */
    int max_threads = 0;
    /** Language-prompt models (ModelInfo::has_prompt): a locale of ModelInfo::languages or "auto"; "" = "auto". */
    std::string language;
    /** Phrases the greedy decoders favour (phrase_boost.h); empty = decoding exactly as without. */
    std::vector<VocabularyPhrase> vocabulary;
    /**
     * Words and word sequences never boosted: a phrase holding one is rejected (the app passes its
     * spoken-punctuation commands, which a bonus would make replace ordinary words).
     */
    std::vector<std::string> never_boost;
    /**
     * Seconds of the input a voice-activity detector marks as non-speech: the vocabulary buys no decision
     * there (a phrase the model says there unaided is still reported). Empty: boosting wherever the model
     * hears a token (a blank decision is never changed, phrase_boost.h).
     */
    std::vector<AudioWindow> non_speech;
};

/** The defaults of every TranscribeParams field (the model's decoder, NeMo's greedy_batch TDT rule, 60 s windows). */
TranscribeParams default_transcribe_params();

struct Token {
    int id = 0;
    std::string piece;
    int frame = 0;              // encoder frame (window-relative frames are made absolute)
    int duration = 1;           // frames
    double start = 0, end = 0;  // seconds
    float confidence = 0;
};

struct Word {
    std::string text;
    double start = 0, end = 0;
    float confidence = 0;
};

struct Timings {
    double mel_ms = 0, encoder_ms = 0, decoder_ms = 0, total_ms = 0;
};

/** Time spent in one kind of graph node (TranscribeParams::profile). */
struct NodeTime {
    double ms = 0;
    int count = 0;
    double cpu_ms = 0;  // the calling thread's CPU time in these nodes (all of it at one thread; steady on a busy machine)
    // How the work was split over the CPU threads (runtime/thread_work.h), for the engine's own ops
    // (ggml custom ops; `measured` of the `count` nodes): each thread's CPU time inside its own share,
    // by ggml's thread index, the barrier wait after it excluded.
    std::vector<double> thread_ms;
    double busiest_ms = 0;  // Σ over the measured nodes of the busiest thread's share (≥ Σ thread_ms / threads)
    int measured = 0;
    int one_thread = 0;  // nodes ggml gave a single thread while more were active (a serial op)
};

/**
 * Where the encoder's time went, node by node: by ggml op (custom ops by their
 * name) and by model part (matmuls by the weight's role, e.g. "feed_forward1.linear1";
 * other nodes by graph). Profiling runs each node on its own, so the total is a
 * little above an unprofiled run's.
 */
struct EncoderProfile {
    std::map<std::string, NodeTime> by_op;
    std::map<std::string, NodeTime> by_part;
    int threads = 0;  // CPU threads the profiled graphs ran with
};

struct TranscribeResult {
    std::string text;
    std::vector<Word> words;
    std::vector<Token> tokens;
    double duration_sec = 0;
    std::string decoder;                   // the decoder that ran
    std::string device;                    // the device selected for the encoder
    std::vector<std::string> devices_ran;  // every device that executed part of a graph
    Timings timings;
    std::vector<AudioWindow> windows;              // one per encoder pass
    EncoderProfile profile;                        // filled when TranscribeParams::profile
    int threads_used = 0;                          // CPU threads the (last) encoder run used
    std::vector<std::string> phrases_fired;        // vocabulary phrases found in the text, in order of first occurrence
    std::vector<RejectedPhrase> phrases_rejected;  // vocabulary phrases that could not be used, with the reason

    // Captures (layouts as in the spec). mel and logits: the first window;
    // encoder: every window, concatenated (windows are cut on the frame grid).
    std::vector<float> mel;
    int mel_bins = 0, mel_frames = 0, mel_valid = 0;  // [M][T], time fastest
    std::vector<float> encoder;
    int enc_frames = 0, enc_valid = 0, enc_dim = 0;  // [T'][D], D fastest
    std::vector<float> logits;
    int logit_classes = 0;  // [T'][V+1]
};

// ---------------------------------------------------------------- streaming

/** How a stream runs (State::begin_stream). */
struct StreamParams {
    int att_left = -1, att_right = -1;  // an attention preset of ModelInfo::att_context_presets; −1, −1 = the default (the first)
    std::string language;               // prompt models: a locale of ModelInfo::languages or "auto"; "" = "auto"
    int max_symbols = 0;                // 0 = the model's value
    /**
     * Phrases the stream's greedy decoder favours (TranscribeParams::vocabulary), committed tokens only:
     * the phrase state carries across chunks and a chunk's tokens never change afterwards. Empty = as without.
     */
    std::vector<VocabularyPhrase> vocabulary;
    std::vector<std::string> never_boost;  // TranscribeParams::never_boost
    std::vector<AudioWindow> non_speech;   // seconds from the stream's start a VAD marks as non-speech: no bonus there
};

/** A timed event of a stream: "eou" / "eob" (end of utterance / backchannel) or "lang" (a language tag). */
struct StreamEvent {
    std::string type;
    int frame = 0;  // global encoder frame of the token
    int token_id = 0;
    std::string value;  // "lang": the tag's locale ("en-US" of <en-US>); else ""
};

/** What one streaming step (one encoder chunk) committed. Committed tokens never change. */
struct StreamChunk {
    int first_frame = 0;            // global encoder frame of the chunk's first frame
    int frames = 0;                 // encoder frames the chunk produced
    std::vector<int> token_ids;     // every token emitted, special pieces (<EOU>, <EOB>, language tags) included
    std::vector<int> token_frames;  // global encoder frame of each
    std::vector<StreamEvent> events;
    std::string text;           // the text of these tokens (special pieces removed; leading space kept between words)
    std::vector<Token> tokens;  // the text tokens with times (special pieces removed), as TranscribeResult::tokens
    std::vector<Word> words;    // their words; the first continues the previous chunk's last word when `continues_word`
    bool continues_word = false;
    bool decoder_reset = false;              // an <EOU>/<EOB> was emitted: the decoder starts again from SOS after this chunk
    std::vector<std::string> phrases_fired;  // vocabulary phrases completed in this chunk (a phrase may span chunks)
    std::vector<float> encoded;              // StreamOptions capture: the chunk's encoder frames [frames][D] (before the prompt kernel)
    double encoder_ms = 0;                   // wall time of the chunk's encoder graph (inputs uploaded, run, outputs read back)
    double decoder_ms = 0;                   // wall time of its RNNT greedy decode (prediction network + joint per token)
    double encoder_cpu_ms = 0;               // the same as the calling thread's CPU time (all of it at one thread)
    double decoder_cpu_ms = 0;
    EncoderProfile profile;  // with Stream::profile_chunks: the encoder graph timed node by node (by op, by part)
};

/** The schedule of one preset (NeMo ConformerEncoder.setup_streaming_params, with the corrections of the spec). */
struct StreamInfo {
    int att_left = 0, att_right = 0;
    int chunk_frames = 0;              // encoder frames per chunk (right + 1)
    int mel_first = 0, mel_chunk = 0;  // new mel frames of the first chunk and of each later one
    int pre_encode_cache = 0;          // mel frames re-fed before each later chunk
    int drop_extra = 0;                // encoder frames dropped after subsampling from the second chunk on
    std::string language;              // the locale the prompt uses ("auto" or one of ModelInfo::languages); "" without a prompt
    int prompt_index = -1;
    std::vector<RejectedPhrase> phrases_rejected;  // StreamParams::vocabulary phrases that could not be used, with the reason
};

class State;
class Stream;

/** A loaded model: weights, hyper-parameters, tokenizer. Immutable after load; see the threading notes at the top. */
class Model : public std::enable_shared_from_this<Model> {
public:
    /** Loads and validates a GGUF file; throws Error(ModelInvalid, …) naming what is wrong. */
    static std::shared_ptr<Model> load(const std::string & path, const LoadParams & params);
    ~Model();
    Model(const Model &) = delete;
    Model & operator=(const Model &) = delete;

    const ModelInfo & info() const;
    /**
     * The SentencePiece model the file embeds (NeMo-Speech.cpp's asr.tokenizer.spm_model, decoded), or "" when it has
     * none: exact text → tokens for custom vocabulary. Immutable after load.
     */
    const std::string & sentencepiece_model() const;

    /**
     * Compiles `phrases` as a transcription would and tells, per phrase in order, whether it is boosted
     * and as which pieces (Settings' Vocabulary card). Error(BadArgument) as transcribe: count, weights.
     */
    std::vector<PhraseCheck> check_vocabulary(const std::vector<VocabularyPhrase> & phrases, const std::vector<std::string> & never_boost) const;

    /** The state options this model was loaded with (LoadParams' n_threads, always_schedule, adaptive_threads). */
    StateParams default_state_params() const;

    /**
     * A new state for this model, with its own compute buffers and thread pool on the model's device.
     * Throws Error(DeviceUnavailable / OutOfMemory). The state keeps the model alive.
     */
    std::unique_ptr<State> create_state(const StateParams & params) const;

    /**
     * Transcribes on the model's default state (made on first use, with default_state_params()).
     * One call at a time: a concurrent call throws Error(Busy); use create_state() for parallel work.
     */
    TranscribeResult transcribe(const float * pcm, size_t n_samples, const TranscribeParams & params);

    struct Impl;

private:
    explicit Model(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/** One model's run state (see the threading notes at the top). */
class State {
public:
    ~State();
    State(const State &) = delete;
    State & operator=(const State &) = delete;

    /**
     * Transcribes mono float PCM at the model's sample rate (ModelInfo::sample_rate). The engine
     * does not convert audio: callers downmix and resample first (the app does both in
     * TypeScript, app/shared/wav.ts and app/shared/resample.ts, where the audio arrives).
     * One call at a time per state: a concurrent call throws Error(Busy).
     */
    TranscribeResult transcribe(const float * pcm, size_t n_samples, const TranscribeParams & params);

    /**
     * Begins a cache-aware stream on this state (ModelInfo::streaming models; Error(BadArgument) names
     * the presets or locales when `params` asks for one the model lacks). The stream computes on this
     * state's backend: a state runs one compute at a time (its transcribe or any of its streams' feed/end),
     * so give each concurrent stream its own state. The state must outlive the stream.
     */
    std::unique_ptr<Stream> begin_stream(const StreamParams & params);

    const Model & model() const;
    const StateInfo & info() const;

    struct Impl;

private:
    friend class Model;
    explicit State(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/**
 * One cache-aware stream (NeMo cache_aware_stream_step): PCM in any block size → log-mel frame by frame
 * (normalize NA) → encoder chunks with per-layer attention and convolution caches → RNNT greedy with the
 * prediction state carried across chunks. Graphs and buffers are made for the first chunk of each shape
 * and reused after, so memory stays flat over any length.
 */
class Stream {
public:
    ~Stream();
    Stream(const Stream &) = delete;
    Stream & operator=(const Stream &) = delete;

    /** Appends mono PCM at the model's rate and runs every chunk it completes (Error(Busy) while the state computes elsewhere). */
    std::vector<StreamChunk> feed(const float * pcm, size_t n_samples);
    /** Ends the stream: the mel tail (the final frame zeroed, as NeMo's whole-clip features) and the final partial chunk are processed. */
    std::vector<StreamChunk> end();
    const StreamInfo & info() const;
    /** Keep each chunk's encoder frames in StreamChunk::encoded (tests: streamed vs offline encoder). */
    void capture_encoder(bool on);
    /**
     * Time each later chunk's encoder node by node into StreamChunk::profile (CPU graphs; benchmarks):
     * slower than an unprofiled chunk, the nodes' shares are what to read.
     */
    void profile_chunks(bool on);

    struct Impl;

private:
    friend class State;
    explicit Stream(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------- audio

/** Longest audio accepted in one call, in seconds (24 h). */
constexpr double kMaxAudioSeconds = 24.0 * 3600.0;

// ---------------------------------------------------------------- tools

/** Re-quantizes the matmul weights of a model file (the allowlist of the spec) to `type`. */
void quantize_model_file(const std::string & in_path, const std::string & out_path, const std::string & type);

}  // namespace parakeet
