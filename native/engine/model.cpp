// Model: load (validate, pick the device, place the weights) and transcribe
// (windows → log-mel → encoder → greedy decoder → text, words, timestamps).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "adaptive_threads.h"
#include "compute_backend.h"
#include "encoder.h"
#include "gguf_file.h"
#include "greedy.h"
#include "log.h"
#include "model_schema.h"
#include "model_weights.h"
#include "parakeet/parakeet.h"
#include "preprocessor.h"
#include "tokenizer.h"
#include "text_sanitize.h"
#include "transducer.h"
#include "weight_check.h"
#include "windows.h"

namespace parakeet {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void check_abort(const std::atomic<bool> * abort) {
    if (abort != nullptr && abort->load()) throw Error(ErrorCode::Aborted, "transcription cancelled");
}

}  // namespace

struct Model::Impl {
    ModelInfo info;
    Hparams hp;
    std::unique_ptr<GgufFile> file;
    std::unique_ptr<ComputeBackend> backend;
    std::unique_ptr<ModelWeights> weights;
    std::unique_ptr<Encoder> encoder;
    std::unique_ptr<AdaptiveThreads> adaptive;  // LoadParams::adaptive_threads on a multi-threaded CPU
    std::unique_ptr<Transducer> transducer;
    std::unique_ptr<Detokenizer> detokenizer;
    std::atomic<bool> busy{false};

    DecoderKind resolve_decoder(DecoderKind requested) const;
    void transcribe_window(const float * pcm, size_t n, double offset_sec, DecoderKind decoder, const TranscribeParams & params,
                           bool first, bool multi_window, const MelStats * clip_stats, TranscribeResult & result,
                           std::vector<DecodedToken> & window_tokens);
};

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

const ModelInfo & Model::info() const { return impl_->info; }

std::unique_ptr<Model> Model::load(const std::string & path, const LoadParams & params) {
    const Clock::time_point start = Clock::now();
    install_ggml_log_hook();
    auto impl = std::make_unique<Impl>();
    auto progress = [&](float f) {
        if (params.on_progress) params.on_progress(f);
    };
    auto check = [&] {
        if (params.abort != nullptr && params.abort->load()) throw Error(ErrorCode::Aborted, "model loading cancelled");
    };

    impl->file = GgufFile::open(path, params.use_mmap);
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
    impl->weights = std::make_unique<ModelWeights>(*impl->file, impl->hp, *impl->backend, params.weight_type, params.packed_kernels,
                                                   [&](float f) { progress(0.1f + 0.85f * f); }, params.abort);
    impl->encoder = std::make_unique<Encoder>(impl->hp, impl->weights->encoder, impl->weights->packed, *impl->backend);
    if (params.adaptive_threads && impl->backend->is_cpu() && impl->backend->threads() > 1) {
        impl->adaptive = std::make_unique<AdaptiveThreads>(impl->backend->threads());
    }
    if (impl->hp.has_transducer) impl->transducer = std::make_unique<Transducer>(impl->hp, impl->weights->decoder);
    impl->detokenizer = std::make_unique<Detokenizer>(impl->hp.pieces);

    const Hparams & hp = impl->hp;
    ModelInfo & info = impl->info;
    info.path = path;
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
    info.file_bytes = impl->file->file_size();
    info.weight_bytes = impl->weights->device_bytes();
    info.tensor_count = int(gguf_get_n_tensors(impl->file->gguf()));
    for (int64_t i = 0; i < info.tensor_count; ++i) info.tensor_types[ggml_type_name(gguf_get_tensor_type(impl->file->gguf(), i))] += 1;
    info.weight_types = impl->weights->placed_types();
    info.kernels = impl->weights->packed_kernels();
    info.weight_type = params.weight_type;
    info.mmap = impl->weights->zero_copy();
    info.device = selection;
    info.n_threads = impl->backend->threads();
    info.scheduled = params.always_schedule;
    info.load_ms = ms_since(start);
    progress(1.0f);
    return std::unique_ptr<Model>(new Model(std::move(impl)));
}

