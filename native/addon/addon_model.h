// The JS `Model` class: a loaded engine model. Loading and transcription run
// on worker threads and return Promises; errors carry a stable `.code`.
// `transcribe` runs on the model's default state; `createState` makes more
// (addon_model_state.h) for transcriptions that run in parallel.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "addon_transcribe.h"
#include "parakeet/parakeet.h"

namespace addon {

class AddonModel : public Napi::ObjectWrap<AddonModel> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonModel(const Napi::CallbackInfo & info);

    /** loadModel(path, options?, onProgress?) -> Promise<Model> */
    static Napi::Value Load(const Napi::CallbackInfo & info);

    void attach(std::shared_ptr<parakeet::Model> model);

private:
    Napi::Value Info(const Napi::CallbackInfo & info);
    Napi::Value SentencePieceModel(const Napi::CallbackInfo & info);
    Napi::Value CheckVocabulary(const Napi::CallbackInfo & info);
    Napi::Value Transcribe(const Napi::CallbackInfo & info);
    /** createState(options?) -> ModelState (synchronous: backend objects only, no weights). */
    Napi::Value CreateState(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    Napi::Value Disposed(const Napi::CallbackInfo & info);

    std::shared_ptr<parakeet::Model> model_;
    Napi::ObjectReference info_cache_;
    // Shared with this model's states and the workers, which remove themselves.
    std::shared_ptr<JobRegistry> jobs_ = std::make_shared<JobRegistry>();
};

}  // namespace addon
