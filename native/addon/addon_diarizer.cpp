#include "addon_diarizer.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "addon_errors.h"
#include "addon_state.h"

namespace addon {
namespace {

/** A promise settled by `compute` on a libuv thread (engine errors captured) and `resolve` on the JS thread. */
class DiarizerWorker : public Napi::AsyncWorker {
public:
    DiarizerWorker(Napi::Env env, std::function<void()> compute, std::function<Napi::Value(Napi::Env)> resolve, std::function<void()> settled = {})
            : Napi::AsyncWorker(env, "parakeet:diarizer"),
              deferred_(Napi::Promise::Deferred::New(env)),
              compute_(std::move(compute)),
              resolve_(std::move(resolve)),
              settled_(std::move(settled)) {}

    Napi::Promise promise() { return deferred_.Promise(); }

private:
    void Execute() override {
        try {
            compute_();
        } catch (...) {
            error_.capture_current();
        }
    }
    void OnOK() override {
        if (settled_) settled_();
        if (error_.set)
            deferred_.Reject(make_error(Env(), error_.code.c_str(), error_.message).Value());
        else
            deferred_.Resolve(resolve_(Env()));
    }
    void OnError(const Napi::Error & e) override {
        if (settled_) settled_();
        deferred_.Reject(e.Value());
    }

    Napi::Promise::Deferred deferred_;
    std::function<void()> compute_;
    std::function<Napi::Value(Napi::Env)> resolve_;
    std::function<void()> settled_;
    PendingError error_;
};

Napi::Promise queue(DiarizerWorker * worker) {
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Object activities_object(Napi::Env env, const parakeet::SpeakerActivities & a) {
    Napi::Object out = Napi::Object::New(env);
    out.Set("frameSec", a.frame_sec);
    out.Set("nSpeakers", a.n_speakers);
    out.Set("frames", a.frames);
    Napi::Float32Array values = Napi::Float32Array::New(env, a.values.size());
    if (!a.values.empty()) std::memcpy(values.Data(), a.values.data(), a.values.size() * sizeof(float));
    out.Set("activities", values);
    return out;
}

std::vector<float> samples_of(const Napi::CallbackInfo & info, const char * usage) {
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
        throw_bad_argument(info.Env(), usage);
    }
    Napi::Float32Array pcm = info[0].As<Napi::Float32Array>();
    return std::vector<float>(pcm.Data(), pcm.Data() + pcm.ElementLength());
}

}  // namespace

Napi::Function AddonDiarizer::Define(Napi::Env env) {
    return DefineClass(env, "Diarizer",
                       {
                               InstanceMethod<&AddonDiarizer::Info>("info"),
                               InstanceMethod<&AddonDiarizer::Diarize>("diarize"),
                               InstanceMethod<&AddonDiarizer::CreateStream>("createStream"),
                               InstanceMethod<&AddonDiarizer::Dispose>("dispose"),
                       });
}

AddonDiarizer::AddonDiarizer(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonDiarizer>(info) {}

Napi::Value AddonDiarizer::Load(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) throw_bad_argument(env, "loadDiarizer(path, options): path must be a string");
    parakeet::DiarizerLoadParams params;
    if (info.Length() > 1 && info[1].IsObject()) {
        Napi::Object o = info[1].As<Napi::Object>();
        if (o.Get("device").IsString()) params.device = o.Get("device").As<Napi::String>().Utf8Value();
        if (o.Get("threads").IsNumber()) params.n_threads = o.Get("threads").As<Napi::Number>().Int32Value();
    }
    const std::string path = info[0].As<Napi::String>().Utf8Value();
    auto model = std::make_shared<std::shared_ptr<parakeet::DiarizerModel>>();
    return queue(new DiarizerWorker(
            env, [model, path, params] { *model = parakeet::DiarizerModel::load(path, params); },
            [model](Napi::Env e) -> Napi::Value {
                Napi::Object js = addon_state(e).diarizer_ctor.New({});
                AddonDiarizer::Unwrap(js)->attach(*model);
                return js;
            }));
}

Napi::Value AddonDiarizer::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this diarizer was disposed");
    const parakeet::DiarizerInfo & d = model_->info();
    Napi::Object out = Napi::Object::New(env);
    out.Set("path", d.path);
    out.Set("name", d.name);
    out.Set("nSpeakers", d.n_speakers);
    out.Set("frameSec", d.frame_sec);
    out.Set("sampleRate", d.sample_rate);
    out.Set("streamingMode", d.streaming_mode);
    out.Set("chunkLen", d.chunk_len);
    out.Set("chunkLeftContext", d.chunk_left_context);
    out.Set("chunkRightContext", d.chunk_right_context);
    out.Set("spkcacheLen", d.spkcache_len);
    out.Set("fifoLen", d.fifo_len);
    out.Set("spkcacheUpdatePeriod", d.spkcache_update_period);
    out.Set("encoderLayers", d.encoder_layers);
    out.Set("transformerLayers", d.transformer_layers);
    out.Set("onsetThreshold", d.onset_threshold);
    out.Set("offsetThreshold", d.offset_threshold);
    out.Set("device", d.device);
    out.Set("threads", d.n_threads);
    return out;
}