DecoderKind Model::Impl::resolve_decoder(DecoderKind requested) const {
    std::string available;
    for (const std::string & d : info.decoders) available += (available.empty() ? "" : ", ") + d;
    switch (requested) {
        case DecoderKind::Auto: return info.default_decoder;
        case DecoderKind::Ctc:
            if (!hp.has_ctc) throw Error(ErrorCode::BadArgument, "this model has no CTC head (its decoders: " + available + ")");
            return requested;
        case DecoderKind::Tdt:
            if (!hp.is_tdt()) throw Error(ErrorCode::BadArgument, "this model has no TDT head (its decoders: " + available + ")");
            return requested;
        case DecoderKind::Rnnt:
            if (!hp.has_transducer || hp.is_tdt()) {
                throw Error(ErrorCode::BadArgument, "this model has no plain RNNT head (its decoders: " + available + ")");
            }
            return requested;
    }
    return info.default_decoder;
}

void Model::Impl::transcribe_window(const float * pcm, size_t n, double offset_sec, DecoderKind decoder, const TranscribeParams & params,
                                    bool first, bool multi_window, const MelStats * clip_stats, TranscribeResult & result,
                                    std::vector<DecodedToken> & tokens) {
    Clock::time_point t0 = Clock::now();
    const MelSpectrogram mel = compute_log_mel(pcm, n, hp, weights->preprocessor, params.abort, clip_stats);
    result.timings.mel_ms += ms_since(t0);
    if (first && params.capture_mel) {
        result.mel = mel.data;
        result.mel_bins = mel.n_mels;
        result.mel_frames = mel.n_frames;
        result.mel_valid = mel.valid_frames;
    }
    if (mel.valid_frames <= 0) return;  // shorter than one hop: nothing to hear
    check_abort(params.abort);

    t0 = Clock::now();
    const EncoderHead head = decoder == DecoderKind::Ctc ? EncoderHead::Ctc : EncoderHead::JointEnc;
    const bool keep = params.capture_encoder;
    const int threads = adaptive ? adaptive->choose() : backend->threads();
    backend->set_active_threads(threads);
    EncoderOutput enc = encoder->run(mel, head, keep, params.abort, params.profile ? &result.profile : nullptr);
    const double encoder_ms = ms_since(t0);
    result.timings.encoder_ms += encoder_ms;
    result.threads_used = threads;
    if (adaptive && enc.frames > 0) adaptive->report(threads, encoder_ms / enc.frames);
    for (const std::string & d : enc.devices) {
        if (std::find(result.devices_ran.begin(), result.devices_ran.end(), d) == result.devices_ran.end()) result.devices_ran.push_back(d);
    }
    if (keep) {
        // Windows are cut on the encoder-frame grid, so their valid frames
        // concatenate into one time line (a single window keeps its padded tail).
        const int frames = multi_window ? enc.valid : enc.frames;
        result.encoder.insert(result.encoder.end(), enc.encoded.begin(), enc.encoded.begin() + ptrdiff_t(frames) * enc.dim);
        result.enc_frames += frames;
        result.enc_valid += enc.valid;
        result.enc_dim = enc.dim;
    }
    if (first && params.capture_logits && decoder == DecoderKind::Ctc) {
        // NeMo ConvASRDecoder returns log_softmax over classes.
        result.logits = enc.head;
        result.logit_classes = enc.head_dim;
        for (int t = 0; t < enc.frames; ++t) {
            float * row = result.logits.data() + size_t(t) * enc.head_dim;
            const float mx = *std::max_element(row, row + enc.head_dim);
            double sum = 0.0;
            for (int k = 0; k < enc.head_dim; ++k) sum += std::exp(double(row[k]) - mx);
            const float lse = float(mx + std::log(sum));
            for (int k = 0; k < enc.head_dim; ++k) row[k] -= lse;
        }
    }
    check_abort(params.abort);

    t0 = Clock::now();
    const int max_symbols = params.max_symbols > 0 ? params.max_symbols : hp.max_symbols;
    switch (decoder) {
        case DecoderKind::Ctc: tokens = ctc_greedy(enc.head, enc.head_dim, enc.valid, hp.blank_id); break;
        case DecoderKind::Rnnt:
            tokens = rnnt_greedy(*transducer, enc.head, enc.head_dim, enc.valid, hp.blank_id, max_symbols, params.abort);
            break;
        default:
            tokens = tdt_greedy(*transducer, enc.head, enc.head_dim, enc.valid, hp.blank_id, hp.durations, max_symbols, params.tdt_rule, params.abort);
            break;
    }
    detokenizer->timestamps(tokens, hp.frame_sec(), offset_sec, result.tokens, result.words);
    result.timings.decoder_ms += ms_since(t0);
}

