// transcribe(pcm, options?, onProgress?) for both JS classes that run it: a
// Model (on its default state) and a ModelState. Options are read and the PCM
// copied on the JS thread; the engine runs on a worker thread.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "parakeet/parakeet.h"

namespace addon {

/**
 * Abort flags of the transcriptions in flight on one model and all its states (a BUSY call registers
 * and leaves too). Model.dispose() sets every one, and states refuse new calls once `disposed`.
 */
struct JobRegistry {
    std::mutex mutex;
    std::vector<std::shared_ptr<std::atomic<bool>>> flags;
    bool disposed = false;

    void abort_all();
};

/**
 * Starts a transcription: on `state` when given, else on the model's default state. Its abort flag joins
 * every registry in `registries` (the model's, and the state's), so disposing either aborts it. The
 * worker holds `model` and `state`, so a disposed model or state is freed when its last call ends.
 */
Napi::Value start_transcription(const Napi::CallbackInfo & info, std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state,
                                const std::vector<std::shared_ptr<JobRegistry>> & registries);

}  // namespace addon
