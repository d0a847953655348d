#include "addon_vad.h"

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "addon_errors.h"
#include "addon_state.h"

namespace addon {
namespace {

/**
 * A promise settled by work on a libuv thread: `compute` runs there (engine errors captured), `resolve`
 * makes the value on the JS thread; `settled` runs on the JS thread either way.
 */
class VadWorker : public Napi::AsyncWorker {
public:
    VadWorker(Napi::Env env, const char * name) : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)) {}

    Napi::Promise promise() { return deferred_.Promise(); }

protected:
    virtual void compute() = 0;
    virtual Napi::Value resolve(Napi::Env env) = 0;
    virtual void settled() {}

private:
    void Execute() override {
        try {
            compute();
        } catch (...) {
            error_.capture_current();
        }
    }

    void OnOK() override {
        Napi::Env env = Env();
        settled();
        if (error_.set)
            deferred_.Reject(make_error(env, error_.code.c_str(), error_.message).Value());
        else
            deferred_.Resolve(resolve(env));
    }

    void OnError(const Napi::Error & e) override {
        settled();
        deferred_.Reject(e.Value());
    }

    Napi::Promise::Deferred deferred_;
    PendingError error_;
};

class VadLoadWorker : public VadWorker {
public:
    VadLoadWorker(Napi::Env env, std::string path) : VadWorker(env, "parakeet:vad-load"), path_(std::move(path)) {}

private:
    void compute() override { model_ = parakeet::VadModel::load(path_); }

    Napi::Value resolve(Napi::Env env) override {
        Napi::Object js = addon_state(env).vad_model_ctor.New({});
        AddonVadModel::Unwrap(js)->attach(std::move(model_));
        return js;
    }

    std::string path_;
    std::shared_ptr<const parakeet::VadModel> model_;
};

/** Runs push (or flush, with no samples) on a worker thread and resolves with the probabilities. */
class VadChunkWorker : public VadWorker {
public:
    VadChunkWorker(Napi::Env env, std::shared_ptr<parakeet::VadStream> stream, std::shared_ptr<bool> in_flight, std::vector<float> samples,
                   bool flush)
            : VadWorker(env, "parakeet:vad"),
              stream_(std::move(stream)),
              in_flight_(std::move(in_flight)),
              samples_(std::move(samples)),
              flush_(flush) {}

private:
    void compute() override { probs_ = flush_ ? stream_->flush() : stream_->push(samples_.data(), samples_.size()); }

    Napi::Value resolve(Napi::Env env) override {
        Napi::Float32Array out = Napi::Float32Array::New(env, probs_.size());
        if (!probs_.empty()) std::memcpy(out.Data(), probs_.data(), probs_.size() * sizeof(float));
        return out;
    }

    void settled() override { *in_flight_ = false; }

    std::shared_ptr<parakeet::VadStream> stream_;
    std::shared_ptr<bool> in_flight_;  // touched on the JS thread only
    std::vector<float> samples_;
    bool flush_;
    std::vector<float> probs_;
};

}  // namespace

Napi::Function AddonVadModel::Define(Napi::Env env) {
    return DefineClass(env, "VadModel",
                       {
                               InstanceMethod<&AddonVadModel::Info>("info"),
                               InstanceMethod<&AddonVadModel::CreateStream>("createStream"),
                               InstanceMethod<&AddonVadModel::Dispose>("dispose"),
                       });
}

AddonVadModel::AddonVadModel(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonVadModel>(info) {}

Napi::Value AddonVadModel::Load(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) throw_bad_argument(env, "loadVadModel(path): path must be a string");
    auto * worker = new VadLoadWorker(env, info[0].As<Napi::String>().Utf8Value());
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value AddonVadModel::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this VAD model was disposed");
    const parakeet::VadModelInfo & m = model_->info();
    Napi::Object out = Napi::Object::New(env);
    out.Set("path", m.path);
    out.Set("name", m.name);
    out.Set("sourceVersion", m.source_version);
    out.Set("sourceSha256", m.source_sha256);
    out.Set("weightType", m.weight_type);
    Napi::Array rates = Napi::Array::New(env, m.sample_rates.size());
    for (size_t i = 0; i < m.sample_rates.size(); ++i) rates.Set(uint32_t(i), m.sample_rates[i]);
    out.Set("sampleRates", rates);
    out.Set("fileSize", double(m.file_size));
    out.Set("bundleComponent", m.bundle_component);
    return out;
}

