#include "addon_progress.h"

namespace addon {

ProgressSink::ProgressSink(Napi::Env env, Napi::Value callback, const char * name) {
    if (!callback.IsFunction()) return;
    callback_ = Napi::Persistent(callback.As<Napi::Function>());
    tsfn_ = Napi::ThreadSafeFunction::New(env, callback.As<Napi::Function>(), name, 0, 1);
    tsfn_.Unref(env);  // progress alone never keeps the process alive
    active_ = true;
}

ProgressSink::~ProgressSink() = default;

void ProgressSink::report(float fraction) {
    if (!active_ || fraction >= 1.0f) return;  // 1.0 is delivered by finish()
    const int percent = int(fraction * 100.0f);
    int last = last_percent_.load();
    if (percent <= last) return;
    if (!last_percent_.compare_exchange_strong(last, percent)) return;
    const double value = double(fraction);
    std::shared_ptr<std::atomic<bool>> finished = finished_;
    tsfn_.NonBlockingCall([value, finished](Napi::Env env, Napi::Function fn) {
        if (finished->load()) return;  // arrived after the work settled
        try {
            fn.Call({Napi::Number::New(env, value)});
        } catch (const Napi::Error &) {
            // A throwing progress callback must not fail the work itself.
        }
    });
}

void ProgressSink::finish(Napi::Env env, bool success) {
    if (!active_) return;
    active_ = false;
    finished_->store(true);
    if (success) {
        try {
            callback_.Value().Call({Napi::Number::New(env, 1.0)});
        } catch (const Napi::Error &) {}
    }
    callback_.Reset();
    tsfn_.Release();
}

}  // namespace addon
