#include "addon_transcribe.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "addon_abort_flag.h"
#include "addon_convert.h"
#include "addon_errors.h"
#include "addon_progress.h"

namespace addon {

void JobRegistry::abort_all() {
    std::lock_guard<std::mutex> lock(mutex);
    disposed = true;
    for (const auto & flag : flags) flag->store(true);  // jobs in flight end with ABORTED
}

namespace {

class TranscribeWorker : public Napi::AsyncWorker {
public:
    TranscribeWorker(Napi::Env env, std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state, std::vector<float> pcm,
                     parakeet::TranscribeParams params, std::shared_ptr<std::atomic<bool>> abort, Napi::Value on_progress,
                     std::function<void()> on_settled)
            : Napi::AsyncWorker(env, "parakeet:transcribe"),
              deferred_(Napi::Promise::Deferred::New(env)),
              model_(std::move(model)),
              state_(std::move(state)),
              pcm_(std::move(pcm)),
              params_(std::move(params)),
              abort_(std::move(abort)),
              progress_(env, on_progress, "parakeet:transcribe-progress"),
              on_settled_(std::move(on_settled)) {
        params_.abort = abort_.get();
        params_.on_progress = [this](float f) { progress_.report(f); };
    }

    Napi::Promise promise() { return deferred_.Promise(); }

    void Execute() override {
        try {
            result_ = state_ ? state_->transcribe(pcm_.data(), pcm_.size(), params_) : model_->transcribe(pcm_.data(), pcm_.size(), params_);
        } catch (...) {
            error_.capture_current();
        }
        pcm_ = std::vector<float>();
        state_.reset();  // a disposed state or model is freed here, off the JS thread
        model_.reset();
    }

    void OnOK() override {
        Napi::Env env = Env();
        on_settled_();
        progress_.finish(env, !error_.set);
        if (error_.set)
            deferred_.Reject(make_error(env, error_.code.c_str(), error_.message).Value());
        else
            deferred_.Resolve(to_js(env, result_));
    }

