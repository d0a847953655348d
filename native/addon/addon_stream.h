// The JS `Stream` class: one cache-aware stream on a model state (ModelState.createStream). feed(pcm)
// and end() run on a worker thread and resolve to the chunks they completed; a state computes one
// thing at a time (BUSY otherwise), which native/index.ts keeps by queueing a stream's calls.
#pragma once

#include <napi.h>

#include <memory>

#include "parakeet/parakeet.h"

namespace addon {

class AddonStream : public Napi::ObjectWrap<AddonStream> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonStream(const Napi::CallbackInfo & info);

    /** Makes the JS object for a stream on `state` (ModelState.createStream(options)). */
    static Napi::Value Create(Napi::Env env, std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state, Napi::Value options);

private:
    Napi::Value Info(const Napi::CallbackInfo & info);
    Napi::Value Feed(const Napi::CallbackInfo & info);
    Napi::Value End(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);

    // The worker of a call in flight holds these too, so a disposed stream is freed when its call ends.
    std::shared_ptr<parakeet::Model> model_;
    std::shared_ptr<parakeet::State> state_;
    std::shared_ptr<parakeet::Stream> stream_;
};

}  // namespace addon
