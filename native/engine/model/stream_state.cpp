// A cache-aware stream on a state (NeMo CacheAwareStreamingAudioBuffer + conformer_stream_step with
// the spec's corrections): PCM → frame-local log-mel → chunks of the preset's schedule → the streaming
// encoder → RNNT greedy carried across chunks, with <EOU>/<EOB>/language-tag events.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "greedy.h"
#include "model_impl.h"
#include "model_schema.h"
#include "phrase_boost.h"
#include "phrase_graph.h"
#include "preprocessor.h"
#include "stream_encoder.h"
#include "thread_clock.h"

namespace parakeet {
namespace {

std::string presets_text(const Hparams & hp) {
    std::string out;
    for (const auto & p : hp.att_presets) out += (out.empty() ? "" : ", ") + std::to_string(p.first) + "," + std::to_string(p.second);
    return out;
}

/** The chunking of preset (left, right) (NeMo setup_streaming_params for dw_striding causal subsampling; spec Corrections 2). */
StreamInfo schedule_for(const Hparams & hp, int left, int right) {
    StreamInfo s;
    s.att_left = left;
    s.att_right = right;
    s.chunk_frames = right + 1;
    const int factor = hp.subsampling_factor;
    s.mel_first = 1 + factor * (s.chunk_frames - 1);  // the first chunk has no pre-encode cache
    s.mel_chunk = factor * s.chunk_frames;            // shift = chunk
    s.pre_encode_cache = factor + 1;
    s.drop_extra = 1 + (s.pre_encode_cache - 1) / factor;  // the encoder frames the cache produces again
    return s;
}

/**
 * "<en-US>" → "en-US" for a language tag of a prompt model: a piece <K> whose K is a key of the prompt
 * dictionary; "" otherwise (<unk>, <pad> and other control pieces are no language).
 */
std::string language_of_tag(const Hparams & hp, const std::string & piece) {
    if (piece.size() < 3 || piece.front() != '<' || piece.back() != '>') return "";
    const std::string inner = piece.substr(1, piece.size() - 2);
    const bool known = std::find(hp.prompt_locales.begin(), hp.prompt_locales.end(), inner) != hp.prompt_locales.end();
    return known ? inner : "";
}

const std::string kWordStart = "\xE2\x96\x81";  // ▁

}  // namespace

struct Stream::Impl {
    State::Impl * state = nullptr;
    const Model::Impl * m = nullptr;
    StreamInfo info;
    std::unique_ptr<StreamingLogMel> mel;
    std::unique_ptr<StreamEncoder> encoder;
    PredictionState prediction;
    int max_symbols = 10;
    std::vector<float> pending;  // mel rows [t][M]: the pre-encode cache rows, then frames not yet in a chunk
    int cache_rows = 0;          // leading rows of `pending` that are the pre-encode cache
    bool started = false, ended = false, capture = false, any_text = false, profile = false;
    int next_frame = 0;  // global encoder frame of the next chunk
    int eou_id = -1, eob_id = -1;
    std::vector<std::string> tag_language;  // per vocabulary id: the locale of a language tag, else ""
    std::vector<float> joint, encoded;
    std::unique_ptr<PhraseGraph> phrases;  // StreamParams::vocabulary compiled; null = plain greedy decoding
    std::unique_ptr<PhraseBoost> boost;    // the phrase state carried from chunk to chunk
    std::vector<FrameSpan> non_speech;     // StreamParams::non_speech as global encoder frames