    void OnError(const Napi::Error & e) override {
        on_settled_();
        progress_.finish(Env(), false);
        deferred_.Reject(e.Value());
    }

private:
    Napi::Promise::Deferred deferred_;
    std::shared_ptr<parakeet::Model> model_;
    std::shared_ptr<parakeet::State> state_;
    std::vector<float> pcm_;
    parakeet::TranscribeParams params_;
    std::shared_ptr<std::atomic<bool>> abort_;
    ProgressSink progress_;
    parakeet::TranscribeResult result_;
    PendingError error_;
    std::function<void()> on_settled_;
};

parakeet::DecoderKind parse_decoder(Napi::Env env, const std::string & name) {
    if (name == "auto") return parakeet::DecoderKind::Auto;
    if (name == "ctc") return parakeet::DecoderKind::Ctc;
    if (name == "rnnt") return parakeet::DecoderKind::Rnnt;
    if (name == "tdt") return parakeet::DecoderKind::Tdt;
    throw_bad_argument(env, "decoder must be 'auto', 'tdt', 'rnnt' or 'ctc' (got '" + name + "')");
}

}  // namespace

Napi::Value start_transcription(const Napi::CallbackInfo & info, std::shared_ptr<parakeet::Model> model, std::shared_ptr<parakeet::State> state,
                                const std::vector<std::shared_ptr<JobRegistry>> & registries) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
        throw_bad_argument(env, "transcribe(pcm, options?, onProgress?): pcm must be a Float32Array");
    }
    Napi::Float32Array input = info[0].As<Napi::Float32Array>();
    parakeet::TranscribeParams params;
    const int model_rate = model->info().sample_rate;
    std::shared_ptr<std::atomic<bool>> abort = std::make_shared<std::atomic<bool>>(false);
    if (info.Length() > 1 && !info[1].IsUndefined() && !info[1].IsNull()) {
        if (!info[1].IsObject()) throw_bad_argument(env, "transcribe: options must be an object");
        Napi::Object o = info[1].As<Napi::Object>();
        // The rate the caller says the PCM is at: a check, not a conversion (the engine does not resample).
        const double rate = optional_number(o, "sampleRate", model_rate);
        if (!(rate >= 1 && rate <= 1e7) || rate != double(int(rate))) {
            throw make_error(env, "BAD_AUDIO", "sampleRate must be a positive integer number of Hz");
        }
        if (int(rate) != model_rate) {
            throw make_error(env, "BAD_AUDIO",
                             "the audio is at " + std::to_string(int(rate)) + " Hz but the model takes mono PCM at " + std::to_string(model_rate) +
                                     " Hz; resample it first (app/shared/resample.ts)");
        }
        if (o.Has("channels") && !(o.Get("channels").IsNumber() && o.Get("channels").As<Napi::Number>().DoubleValue() == 1.0)) {
            throw make_error(env, "BAD_AUDIO",
                             "the model takes mono PCM (channels: 1); average the channels first (app/shared/wav.ts does while decoding)");
        }
        params.decoder = parse_decoder(env, optional_string(o, "decoder", "auto"));
        const std::string rule = optional_string(o, "tdtRule", "greedy_batch");
        if (rule == "greedy_batch")
            params.tdt_rule = parakeet::TdtRule::GreedyBatch;
        else if (rule == "greedy")
            params.tdt_rule = parakeet::TdtRule::Greedy;
        else
            throw_bad_argument(env, "tdtRule must be 'greedy_batch' or 'greedy'");
        const double max_symbols = optional_number(o, "maxSymbols", 0);
        if (!(max_symbols >= 0 && max_symbols <= 1000) || max_symbols != double(int(max_symbols))) {
            throw_bad_argument(env, "maxSymbols must be an integer 0..1000");
        }
        params.max_symbols = int(max_symbols);
        params.max_window_sec = optional_number(o, "maxWindowSec", params.max_window_sec);
        if (!(params.max_window_sec >= 1.0 && params.max_window_sec <= 3600.0)) throw_bad_argument(env, "maxWindowSec must be 1..3600");
        params.windows = sample_ranges_from_js(env, o.Get("windows"), "windows");
        params.capture_mel = optional_bool(o, "captureMel", false);
        params.capture_encoder = optional_bool(o, "captureEncoder", false);
        params.capture_logits = optional_bool(o, "captureLogits", false);
        params.profile = optional_bool(o, "profile", false);
        const double max_threads = optional_number(o, "maxThreads", 0);
        if (!(max_threads >= 0 && max_threads <= 1024) || max_threads != double(int(max_threads))) {
            throw_bad_argument(env, "maxThreads must be an integer 0..1024 (0 = the state's own count)");
        }
        params.max_threads = int(max_threads);
        params.language = optional_string(o, "language", "");
        params.vocabulary = vocabulary_from_js(env, o.Get("vocabulary"));
        params.never_boost = strings_from_js(env, o.Get("neverBoost"), "neverBoost");
        params.non_speech = ranges_from_js(env, o.Get("nonSpeech"), "nonSpeech");
        abort = AddonAbortFlag::from_value(o.Get("abortFlag"));
    }
    if (input.ElementLength() == 0) throw make_error(env, "BAD_AUDIO", "the audio is empty (0 samples); record or choose audio with sound in it");
    // Copied before the worker runs: JS may reuse or detach its buffer meanwhile.
    std::vector<float> pcm(input.ElementLength());
    std::memcpy(pcm.data(), input.Data(), pcm.size() * sizeof(float));
    for (const auto & jobs : registries) {
        std::lock_guard<std::mutex> lock(jobs->mutex);
        if (jobs->disposed) throw make_error(env, "BAD_ARGUMENT", "this model or model state was disposed");
    }
    for (const auto & jobs : registries) {
        std::lock_guard<std::mutex> lock(jobs->mutex);
        jobs->flags.push_back(abort);
    }
    auto settled = [registries, abort] {
        for (const auto & jobs : registries) {
            std::lock_guard<std::mutex> lock(jobs->mutex);
            jobs->flags.erase(std::remove(jobs->flags.begin(), jobs->flags.end(), abort), jobs->flags.end());
        }
    };
    auto * worker = new TranscribeWorker(env, std::move(model), std::move(state), std::move(pcm), std::move(params), abort,
                                         info.Length() > 2 ? info[2] : env.Undefined(), settled);
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

}  // namespace addon
