// Model: load (validate, pick the device, place the weights), the facts a
// loaded model reports, and the states made from it. Transcription itself is
// the state's (state.cpp).
#include <chrono>

#include "gguf_file.h"
#include "host_memory.h"
#include "log.h"
#include "model_dialect.h"
#include "model_impl.h"
#include "model_schema.h"
#include "shared_gguf.h"
#include "text_sanitize.h"
#include "weight_check.h"

namespace parakeet {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

/** What the model reports about itself (ModelInfo), from its parts once placed. */
ModelInfo describe(const std::string & path, const Model::Impl & m, const LoadParams & params, const DeviceSelection & selection) {
    const Hparams & hp = m.hp;
    ModelInfo info;
    info.path = path;
    describe_dialect(*m.file, info);
    info.name = sanitize_text(hp.name);  // shown in the UI, the CLI and imported models' names
    info.arch = hp.arch;
    info.has_ctc = hp.has_ctc;
    info.has_transducer = hp.has_transducer;
    info.is_tdt = hp.is_tdt();
    info.default_decoder = hp.is_tdt() ? DecoderKind::Tdt : hp.has_transducer ? DecoderKind::Rnnt : DecoderKind::Ctc;
    if (hp.has_transducer) info.decoders.push_back(hp.is_tdt() ? "tdt" : "rnnt");
    if (hp.has_ctc) info.decoders.push_back("ctc");
    info.sample_rate = hp.sample_rate;
    info.n_mels = hp.n_mels;
    info.n_fft = hp.n_fft;
    info.win_length = hp.win_length;
    info.hop_length = hp.hop_length;
    info.d_model = hp.d_model;
    info.n_layers = hp.n_layers;
    info.n_heads = hp.n_heads;
    info.ff_dim = hp.ff_dim;
    info.conv_kernel = hp.conv_kernel;
    info.subsampling_factor = hp.subsampling_factor;
    info.subsampling_channels = hp.subsampling_channels;
    info.xscaling = hp.xscaling;
    info.use_bias = hp.use_bias;
    info.conv_norm_type = hp.conv_norm_type;
    info.normalize = hp.normalize;
    info.att_context_style = hp.att_context_style;
    info.att_context_left = hp.att_context_left;
    info.att_context_right = hp.att_context_right;
    info.vocab_size = hp.vocab_size;
    info.blank_id = hp.blank_id;
    info.pred_hidden = hp.has_transducer ? hp.pred_hidden : 0;
    info.pred_layers = hp.has_transducer ? hp.pred_layers : 0;
    info.joint_hidden = hp.has_transducer ? hp.joint_hidden : 0;
    info.max_symbols = hp.has_transducer ? hp.max_symbols : 0;
    info.durations = hp.durations;
    info.frame_sec = hp.frame_sec();
    info.streaming = hp.is_streaming() && hp.has_transducer && !hp.is_tdt() && hp.normalize == "NA" && !hp.att_presets.empty();
    info.att_context_presets = hp.att_presets;
    info.has_prompt = hp.has_prompt;
    for (const std::string & locale : hp.prompt_locales) info.languages.push_back(sanitize_text(locale));
    info.default_language = hp.has_prompt ? sanitize_text(hp.prompt_default_lang) : "";
    info.file_bytes = m.file->file_size();
    info.weight_bytes = m.weights->device_bytes();
    // A bundle's other components are not this model's tensors.
    const std::string & prefix = m.file->name_prefix();
    for (int64_t i = 0; i < gguf_get_n_tensors(m.file->gguf()); ++i) {
        if (std::string(gguf_get_tensor_name(m.file->gguf(), i)).compare(0, prefix.size(), prefix) != 0) continue;
        info.tensor_count += 1;
        info.tensor_types[ggml_type_name(gguf_get_tensor_type(m.file->gguf(), i))] += 1;
    }
    info.weight_types = m.weights->placed_types();
    info.kernels = m.weights->packed_kernels();
    info.weight_type = params.weight_type;
    info.mmap = m.weights->zero_copy();
    info.device = selection;
    info.n_threads = m.backend->threads();
    info.scheduled = params.always_schedule;
    return info;
}

}  // namespace

LoadParams default_load_params() { return LoadParams{}; }
TranscribeParams default_transcribe_params() { return TranscribeParams{}; }

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

const ModelInfo & Model::info() const { return impl_->info; }

const std::string & Model::sentencepiece_model() const { return impl_->sentencepiece_model; }

StateParams Model::default_state_params() const { return impl_->state_defaults; }

