#include "addon_model_state.h"

#include "addon_errors.h"
#include "addon_stream.h"

namespace addon {

Napi::Function AddonModelState::Define(Napi::Env env) {
    return DefineClass(env, "ModelState",
                       {
                               InstanceMethod<&AddonModelState::Info>("info"),
                               InstanceMethod<&AddonModelState::Transcribe>("transcribe"),
                               InstanceMethod<&AddonModelState::CreateStream>("createStream"),
                               InstanceMethod<&AddonModelState::Dispose>("dispose"),
                               InstanceAccessor<&AddonModelState::Disposed>("disposed"),
                       });
}

AddonModelState::AddonModelState(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonModelState>(info) {}

void AddonModelState::attach(std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state, std::shared_ptr<JobRegistry> jobs) {
    model_ = std::move(model);
    state_ = std::move(state);
    model_jobs_ = std::move(jobs);
}

Napi::Value AddonModelState::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!state_) throw make_error(env, "BAD_ARGUMENT", "this model state was disposed");
    const parakeet::StateInfo & s = state_->info();
    Napi::Object out = Napi::Object::New(env);
    out.Set("device", s.device);
    out.Set("threads", s.n_threads);
    out.Set("scheduled", s.scheduled);
    out.Set("adaptiveThreads", s.adaptive_threads);
    return out;
}

Napi::Value AddonModelState::Transcribe(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!state_) throw make_error(env, "BAD_ARGUMENT", "this model state was disposed");
    // Registered with the model's jobs too, so disposing the model aborts this call as well.
    return start_transcription(info, model_, state_, {jobs_, model_jobs_});
}

Napi::Value AddonModelState::CreateStream(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!state_) throw make_error(env, "BAD_ARGUMENT", "this model state was disposed");
    return AddonStream::Create(env, model_, state_, info.Length() > 0 ? info[0] : env.Undefined());
}

Napi::Value AddonModelState::Dispose(const Napi::CallbackInfo & info) {
    jobs_->abort_all();  // this state's calls in flight end with ABORTED
    state_.reset();      // freed now, or by the worker still holding it (after its call ends)
    model_.reset();
    return info.Env().Undefined();
}

Napi::Value AddonModelState::Disposed(const Napi::CallbackInfo & info) { return Napi::Boolean::New(info.Env(), !state_); }

}  // namespace addon
