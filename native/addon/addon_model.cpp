#include "addon_model.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "addon_abort_flag.h"
#include "addon_convert.h"
#include "addon_errors.h"
#include "addon_progress.h"
#include "addon_model_state.h"
#include "addon_state.h"
#include "addon_transcribe.h"

namespace addon {
namespace {

class LoadWorker : public Napi::AsyncWorker {
public:
    LoadWorker(Napi::Env env, std::string path, parakeet::LoadParams params, std::shared_ptr<std::atomic<bool>> abort, Napi::Value on_progress)
            : Napi::AsyncWorker(env, "parakeet:load"),
              deferred_(Napi::Promise::Deferred::New(env)),
              path_(std::move(path)),
              params_(std::move(params)),
              abort_(std::move(abort)),
              progress_(env, on_progress, "parakeet:load-progress") {
        params_.abort = abort_.get();
        params_.on_progress = [this](float f) { progress_.report(f); };
    }

    Napi::Promise promise() { return deferred_.Promise(); }

    void Execute() override {
        try {
            model_ = parakeet::Model::load(path_, params_);
        } catch (...) {
            error_.capture_current();
        }
    }

    void OnOK() override {
        Napi::Env env = Env();
        progress_.finish(env, !error_.set);
        if (error_.set) {
            deferred_.Reject(make_error(env, error_.code.c_str(), error_.message).Value());
            return;
        }
        Napi::Object js = addon_state(env).model_ctor.New({});
        AddonModel::Unwrap(js)->attach(std::move(model_));
        deferred_.Resolve(js);
    }

    void OnError(const Napi::Error & e) override {
        progress_.finish(Env(), false);
        deferred_.Reject(e.Value());
    }

private:
    Napi::Promise::Deferred deferred_;
    std::string path_;
    parakeet::LoadParams params_;
    std::shared_ptr<std::atomic<bool>> abort_;
    ProgressSink progress_;
    std::shared_ptr<parakeet::Model> model_;
    PendingError error_;
};

}  // namespace

Napi::Function AddonModel::Define(Napi::Env env) {
    return DefineClass(env, "Model",
                       {
                               InstanceMethod<&AddonModel::Info>("info"),
                               InstanceMethod<&AddonModel::SentencePieceModel>("sentencePieceModel"),
                               InstanceMethod<&AddonModel::CheckVocabulary>("checkVocabulary"),
                               InstanceMethod<&AddonModel::Transcribe>("transcribe"),
                               InstanceMethod<&AddonModel::CreateState>("createState"),
                               InstanceMethod<&AddonModel::Dispose>("dispose"),
                               InstanceAccessor<&AddonModel::Disposed>("disposed"),
                       });
}

AddonModel::AddonModel(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonModel>(info) {}

void AddonModel::attach(std::shared_ptr<parakeet::Model> model) { model_ = std::move(model); }

Napi::Value AddonModel::Load(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) throw_bad_argument(env, "loadModel(path, options?, onProgress?): path must be a string");
    const std::string path = info[0].As<Napi::String>().Utf8Value();
    parakeet::LoadParams params;
    std::shared_ptr<std::atomic<bool>> abort = std::make_shared<std::atomic<bool>>(false);
    if (info.Length() > 1 && !info[1].IsUndefined() && !info[1].IsNull()) {
        if (!info[1].IsObject()) throw_bad_argument(env, "loadModel: options must be an object");
        Napi::Object o = info[1].As<Napi::Object>();
        params.device = optional_string(o, "device", "");
        const double threads = optional_number(o, "threads", 0);
        if (!(threads >= 0 && threads <= 1024) || threads != double(int(threads))) throw_bad_argument(env, "threads must be an integer 0..1024");
        params.n_threads = int(threads);
        params.weight_type = optional_string(o, "weightType", "auto");
        params.use_mmap = optional_bool(o, "mmap", true);
        params.always_schedule = optional_bool(o, "alwaysSchedule", false);
        params.packed_kernels = optional_bool(o, "packedKernels", true);
        params.adaptive_threads = optional_bool(o, "adaptiveThreads", false);
        abort = AddonAbortFlag::from_value(o.Get("abortFlag"));
    }
    auto * worker = new LoadWorker(env, path, std::move(params), abort, info.Length() > 2 ? info[2] : env.Undefined());
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value AddonModel::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this model was disposed");
    if (info_cache_.IsEmpty()) info_cache_ = Napi::Persistent(to_js(env, model_->info()));
    return info_cache_.Value();
}

Napi::Value AddonModel::SentencePieceModel(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this model was disposed");
    const std::string & proto = model_->sentencepiece_model();
    if (proto.empty()) return env.Null();
    return Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t *>(proto.data()), proto.size());
}

