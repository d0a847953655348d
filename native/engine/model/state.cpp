// State: one transcription at a time on one model (windows → log-mel →
// encoder → greedy decoder → text, words, timestamps), with the state's own
// compute buffers and decoder scratch over the model's shared weights.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "greedy.h"
#include "model_impl.h"
#include "model_schema.h"
#include "phrase_boost.h"
#include "preprocessor.h"
#include "row_split.h"
#include "transducer.h"
#include "windows.h"

namespace parakeet {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

void check_abort(const std::atomic<bool> * abort) {
    if (abort != nullptr && abort->load()) throw Error(ErrorCode::Aborted, "transcription cancelled");
}

DecoderKind resolve_decoder(const Model::Impl & m, DecoderKind requested) {
    const ModelInfo & info = m.info;
    const Hparams & hp = m.hp;
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

void transcribe_window(State::Impl & s, const float * pcm, size_t n, double offset_sec, DecoderKind decoder, int prompt_index,
                       const TranscribeParams & params, bool first, bool multi_window, const MelStats * clip_stats, const PhraseGraph * phrases,
                       TranscribeResult & result, std::vector<DecodedToken> & tokens) {
    const Hparams & hp = s.m->hp;
    ComputeBackend * backend = s.backend;
    const auto & adaptive = s.adaptive;
    // The thread count for this window (adaptive: all threads, or one on a busy machine; at most the
    // call's max_threads) serves the log-mel and the encoder alike.
    const int chosen = adaptive ? adaptive->choose() : backend->threads();
    const int threads = params.max_threads > 0 ? std::min(chosen, params.max_threads) : chosen;
    Clock::time_point t0 = Clock::now();
    const MelSpectrogram mel = compute_log_mel(pcm, n, hp, s.m->weights->preprocessor, params.abort, clip_stats, threads);
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
    backend->set_active_threads(threads);
    EncoderOutput enc = s.encoder->run(mel, head, keep, params.abort, params.profile ? &result.profile : nullptr, prompt_index);
    const double encoder_ms = ms_since(t0);
    result.timings.encoder_ms += encoder_ms;
    result.threads_used = threads;
    // A run capped below the choice (max_threads) measures neither of the arms adaptive compares.
    if (adaptive && enc.frames > 0 && threads == chosen) adaptive->report(threads, encoder_ms / enc.frames);
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
    // A transducer pass given two or more threads shares each product's rows with a helper that
    // lives for this pass only (row_split.h); CTC has no sequential products.
    std::unique_ptr<RowSplit> split;
    if (decoder != DecoderKind::Ctc && threads >= 2) split = std::make_unique<RowSplit>();
    struct SplitScope {
        const Transducer * t;
        ~SplitScope() {
            if (t != nullptr) t->set_split(nullptr);
        }
    } scope{split != nullptr ? s.transducer.get() : nullptr};
    if (scope.t != nullptr) scope.t->set_split(split.get());
    auto decode = [&](PhraseBoost * boost) {
        switch (decoder) {
            case DecoderKind::Ctc: return ctc_greedy(enc.head, enc.head_dim, enc.valid, hp.blank_id, boost);
            case DecoderKind::Rnnt:
                return rnnt_greedy(*s.transducer, enc.head, enc.head_dim, enc.valid, hp.blank_id, max_symbols, params.abort, boost);
            default:
                return tdt_greedy(*s.transducer, enc.head, enc.head_dim, enc.valid, hp.blank_id, hp.durations, max_symbols, params.tdt_rule,
                                  params.abort, boost);
        }
    };
    if (phrases == nullptr) {
        tokens = decode(nullptr);
    } else {
        std::vector<int> fired;
        tokens = decode_with_phrases(*phrases, hp.blank_id, decode, fired,
                                     non_speech_frames(params.non_speech, offset_sec, hp.frame_sec(), enc.valid));
        for (int f : fired) {
            const std::string & text = phrases->phrase_text(f);
            if (std::find(result.phrases_fired.begin(), result.phrases_fired.end(), text) == result.phrases_fired.end())
                result.phrases_fired.push_back(text);
        }
    }
    s.m->detokenizer->timestamps(tokens, hp.frame_sec(), offset_sec, result.tokens, result.words);
    result.timings.decoder_ms += ms_since(t0);
}

}  // namespace

int resolve_prompt(const Hparams & hp, const std::string & requested) {
    const std::string language = requested.empty() ? "auto" : requested;
    if (!hp.has_prompt) {
        if (language != "auto") throw Error(ErrorCode::BadArgument, "this model has no language prompt; leave the language out (or 'auto')");
        return -1;
    }
    const int index = prompt_index_for(hp, language);
    if (index < 0) {
        std::string locales;
        for (const std::string & l : hp.prompt_locales) locales += (locales.empty() ? "" : ", ") + l;
        throw Error(ErrorCode::BadArgument, "language '" + language + "' is not one of this model's locales (auto, " + locales + ")");
    }
    return index;
}

std::unique_ptr<State::Impl> make_state_impl(const Model & model, const Model::Impl & m, ComputeBackend & backend, const StateParams & params) {
    auto s = std::make_unique<State::Impl>();
    s->model = &model;
    s->m = &m;
    s->backend = &backend;
    s->encoder = std::make_unique<Encoder>(m.hp, m.weights->encoder, m.weights->packed, backend);
    if (m.hp.has_transducer) s->transducer = std::make_unique<Transducer>(m.hp, m.weights->decoder);
    if (params.adaptive_threads && backend.is_cpu() && backend.threads() > 1) s->adaptive = std::make_unique<AdaptiveThreads>(backend.threads());
    s->info.device = backend.device_name();
    s->info.n_threads = backend.threads();
    s->info.scheduled = params.always_schedule;
    s->info.adaptive_threads = s->adaptive != nullptr;
    return s;
}

State::State(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

State::~State() {
    // The state's compute objects go before the model reference that keeps the weights alive.
    impl_->adaptive.reset();
    impl_->transducer.reset();
    impl_->encoder.reset();
    impl_->owned_backend.reset();
}

const Model & State::model() const { return *impl_->model; }
const StateInfo & State::info() const { return impl_->info; }

TranscribeResult State::transcribe(const float * pcm, size_t n_samples, const TranscribeParams & params) {
    Impl & s = *impl_;
    const Model::Impl & m = *s.m;
    bool expected = false;
    if (!s.busy.compare_exchange_strong(expected, true)) {
        throw Error(ErrorCode::Busy,
                    "this model state is already transcribing; wait for that call to finish (one at a time per state; "
                    "a second state transcribes in parallel)");
    }
    struct Release {
        std::atomic<bool> & flag;
        ~Release() { flag.store(false); }
    } release{s.busy};

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
    check_non_speech(params.non_speech);

    const DecoderKind decoder = resolve_decoder(m, params.decoder);
    const int prompt_index = resolve_prompt(m.hp, params.language);
    TranscribeResult result;
    result.decoder = decoder_kind_name(decoder);
    result.device = s.backend->device_name();
    result.duration_sec = seconds;

    const size_t max_samples = size_t(params.max_window_sec * m.hp.sample_rate);
    const size_t frame_samples = size_t(m.hp.hop_length) * size_t(m.hp.subsampling_factor);
    const std::vector<SampleRange> windows = checked_windows(params.windows, n_samples, m.hp.sample_rate, max_samples, frame_samples);
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
    // The vocabulary's phrase graph (compiled when the list changes); none for an empty vocabulary (plain greedy decoding).
    const PhraseGraph * phrases = params.vocabulary.empty() ? nullptr
                                                            : s.vocabulary.get(m.hp.pieces, params.vocabulary, params.never_boost,
                                                                               result.phrases_rejected, m.sentencepiece.get());
    std::string text;
    for (size_t w = 0; w < windows.size(); ++w) {
        check_abort(params.abort);
        const SampleRange & r = windows[w];
        const double offset = double(r.begin) / m.hp.sample_rate;
        result.windows.push_back({offset, double(r.end) / m.hp.sample_rate});
        std::vector<DecodedToken> tokens;
        transcribe_window(s, pcm + r.begin, r.end - r.begin, offset, decoder, prompt_index, params, w == 0, windows.size() > 1,
                          global_stats ? &clip_stats : nullptr, phrases, result, tokens);
        const std::string piece = m.detokenizer->text(tokens);
        if (!piece.empty()) text += (text.empty() ? "" : " ") + piece;
        if (params.on_progress) params.on_progress(float(r.end) / float(n_samples));
    }
    result.text = text;
    result.timings.total_ms = ms_since(start);
    return result;
}

}  // namespace parakeet