Napi::Value AddonDiarizer::Diarize(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this diarizer was disposed");
    auto samples = std::make_shared<std::vector<float>>(samples_of(info, "diarize(samples, streaming): samples must be a Float32Array"));
    const bool streaming = info.Length() > 1 && info[1].ToBoolean().Value();
    auto result = std::make_shared<parakeet::SpeakerActivities>();
    std::shared_ptr<parakeet::DiarizerModel> model = model_;
    return queue(new DiarizerWorker(
            env, [model, samples, streaming, result] { *result = model->diarize(samples->data(), samples->size(), streaming); },
            [result](Napi::Env e) -> Napi::Value { return activities_object(e, *result); }));
}

Napi::Value AddonDiarizer::CreateStream(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this diarizer was disposed");
    std::shared_ptr<parakeet::DiarizerStream> stream;
    try {
        stream = model_->create_stream();
    } catch (const parakeet::Error & e) {
        throw make_error(env, e);
    }
    Napi::Object js = addon_state(env).diarizer_stream_ctor.New({});
    AddonDiarizerStream::Unwrap(js)->attach(std::move(stream));
    return js;
}

Napi::Value AddonDiarizer::Dispose(const Napi::CallbackInfo & info) {
    model_.reset();  // the weights stay while a stream made from them lives
    return info.Env().Undefined();
}

Napi::Function AddonDiarizerStream::Define(Napi::Env env) {
    return DefineClass(env, "DiarizerStream",
                       {
                               InstanceMethod<&AddonDiarizerStream::Push>("push"),
                               InstanceMethod<&AddonDiarizerStream::Finish>("finish"),
                               InstanceMethod<&AddonDiarizerStream::Dispose>("dispose"),
                       });
}

AddonDiarizerStream::AddonDiarizerStream(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonDiarizerStream>(info) {}

Napi::Value AddonDiarizerStream::Push(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!stream_) throw make_error(env, "BAD_ARGUMENT", "this diarizer stream was disposed");
    if (*in_flight_) throw make_error(env, "BUSY", "this diarizer stream is already processing audio; await the previous call");
    auto samples = std::make_shared<std::vector<float>>(samples_of(info, "push(samples): samples must be a Float32Array"));
    auto result = std::make_shared<parakeet::SpeakerActivities>();
    std::shared_ptr<parakeet::DiarizerStream> stream = stream_;
    std::shared_ptr<bool> flag = in_flight_;
    *flag = true;
    return queue(new DiarizerWorker(
            env, [stream, samples, result] { *result = stream->push(samples->data(), samples->size()); },
            [result](Napi::Env e) -> Napi::Value { return activities_object(e, *result); }, [flag] { *flag = false; }));
}

Napi::Value AddonDiarizerStream::Finish(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!stream_) throw make_error(env, "BAD_ARGUMENT", "this diarizer stream was disposed");
    if (*in_flight_) throw make_error(env, "BUSY", "this diarizer stream is already processing audio; await the previous call");
    auto result = std::make_shared<parakeet::SpeakerActivities>();
    std::shared_ptr<parakeet::DiarizerStream> stream = stream_;
    std::shared_ptr<bool> flag = in_flight_;
    *flag = true;
    return queue(new DiarizerWorker(
            env, [stream, result] { *result = stream->finish(); }, [result](Napi::Env e) -> Napi::Value { return activities_object(e, *result); },
            [flag] { *flag = false; }));
}

Napi::Value AddonDiarizerStream::Dispose(const Napi::CallbackInfo & info) {
    stream_.reset();
    return info.Env().Undefined();
}

}  // namespace addon
