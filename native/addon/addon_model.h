// The JS `Model` class: a loaded engine model. Loading and transcription run
// on worker threads and return Promises; errors carry a stable `.code`.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>

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
    Napi::Value Transcribe(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    Napi::Value Disposed(const Napi::CallbackInfo & info);

    std::shared_ptr<parakeet::Model> model_;
    Napi::ObjectReference info_cache_;
    std::mutex jobs_mutex_;
    std::shared_ptr<std::atomic<bool>> running_abort_;  // the job in flight, aborted by dispose()
};

}  // namespace addon
