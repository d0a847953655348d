#include "addon_stream.h"

#include <cstring>
#include <vector>

#include "addon_convert.h"
#include "addon_errors.h"
#include "addon_state.h"

namespace addon {
namespace {

Napi::Object chunk_to_js(Napi::Env env, const parakeet::StreamChunk & c) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("firstFrame", c.first_frame);
    o.Set("frames", c.frames);
    Napi::Array ids = Napi::Array::New(env, c.token_ids.size());
    Napi::Array frames = Napi::Array::New(env, c.token_frames.size());
    for (size_t i = 0; i < c.token_ids.size(); ++i) {
        ids.Set(uint32_t(i), c.token_ids[i]);
        frames.Set(uint32_t(i), c.token_frames[i]);
    }
    o.Set("tokenIds", ids);
    o.Set("tokenFrames", frames);
    Napi::Array events = Napi::Array::New(env, c.events.size());
    for (size_t i = 0; i < c.events.size(); ++i) {
        Napi::Object e = Napi::Object::New(env);
        e.Set("type", c.events[i].type);
        e.Set("frame", c.events[i].frame);
        e.Set("tokenId", c.events[i].token_id);
        if (!c.events[i].value.empty()) e.Set("language", c.events[i].value);
        events.Set(uint32_t(i), e);
    }
    o.Set("events", events);
    o.Set("text", c.text);
    o.Set("decoderReset", c.decoder_reset);
    o.Set("tokens", to_js(env, c.tokens));
    o.Set("words", to_js(env, c.words));
    o.Set("continuesWord", c.continues_word);
    o.Set("phrasesFired", to_js(env, c.phrases_fired));
    o.Set("encoderMs", c.encoder_ms);
    o.Set("decoderMs", c.decoder_ms);
    o.Set("encoderCpuMs", c.encoder_cpu_ms);
    o.Set("decoderCpuMs", c.decoder_cpu_ms);
    if (!c.profile.by_op.empty()) o.Set("profile", to_js(env, c.profile));
    if (!c.encoded.empty()) {
        Napi::Float32Array enc = Napi::Float32Array::New(env, c.encoded.size());
        std::memcpy(enc.Data(), c.encoded.data(), c.encoded.size() * sizeof(float));
        o.Set("encoded", enc);
    }
    return o;
}

class StreamWorker : public Napi::AsyncWorker {
public:
    StreamWorker(Napi::Env env, std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state,
                 std::shared_ptr<parakeet::Stream> stream, std::vector<float> pcm, bool end)
            : Napi::AsyncWorker(env, "parakeet:stream"),
              deferred_(Napi::Promise::Deferred::New(env)),
              model_(std::move(model)),
              state_(std::move(state)),
              stream_(std::move(stream)),
              pcm_(std::move(pcm)),
              end_(end) {}

    Napi::Promise promise() { return deferred_.Promise(); }

    void Execute() override {
        try {
            chunks_ = end_ ? stream_->end() : stream_->feed(pcm_.data(), pcm_.size());
        } catch (...) {
            error_.capture_current();
        }
        // Released here, off the JS thread: a disposed stream, state or model is freed with its last holder.
        stream_.reset();
        state_.reset();
        model_.reset();
    }

    void OnOK() override {
        Napi::Env env = Env();
        if (error_.set) {
            deferred_.Reject(make_error(env, error_.code.c_str(), error_.message).Value());
            return;
        }
        Napi::Array out = Napi::Array::New(env, chunks_.size());
        for (size_t i = 0; i < chunks_.size(); ++i) out.Set(uint32_t(i), chunk_to_js(env, chunks_[i]));
        deferred_.Resolve(out);
    }

    void OnError(const Napi::Error & e) override { deferred_.Reject(e.Value()); }

private:
    Napi::Promise::Deferred deferred_;
    std::shared_ptr<parakeet::Model> model_;
    std::shared_ptr<parakeet::State> state_;
    std::shared_ptr<parakeet::Stream> stream_;
    std::vector<float> pcm_;
    bool end_;
    std::vector<parakeet::StreamChunk> chunks_;
    PendingError error_;
};

}  // namespace