std::shared_ptr<Model> Model::load(const std::string & path, const LoadParams & params) {
    const Clock::time_point start = Clock::now();
    install_ggml_log_hook();
    // Before the load's own large temporaries are freed (each would raise glibc's mmap threshold): a
    // meeting begins a stream per segment, each with megabyte-sized caches and compute buffers, and from
    // the heap arenas those left holes that the small blocks made meanwhile split, so the engine's RSS
    // grew by about a stream's buffers per segment for as long as the meeting ran (host_memory.h).
    keep_large_allocations_mapped();
    auto impl = std::make_unique<Impl>();
    auto progress = [&](float f) {
        if (params.on_progress) params.on_progress(f);
    };
    auto check = [&] {
        if (params.abort != nullptr && params.abort->load()) throw Error(ErrorCode::Aborted, "model loading cancelled");
    };

    impl->file = open_shared_gguf(path, params.use_mmap);
    progress(0.05f);
    impl->hp = read_hparams(*impl->file);
    validate_tensors(*impl->file, impl->hp);
    check();
    {
        // Before any weight is placed: a NaN anywhere would only show up as garbage text.
        const Clock::time_point scan = Clock::now();
        check_weights_finite(*impl->file, params.abort, params.n_threads);
        log_line(LogLevel::Debug, "weights finite (scanned in " + std::to_string(ms_since(scan)) + " ms)");
    }
    progress(0.1f);

    DeviceSelection selection = select_device(params.device);
    impl->backend = std::make_unique<ComputeBackend>(selection, params.n_threads, params.always_schedule);
    if (selection.fell_back) log_line(LogLevel::Warn, selection.reason);
    const auto place_weights = [&] {
        impl->weights = std::make_unique<ModelWeights>(
                *impl->file, impl->hp, *impl->backend, params.weight_type, params.packed_kernels, [&](float f) { progress(0.1f + 0.85f * f); },
                params.abort);
    };
    std::string no_room;
    try {
        place_weights();
    } catch (const Error & e) {
        // A GPU without room for the weights is a device that cannot hold this model, not a bad model: the CPU
        // runs it (a file that is wrong is wrong there too, and a cancel is a cancel).
        if (impl->backend->is_cpu() || e.code() != ErrorCode::OutOfMemory) throw;
        no_room = e.what();
    } catch (const std::bad_alloc &) {
        throw;
    } catch (const std::exception & e) {
        // The driver's own exception while uploading (ggml-vulkan throws vk::SystemError from a failed transfer).
        if (impl->backend->is_cpu()) throw;
        no_room = e.what();
    }
    if (!no_room.empty()) {
        const std::string device = selection.device.name;
        impl->weights.reset();
        impl->backend.reset();
        DeviceSelection cpu = select_device("CPU");
        cpu.requested = selection.requested;
        cpu.source = selection.source;
        cpu.fell_back = true;
        cpu.no_room = true;
        cpu.reason = "device '" + device + "' has too little free memory for this model's weights (" + no_room + "); using the CPU";
        selection = cpu;
        log_line(LogLevel::Warn, selection.reason);
        impl->backend = std::make_unique<ComputeBackend>(selection, params.n_threads, params.always_schedule);
        place_weights();
    }
    impl->detokenizer = std::make_unique<Detokenizer>(impl->hp.pieces);
    impl->sentencepiece_model = embedded_sentencepiece_model(*impl->file);
    if (!impl->sentencepiece_model.empty()) {
        try {
            impl->sentencepiece = std::make_shared<const SentencePieceModel>(SentencePieceModel::parse(impl->sentencepiece_model));
        } catch (const Error & e) {
            // Decoding does not need it; only the vocabulary's exact tokenization is lost.
            log_line(LogLevel::Warn, std::string(e.what()) + " (custom vocabulary falls back to the piece list)");
        }
    }
    impl->state_defaults.n_threads = impl->backend->threads();
    impl->state_defaults.always_schedule = params.always_schedule;
    impl->state_defaults.adaptive_threads = params.adaptive_threads;
    impl->info = describe(path, *impl, params, selection);
    impl->info.load_ms = ms_since(start);
    progress(1.0f);
    return std::shared_ptr<Model>(new Model(std::move(impl)));
}

std::unique_ptr<State> Model::create_state(const StateParams & params) const {
    const Impl & m = *impl_;
    DeviceSelection selection = m.info.device;
    auto backend = std::make_unique<ComputeBackend>(selection, params.n_threads, params.always_schedule);
    if (backend->device() != m.backend->device()) {
        // The weights live in the model's device memory: a state on another device could not read them.
        throw Error(ErrorCode::DeviceUnavailable,
                    "device " + m.backend->device_name() + " failed to start for a new state (" + selection.reason + "); reload the model");
    }
    std::unique_ptr<State::Impl> state = make_state_impl(*this, m, *backend, params);
    state->owned_backend = std::move(backend);
    state->keep_alive = shared_from_this();
    return std::unique_ptr<State>(new State(std::move(state)));
}

TranscribeResult Model::transcribe(const float * pcm, size_t n_samples, const TranscribeParams & params) {
    State * state = nullptr;
    {
        std::lock_guard<std::mutex> guard(impl_->default_state_lock);
        if (!impl_->default_state) {
            impl_->default_state.reset(new State(make_state_impl(*this, *impl_, *impl_->backend, impl_->state_defaults)));
        }
        state = impl_->default_state.get();
    }
    return state->transcribe(pcm, n_samples, params);
}

}  // namespace parakeet
