// The JS `Diarizer` and `DiarizerStream` classes: a Sortformer diarizer (parakeet/diarizer.h) and one
// live audio source's speaker cache. Loading and computing run on worker threads and return Promises.
#pragma once

#include <napi.h>

#include <memory>

#include "parakeet/diarizer.h"

namespace addon {

class AddonDiarizer : public Napi::ObjectWrap<AddonDiarizer> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonDiarizer(const Napi::CallbackInfo & info);

    /** loadDiarizer(path, {device?, threads?}) -> Promise<Diarizer> */
    static Napi::Value Load(const Napi::CallbackInfo & info);
    void attach(std::shared_ptr<parakeet::DiarizerModel> model) { model_ = std::move(model); }

private:
    Napi::Value Info(const Napi::CallbackInfo & info);
    /** diarize(Float32Array, streaming) -> Promise<{frameSec, nSpeakers, frames, activities}> */
    Napi::Value Diarize(const Napi::CallbackInfo & info);
    Napi::Value CreateStream(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);

    std::shared_ptr<parakeet::DiarizerModel> model_;
};

class AddonDiarizerStream : public Napi::ObjectWrap<AddonDiarizerStream> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonDiarizerStream(const Napi::CallbackInfo & info);
    void attach(std::shared_ptr<parakeet::DiarizerStream> stream) { stream_ = std::move(stream); }

private:
    /** push(Float32Array) -> Promise<activities of the frames now final> */
    Napi::Value Push(const Napi::CallbackInfo & info);
    /** finish() -> Promise<activities of the remaining frames> */
    Napi::Value Finish(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);

    std::shared_ptr<parakeet::DiarizerStream> stream_;
    std::shared_ptr<bool> in_flight_ = std::make_shared<bool>(false);
};

}  // namespace addon
