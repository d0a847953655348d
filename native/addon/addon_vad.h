// The JS `VadModel` and `VadStream` classes: Silero VAD weights (parakeet/vad.h) and one audio source's
// streaming state. Loading and chunk processing run on worker threads and return Promises; a stream's
// calls hold the stream (shared), so disposing it while a call runs is safe.
#pragma once

#include <napi.h>

#include <memory>

#include "parakeet/vad.h"

namespace addon {

class AddonVadModel : public Napi::ObjectWrap<AddonVadModel> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonVadModel(const Napi::CallbackInfo & info);

    /** loadVadModel(path) -> Promise<VadModel> */
    static Napi::Value Load(const Napi::CallbackInfo & info);
    void attach(std::shared_ptr<const parakeet::VadModel> model) { model_ = std::move(model); }

private:
    Napi::Value Info(const Napi::CallbackInfo & info);
    /** createStream(sampleRate) -> VadStream (synchronous: a small graph, no weights). */
    Napi::Value CreateStream(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);

    std::shared_ptr<const parakeet::VadModel> model_;
};

class AddonVadStream : public Napi::ObjectWrap<AddonVadStream> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonVadStream(const Napi::CallbackInfo & info);
    void attach(std::shared_ptr<parakeet::VadStream> stream) { stream_ = std::move(stream); }

private:
    /** process(Float32Array) -> Promise<Float32Array>: one probability per completed chunk. */
    Napi::Value Process(const Napi::CallbackInfo & info);
    /** flush() -> Promise<Float32Array>: the zero-padded remainder's probability (empty when none). */
    Napi::Value Flush(const Napi::CallbackInfo & info);
    Napi::Value Reset(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    Napi::Value SampleRate(const Napi::CallbackInfo & info);
    Napi::Value ChunkSamples(const Napi::CallbackInfo & info);
    std::shared_ptr<parakeet::VadStream> live(Napi::Env env) const;
    /** Marks a call in flight (BUSY when one is); the worker clears it on the JS thread. */
    std::shared_ptr<bool> claim(Napi::Env env);

    std::shared_ptr<parakeet::VadStream> stream_;
    std::shared_ptr<bool> in_flight_ = std::make_shared<bool>(false);
};

}  // namespace addon
