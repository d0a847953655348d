// The JS `ModelState` class: one run state of a loaded model (its own compute
// buffers, thread pool and decoder scratch over the model's weights), made by
// Model.createState(). Transcriptions on different states run concurrently,
// each on its own worker thread; one state runs one at a time (BUSY).
#pragma once

#include <napi.h>

#include <memory>

#include "addon_transcribe.h"
#include "parakeet/parakeet.h"

namespace addon {

class AddonModelState : public Napi::ObjectWrap<AddonModelState> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonModelState(const Napi::CallbackInfo & info);

    void attach(std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state, std::shared_ptr<JobRegistry> jobs);

private:
    Napi::Value Info(const Napi::CallbackInfo & info);
    Napi::Value Transcribe(const Napi::CallbackInfo & info);
    /** createStream(options?) -> Stream on this state (addon_stream.h). */
    Napi::Value CreateStream(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    Napi::Value Disposed(const Napi::CallbackInfo & info);

    std::shared_ptr<parakeet::Model> model_;
    std::shared_ptr<parakeet::State> state_;
    std::shared_ptr<JobRegistry> model_jobs_;                              // the model's: its dispose() reaches this state's jobs
    std::shared_ptr<JobRegistry> jobs_ = std::make_shared<JobRegistry>();  // this state's own
};

}  // namespace addon
