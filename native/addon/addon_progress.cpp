#include "addon_progress.h"

namespace addon {

ProgressSink::ProgressSink(Napi::Env env, Napi::Value callback, const char * name) {
    if (!callback.IsFunction()) return;
    tsfn_ = Napi::ThreadSafeFunction::New(env, callback.As<Napi::Function>(), name, 0, 1);
    tsfn_.Unref(env);  // progress alone never keeps the process alive
    active_ = true;
}

ProgressSink::~ProgressSink() = default;

void ProgressSink::report(float fraction) {
    if (!active_) return;
    const int percent = fraction >= 1.0f ? 100 : int(fraction * 100.0f);
    int last = last_percent_.load();
    if (percent <= last) return;
    if (!last_percent_.compare_exchange_strong(last, percent)) return;
    const double value = fraction >= 1.0f ? 1.0 : double(fraction);
    tsfn_.NonBlockingCall([value](Napi::Env env, Napi::Function fn) {
        try {
            fn.Call({Napi::Number::New(env, value)});
        } catch (const Napi::Error &) {
            // A throwing progress callback must not fail the work itself.
        }
    });
}

void ProgressSink::release() {
    if (!active_) return;
    active_ = false;
    tsfn_.Release();
}

}  // namespace addon