TranscribeResult Model::transcribe(const float * pcm, size_t n_samples, const TranscribeParams & params) {
    Impl & m = *impl_;
    bool expected = false;
    if (!m.busy.compare_exchange_strong(expected, true)) {
        throw Error(ErrorCode::Busy, "this model is already transcribing; wait for that call to finish (one at a time per model)");
    }
    struct Release {
        std::atomic<bool> & flag;
        ~Release() { flag.store(false); }
    } release{m.busy};

    const Clock::time_point start = Clock::now();
    if (pcm == nullptr || n_samples == 0) throw Error(ErrorCode::BadAudio, "the audio is empty (0 samples); record or choose audio with sound in it");
    const double seconds = double(n_samples) / m.hp.sample_rate;
    if (seconds > kMaxAudioSeconds) throw Error(ErrorCode::BadAudio, "the audio is longer than 24 hours; split it first");
    for (size_t i = 0; i < n_samples; ++i) {
        if (!std::isfinite(pcm[i])) {
            throw Error(ErrorCode::BadAudio, "the audio holds non-finite samples (NaN or infinity), the first at " +
                                                 std::to_string(double(i) / m.hp.sample_rate) + " s; the recording or decoder is broken");
        }
    }
    if (!(params.max_window_sec >= 1.0)) throw Error(ErrorCode::BadArgument, "max_window_sec must be at least 1 second");

    const DecoderKind decoder = m.resolve_decoder(params.decoder);
    TranscribeResult result;
    result.decoder = decoder_kind_name(decoder);
    result.device = m.backend->device_name();
    result.duration_sec = seconds;

    const size_t max_samples = size_t(params.max_window_sec * m.hp.sample_rate);
    const size_t frame_samples = size_t(m.hp.hop_length) * size_t(m.hp.subsampling_factor);
    const std::vector<SampleRange> windows = plan_windows(pcm, n_samples, m.hp.sample_rate, max_samples, frame_samples);
    // Windows of a longer clip are normalized with the whole clip's statistics,
    // as NeMo normalizes a whole file, so a window's features do not depend on
    // where it was cut.
    MelStats clip_stats;
    const bool global_stats = windows.size() > 1 && m.hp.normalize == "per_feature";
    if (global_stats) {
        const Clock::time_point t0 = Clock::now();
        clip_stats = clip_mel_stats(pcm, n_samples, m.hp, m.weights->preprocessor, params.abort);
        result.timings.mel_ms += ms_since(t0);
    }
    std::string text;
    for (size_t w = 0; w < windows.size(); ++w) {
        check_abort(params.abort);
        const SampleRange & r = windows[w];
        const double offset = double(r.begin) / m.hp.sample_rate;
        result.windows.push_back({offset, double(r.end) / m.hp.sample_rate});
        std::vector<DecodedToken> tokens;
        m.transcribe_window(pcm + r.begin, r.end - r.begin, offset, decoder, params, w == 0, windows.size() > 1,
                            global_stats ? &clip_stats : nullptr, result, tokens);
        const std::string piece = m.detokenizer->text(tokens);
        if (!piece.empty()) text += (text.empty() ? "" : " ") + piece;
        if (params.on_progress) params.on_progress(float(r.end) / float(n_samples));
    }
    result.text = text;
    result.timings.total_ms = ms_since(start);
    return result;
}

}  // namespace parakeet