Napi::Value AddonVadModel::CreateStream(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this VAD model was disposed");
    if (info.Length() < 1 || !info[0].IsNumber()) throw_bad_argument(env, "createStream(sampleRate): sampleRate must be 16000 or 8000");
    // Int32Value would truncate 16000.5 and wrap 2^32 + 16000 into a 16 kHz stream: only the exact rates pass.
    const double requested = info[0].As<Napi::Number>().DoubleValue();
    if (requested != 16000.0 && requested != 8000.0) {
        throw_bad_argument(env, "createStream(sampleRate): sampleRate must be 16000 or 8000, not " + Napi::Value(info[0]).ToString().Utf8Value() +
                                        " (resample other rates to 16 kHz first)");
    }
    std::shared_ptr<parakeet::VadStream> stream;
    try {
        stream = std::make_shared<parakeet::VadStream>(model_, int(requested));
    } catch (const parakeet::Error & e) {
        throw make_error(env, e);
    } catch (const std::bad_alloc &) {
        throw make_error(env, "OUT_OF_MEMORY", "not enough memory for a VAD stream");
    }
    Napi::Object js = addon_state(env).vad_stream_ctor.New({});
    AddonVadStream::Unwrap(js)->attach(std::move(stream));
    return js;
}

Napi::Value AddonVadModel::Dispose(const Napi::CallbackInfo & info) {
    model_.reset();  // the weights stay while a stream made from them lives
    return info.Env().Undefined();
}

Napi::Function AddonVadStream::Define(Napi::Env env) {
    return DefineClass(env, "VadStream",
                       {
                               InstanceMethod<&AddonVadStream::Process>("process"),
                               InstanceMethod<&AddonVadStream::Flush>("flush"),
                               InstanceMethod<&AddonVadStream::Reset>("reset"),
                               InstanceMethod<&AddonVadStream::Dispose>("dispose"),
                               InstanceAccessor<&AddonVadStream::SampleRate>("sampleRate"),
                               InstanceAccessor<&AddonVadStream::ChunkSamples>("chunkSamples"),
                       });
}

AddonVadStream::AddonVadStream(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonVadStream>(info) {}

std::shared_ptr<parakeet::VadStream> AddonVadStream::live(Napi::Env env) const {
    if (!stream_) throw make_error(env, "BAD_ARGUMENT", "this VAD stream was disposed");
    return stream_;
}

std::shared_ptr<bool> AddonVadStream::claim(Napi::Env env) {
    // Refused when queued, not only when running: a second call never waits behind the first.
    if (*in_flight_) throw make_error(env, "BUSY", "this VAD stream is already processing audio; await the previous call (one stream per source)");
    *in_flight_ = true;
    return in_flight_;
}

Napi::Value AddonVadStream::Process(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    std::shared_ptr<parakeet::VadStream> stream = live(env);
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
        throw_bad_argument(env, "process(samples): samples must be a Float32Array");
    }
    Napi::Float32Array pcm = info[0].As<Napi::Float32Array>();
    // The worker reads a copy (the caller may change or transfer its buffer meanwhile). A copy that does not fit
    // must reject the call: a std::bad_alloc escaping this callback would terminate the whole process.
    std::vector<float> samples;
    try {
        samples.assign(pcm.Data(), pcm.Data() + pcm.ElementLength());
    } catch (const std::bad_alloc &) {
        throw make_error(
                env, "OUT_OF_MEMORY",
                "not enough memory to take " + std::to_string(pcm.ElementLength()) + " samples for the VAD; give the audio in smaller pieces");
    }
    auto * worker = new VadChunkWorker(env, std::move(stream), claim(env), std::move(samples), false);
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value AddonVadStream::Flush(const Napi::CallbackInfo & info) {
    auto * worker = new VadChunkWorker(info.Env(), live(info.Env()), claim(info.Env()), {}, true);
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value AddonVadStream::Reset(const Napi::CallbackInfo & info) {
    if (*in_flight_) throw make_error(info.Env(), "BUSY", "this VAD stream is processing audio; reset it after the call ends");
    try {
        live(info.Env())->reset();
    } catch (const parakeet::Error & e) {
        throw make_error(info.Env(), e);
    }
    return info.Env().Undefined();
}

Napi::Value AddonVadStream::Dispose(const Napi::CallbackInfo & info) {
    stream_.reset();  // freed now, or by the worker still holding it
    return info.Env().Undefined();
}

Napi::Value AddonVadStream::SampleRate(const Napi::CallbackInfo & info) { return Napi::Number::New(info.Env(), live(info.Env())->sample_rate()); }

Napi::Value AddonVadStream::ChunkSamples(const Napi::CallbackInfo & info) { return Napi::Number::New(info.Env(), live(info.Env())->chunk_samples()); }

}  // namespace addon
