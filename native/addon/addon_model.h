// The JS `Model` class: a loaded engine model. Loading and transcription run
// on worker threads and return Promises; errors carry a stable `.code`.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

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
    // Abort flags of the jobs in flight (a BUSY call registers and leaves too),
    // all set by dispose(). Shared with the workers, which remove themselves.
    struct Jobs {
        std::mutex mutex;
        std::vector<std::shared_ptr<std::atomic<bool>>> flags;
    };
    std::shared_ptr<Jobs> jobs_ = std::make_shared<Jobs>();
};

}  // namespace addon