Napi::Value AddonModel::CheckVocabulary(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this model was disposed");
    const std::vector<parakeet::VocabularyPhrase> phrases = vocabulary_from_js(env, info[0]);
    const std::vector<std::string> never_boost = strings_from_js(env, info[1], "neverBoost");
    std::vector<parakeet::PhraseCheck> checks;
    try {
        // On the JS thread: a compile of at most 1,000 phrases, as createStream compiles them.
        checks = model_->check_vocabulary(phrases, never_boost);
    } catch (const parakeet::Error & e) {
        throw make_error(env, e);
    }
    Napi::Array out = Napi::Array::New(env, checks.size());
    for (size_t i = 0; i < checks.size(); ++i) {
        Napi::Object o = Napi::Object::New(env);
        o.Set("phrase", checks[i].phrase);
        if (!checks[i].reason.empty()) o.Set("reason", checks[i].reason);
        Napi::Array spellings = Napi::Array::New(env, checks[i].spellings.size());
        for (size_t k = 0; k < checks[i].spellings.size(); ++k) spellings.Set(uint32_t(k), to_js(env, checks[i].spellings[k]));
        o.Set("spellings", spellings);
        o.Set("exact", checks[i].exact);
        out.Set(uint32_t(i), o);
    }
    return out;
}

Napi::Value AddonModel::Transcribe(const Napi::CallbackInfo & info) {
    if (!model_) throw make_error(info.Env(), "BAD_ARGUMENT", "this model was disposed");
    return start_transcription(info, model_, nullptr, {jobs_});
}

Napi::Value AddonModel::CreateState(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!model_) throw make_error(env, "BAD_ARGUMENT", "this model was disposed");
    parakeet::StateParams params = model_->default_state_params();
    if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull()) {
        if (!info[0].IsObject()) throw_bad_argument(env, "createState(options?): options must be an object");
        Napi::Object o = info[0].As<Napi::Object>();
        const double threads = optional_number(o, "threads", params.n_threads);
        if (!(threads >= 0 && threads <= 1024) || threads != double(int(threads))) throw_bad_argument(env, "threads must be an integer 0..1024");
        params.n_threads = int(threads);
        params.always_schedule = optional_bool(o, "alwaysSchedule", params.always_schedule);
        params.adaptive_threads = optional_bool(o, "adaptiveThreads", params.adaptive_threads);
    }
    std::shared_ptr<parakeet::State> state;
    try {
        // Backend objects and a thread pool only (milliseconds): the weights are the model's.
        state = model_->create_state(params);
    } catch (const parakeet::Error & e) {
        throw make_error(env, e);
    }
    Napi::Object js = addon_state(env).model_state_ctor.New({});
    AddonModelState::Unwrap(js)->attach(model_, std::move(state), jobs_);
    return js;
}

Napi::Value AddonModel::Dispose(const Napi::CallbackInfo & info) {
    jobs_->abort_all();  // this model's and its states' jobs in flight end with ABORTED
    model_.reset();      // freed now, or by the last worker holding it
    info_cache_.Reset();
    return info.Env().Undefined();
}

Napi::Value AddonModel::Disposed(const Napi::CallbackInfo & info) { return Napi::Boolean::New(info.Env(), !model_); }

}  // namespace addon