Napi::Function AddonStream::Define(Napi::Env env) {
    return DefineClass(env, "Stream",
                       {
                               InstanceMethod<&AddonStream::Info>("info"),
                               InstanceMethod<&AddonStream::Feed>("feed"),
                               InstanceMethod<&AddonStream::End>("end"),
                               InstanceMethod<&AddonStream::Dispose>("dispose"),
                       });
}

AddonStream::AddonStream(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonStream>(info) {}

Napi::Value AddonStream::Create(Napi::Env env, std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state, Napi::Value options) {
    parakeet::StreamParams params;
    bool capture = false, profile = false;
    if (!options.IsUndefined() && !options.IsNull()) {
        if (!options.IsObject()) throw_bad_argument(env, "createStream(options?): options must be an object");
        Napi::Object o = options.As<Napi::Object>();
        params.att_left = int(optional_number(o, "attLeft", -1));
        params.att_right = int(optional_number(o, "attRight", -1));
        params.language = optional_string(o, "language", "");
        const double max_symbols = optional_number(o, "maxSymbols", 0);
        if (!(max_symbols >= 0 && max_symbols <= 1000) || max_symbols != double(int(max_symbols)))
            throw_bad_argument(env, "maxSymbols must be an integer 0..1000");
        params.max_symbols = int(max_symbols);
        capture = optional_bool(o, "captureEncoder", false);
        params.vocabulary = vocabulary_from_js(env, o.Get("vocabulary"));
        params.never_boost = strings_from_js(env, o.Get("neverBoost"), "neverBoost");
        params.non_speech = ranges_from_js(env, o.Get("nonSpeech"), "nonSpeech");
        profile = optional_bool(o, "profile", false);
    }
    std::shared_ptr<parakeet::Stream> stream;
    try {
        // The caches' buffer (a few MB at most): quick enough for the JS thread, like createState.
        stream = std::shared_ptr<parakeet::Stream>(state->begin_stream(params));
    } catch (const parakeet::Error & e) {
        throw make_error(env, e);
    }
    stream->capture_encoder(capture);
    stream->profile_chunks(profile);
    Napi::Object object = addon_state(env).stream_ctor.New({});
    AddonStream * wrapped = AddonStream::Unwrap(object);
    wrapped->model_ = std::move(model);
    wrapped->state_ = std::move(state);
    wrapped->stream_ = std::move(stream);
    return object;
}

Napi::Value AddonStream::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!stream_) throw make_error(env, "BAD_ARGUMENT", "this stream was disposed");
    const parakeet::StreamInfo & s = stream_->info();
    Napi::Object o = Napi::Object::New(env);
    o.Set("attLeft", s.att_left);
    o.Set("attRight", s.att_right);
    o.Set("chunkFrames", s.chunk_frames);
    o.Set("melFirst", s.mel_first);
    o.Set("melChunk", s.mel_chunk);
    o.Set("preEncodeCache", s.pre_encode_cache);
    o.Set("dropExtra", s.drop_extra);
    o.Set("language", s.language);
    o.Set("promptIndex", s.prompt_index);
    o.Set("phrasesRejected", to_js(env, s.phrases_rejected));
    return o;
}

Napi::Value AddonStream::Feed(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!stream_) throw make_error(env, "BAD_ARGUMENT", "this stream was disposed");
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
        throw_bad_argument(env, "feed(pcm): pcm must be a Float32Array of mono samples at the model's rate");
    }
    Napi::Float32Array input = info[0].As<Napi::Float32Array>();
    std::vector<float> pcm(input.ElementLength());  // copied: JS may reuse its buffer meanwhile
    if (!pcm.empty()) std::memcpy(pcm.data(), input.Data(), pcm.size() * sizeof(float));
    auto * worker = new StreamWorker(env, model_, state_, stream_, std::move(pcm), false);
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value AddonStream::End(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!stream_) throw make_error(env, "BAD_ARGUMENT", "this stream was disposed");
    auto * worker = new StreamWorker(env, model_, state_, stream_, {}, true);
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value AddonStream::Dispose(const Napi::CallbackInfo & info) {
    stream_.reset();
    state_.reset();
    model_.reset();
    return info.Env().Undefined();
}

}  // namespace addon
