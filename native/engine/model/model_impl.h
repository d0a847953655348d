// The insides of parakeet::Model and parakeet::State (parakeet.h): which part
// of a loaded model is shared read-only, and which part belongs to one state.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "adaptive_threads.h"
#include "compute_backend.h"
#include "encoder.h"
#include "gguf_file.h"
#include "hparams.h"
#include "model_weights.h"
#include "parakeet/parakeet.h"
#include "phrase_graph.h"
#include "sentencepiece_model.h"
#include "tokenizer.h"
#include "transducer.h"

namespace parakeet {

/** Read-only once load() returns; every state reads it without locks. */
struct Model::Impl {
    ModelInfo info;
    Hparams hp;
    StateParams state_defaults;
    std::shared_ptr<const GgufFile> file;  // shared with other models of the same file (shared_gguf.h)
    // The device the weights were placed for. Its backend objects are lent to the default state only (the
    // one Model::transcribe uses), so a model used the old way costs no second thread pool.
    std::unique_ptr<ComputeBackend> backend;
    std::unique_ptr<ModelWeights> weights;
    std::unique_ptr<Detokenizer> detokenizer;
    std::string sentencepiece_model;                          // embedded in the file (model_dialect.h), "" when none
    std::shared_ptr<const SentencePieceModel> sentencepiece;  // that model parsed (exact phrase tokenization); null when none

    std::mutex default_state_lock;
    std::unique_ptr<State> default_state;  // declared last: destroyed before the backend it borrows
};

/** One state: its own compute backend (or the model's, for the default state) and decoder scratch. */
struct State::Impl {
    // Held by states from create_state(); empty for the model's own default state (which the model owns).
    std::shared_ptr<const Model> keep_alive;
    const Model * model = nullptr;
    const Model::Impl * m = nullptr;
    std::unique_ptr<ComputeBackend> owned_backend;
    ComputeBackend * backend = nullptr;
    std::unique_ptr<Encoder> encoder;
    std::unique_ptr<Transducer> transducer;     // transducer models; holds the prediction network's scratch
    std::unique_ptr<AdaptiveThreads> adaptive;  // StateParams::adaptive_threads on a multi-threaded CPU
    VocabularyCache vocabulary;                 // the last TranscribeParams::vocabulary, compiled
    StateInfo info;
    std::atomic<bool> busy{false};
};

/** The prompt index of `language` ("" = "auto") for a prompt model, −1 without a prompt; Error(BadArgument) names the locales. */
int resolve_prompt(const Hparams & hp, const std::string & language);

/** Builds a state's parts on `backend` (the model's, or one made for the state). */
std::unique_ptr<State::Impl> make_state_impl(const Model & model, const Model::Impl & m, ComputeBackend & backend, const StateParams & params);

}  // namespace parakeet