    /** Runs every chunk the pending frames complete; at the end also the final partial chunk. */
    void run_chunks(bool at_end, std::vector<StreamChunk> & out);
    /** Decodes a chunk's encoder frames; `last`: the stream's final chunk (a phrase still open there ends). */
    StreamChunk decode(int frames, bool last);
    std::vector<DecodedToken> decode_tokens(int frames, bool last, std::vector<std::string> & fired);
};

void Stream::Impl::run_chunks(bool at_end, std::vector<StreamChunk> & out) {
    const int M = m->hp.n_mels;
    for (;;) {
        const int available = int(pending.size() / size_t(M)) - cache_rows;
        const int need = started ? info.mel_chunk : info.mel_first;
        int take = 0;
        if (available >= need)
            take = need;
        else if (at_end && available > 0)
            take = available;  // the final partial chunk (spec Corrections 3)
        else
            break;
        const int rows = cache_rows + take;
        // The first chunk builds and allocates its graph: a profile of it would time that too.
        EncoderProfile chunk_profile;
        const double cpu0 = thread_cpu_ms();
        const auto t0 = std::chrono::steady_clock::now();
        const int frames = encoder->step(pending.data(), rows, started ? info.drop_extra : 0, joint, capture ? &encoded : nullptr,
                                         profile && started ? &chunk_profile : nullptr);
        const auto t1 = std::chrono::steady_clock::now();
        const double cpu1 = thread_cpu_ms();
        out.push_back(decode(frames, at_end && take == available));
        StreamChunk & done = out.back();
        done.encoder_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        done.decoder_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
        done.encoder_cpu_ms = cpu1 - cpu0;
        done.decoder_cpu_ms = thread_cpu_ms() - cpu1;
        done.profile = std::move(chunk_profile);
        // The next chunk's pre-encode cache: the last pre_encode_cache rows fed, zero rows in front where
        // fewer exist (NeMo CacheAwareStreamingAudioBuffer pads the cache with zeros).
        const int keep = std::min(info.pre_encode_cache, rows);
        pending.erase(pending.begin(), pending.begin() + ptrdiff_t(size_t(rows - keep) * size_t(M)));
        if (keep < info.pre_encode_cache) pending.insert(pending.begin(), size_t(info.pre_encode_cache - keep) * size_t(M), 0.0f);
        cache_rows = info.pre_encode_cache;
        started = true;
    }
}

std::vector<DecodedToken> Stream::Impl::decode_tokens(int frames, bool last, std::vector<std::string> & fired) {
    const Transducer & transducer = *state->transducer;
    const int blank = m->hp.blank_id;
    const int joint_dim = frames > 0 ? int(joint.size() / size_t(frames)) : 0;
    if (boost == nullptr) return rnnt_greedy_continue(transducer, joint, joint_dim, frames, blank, max_symbols, prediction, nullptr);
    // Each pass restarts the chunk from the prediction state it began with (phrase_boost.h, backoff inside a chunk).
    const PredictionState before = prediction;
    boost->set_frame_offset(next_frame);
    auto pass = [&](PhraseBoost * b) {
        prediction = before;
        std::vector<DecodedToken> tokens = rnnt_greedy_continue(transducer, joint, joint_dim, frames, blank, max_symbols, prediction, nullptr, b);
        if (last) b->finish(frames);
        return tokens;
    };
    std::vector<int> completed;
    std::vector<DecodedToken> tokens = decode_chunk_with_phrases(*boost, next_frame, frames, pass, completed, non_speech);
    for (int f : completed) fired.push_back(phrases->phrase_text(f));
    return tokens;
}

StreamChunk Stream::Impl::decode(int frames, bool last) {
    const Hparams & hp = m->hp;
    const Transducer & transducer = *state->transducer;
    StreamChunk chunk;
    chunk.first_frame = next_frame;
    chunk.frames = frames;
    std::vector<DecodedToken> tokens = decode_tokens(frames, last, chunk.phrases_fired);
    for (DecodedToken & t : tokens) {
        t.frame += next_frame;
        chunk.token_ids.push_back(t.id);
        chunk.token_frames.push_back(t.frame);
        if (t.id == eou_id || t.id == eob_id) {
            chunk.events.push_back({t.id == eou_id ? "eou" : "eob", t.frame, t.id, ""});
            chunk.decoder_reset = true;
        } else if (!tag_language[size_t(t.id)].empty()) {
            chunk.events.push_back({"lang", t.frame, t.id, tag_language[size_t(t.id)]});
        }
    }
    std::string text = m->detokenizer->text(tokens);
    if (!text.empty()) {
        // Chunks join into the stream's text: a chunk that starts a word keeps the space before it.
        const auto first =
                std::find_if(tokens.begin(), tokens.end(), [&](const DecodedToken & t) { return !m->detokenizer->rendered(t.id).empty(); });
        const bool starts_word = first != tokens.end() && m->hp.pieces[size_t(first->id)].rfind(kWordStart, 0) == 0;
        if (any_text && starts_word) text = " " + text;
        chunk.continues_word = any_text && !starts_word;
        any_text = true;
    }
    chunk.text = std::move(text);
    m->detokenizer->timestamps(tokens, hp.frame_sec(), 0.0, chunk.tokens, chunk.words);
    if (capture) chunk.encoded = encoded;
    // spec Corrections 4: the decoder (LSTM state, last token) restarts from SOS after the chunk in which
    // <EOU>/<EOB> was emitted; the encoder caches are kept.
    if (chunk.decoder_reset) prediction = transducer.initial_state();
    next_frame += frames;
    return chunk;
}

std::unique_ptr<Stream> State::begin_stream(const StreamParams & params) {
    Impl & s = *impl_;
    const Model::Impl & m = *s.m;
    const Hparams & hp = m.hp;
    if (!m.info.streaming) {
        std::string why = !hp.is_streaming() ? "it is an offline model (parakeet.encoder.att_context_style = '" + hp.att_context_style + "'" +
                                                       (hp.causal_downsampling ? "" : ", no causal subsampling") + ")"
                          : hp.normalize != "NA" ? "its features are normalized over the whole clip (normalize = '" + hp.normalize + "')"
                                                 : "it has no RNNT head";
        throw Error(ErrorCode::BadArgument, "this model cannot stream: " + why + "; choose a cache-aware streaming model or transcribe offline");
    }
    if (hp.conv_kernel < 2) throw Error(ErrorCode::BadArgument, "streaming needs a depthwise conv kernel of at least 2 taps");
    int left = hp.att_presets.front().first, right = hp.att_presets.front().second;
    if (params.att_left >= 0 || params.att_right >= 0) {
        const auto wanted = std::make_pair(params.att_left, params.att_right);
        if (std::find(hp.att_presets.begin(), hp.att_presets.end(), wanted) == hp.att_presets.end()) {
            throw Error(ErrorCode::BadArgument, "attention context " + std::to_string(params.att_left) + "," + std::to_string(params.att_right) +
                                                        " is not a preset of this model (its presets: " + presets_text(hp) + ")");
        }
        left = params.att_left;
        right = params.att_right;
    }
    auto impl = std::make_unique<Stream::Impl>();
    impl->info = schedule_for(hp, left, right);
    const int prompt_index = resolve_prompt(hp, params.language);
    if (hp.has_prompt) {
        impl->info.language = params.language.empty() ? "auto" : params.language;
        impl->info.prompt_index = prompt_index;
    }
    impl->state = &s;
    impl->m = &m;
    impl->max_symbols = params.max_symbols > 0 ? params.max_symbols : hp.max_symbols;
    impl->mel = std::make_unique<StreamingLogMel>(hp, m.weights->preprocessor);
    impl->encoder = std::make_unique<StreamEncoder>(hp, m.weights->encoder, m.weights->packed, *s.backend, impl->info, prompt_index);
    impl->prediction = s.transducer->initial_state();
    check_non_speech(params.non_speech);
    if (!params.vocabulary.empty()) {
        impl->non_speech = non_speech_frames(params.non_speech, 0.0, hp.frame_sec(), std::numeric_limits<int>::max() / 2);
        PhraseGraph graph =
                PhraseGraph::compile(hp.pieces, params.vocabulary, params.never_boost, impl->info.phrases_rejected, m.sentencepiece.get());
        if (!graph.empty()) {
            impl->phrases = std::make_unique<PhraseGraph>(std::move(graph));
            impl->boost = std::make_unique<PhraseBoost>(*impl->phrases, hp.blank_id, std::vector<FrameSpan>{});
        }
    }
    impl->tag_language.assign(hp.pieces.size(), "");
    for (size_t id = 0; id < hp.pieces.size(); ++id) {
        if (hp.pieces[id] == "<EOU>")
            impl->eou_id = int(id);
        else if (hp.pieces[id] == "<EOB>")
            impl->eob_id = int(id);
        else if (hp.has_prompt)
            impl->tag_language[id] = language_of_tag(hp, hp.pieces[id]);
    }
    return std::unique_ptr<Stream>(new Stream(std::move(impl)));
}

Stream::Stream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Stream::~Stream() = default;

const StreamInfo & Stream::info() const { return impl_->info; }
void Stream::capture_encoder(bool on) { impl_->capture = on; }
void Stream::profile_chunks(bool on) { impl_->profile = on; }

namespace {

/** Holds the state's one-compute-at-a-time flag for a feed or end. */
struct BusyScope {
    std::atomic<bool> & flag;
    explicit BusyScope(std::atomic<bool> & f) : flag(f) {
        bool expected = false;
        if (!flag.compare_exchange_strong(expected, true)) {
            throw Error(ErrorCode::Busy,
                        "this model state is computing (a transcription or another stream's chunk); one compute at a time per state");
        }
    }
    ~BusyScope() { flag.store(false); }
};

}  // namespace

std::vector<StreamChunk> Stream::feed(const float * pcm, size_t n_samples) {
    Impl & s = *impl_;
    if (s.ended) throw Error(ErrorCode::BadArgument, "this stream has ended; begin a new one");
    for (size_t i = 0; i < n_samples; ++i) {
        if (!std::isfinite(pcm[i])) throw Error(ErrorCode::BadAudio, "the audio block holds non-finite samples (NaN or infinity)");
    }
    BusyScope busy(s.state->busy);
    std::vector<StreamChunk> out;
    if (n_samples == 0) return out;
    s.mel->push(pcm, n_samples);
    s.mel->take(false, s.pending);
    s.run_chunks(false, out);
    return out;
}

std::vector<StreamChunk> Stream::end() {
    Impl & s = *impl_;
    if (s.ended) throw Error(ErrorCode::BadArgument, "this stream has already ended");
    BusyScope busy(s.state->busy);
    s.ended = true;
    std::vector<StreamChunk> out;
    s.mel->take(true, s.pending);
    s.run_chunks(true, out);
    if (out.empty() && s.boost != nullptr) {
        // No final chunk (the audio ended on a chunk boundary): a phrase still open at the end is closed here.
        s.boost->clear_results();
        s.boost->set_frame_offset(s.next_frame);
        s.boost->finish(0);
        StreamChunk closing;
        closing.first_frame = s.next_frame;
        for (int f : s.boost->fired()) closing.phrases_fired.push_back(s.phrases->phrase_text(f));
        if (!closing.phrases_fired.empty()) out.push_back(std::move(closing));
    }
    return out;
}

}  // namespace parakeet
