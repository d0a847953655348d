// Progress from a worker thread to an optional JS callback (throttled).
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>

namespace addon {

class ProgressSink {
public:
    ProgressSink(Napi::Env env, Napi::Value callback, const char * name);
    ~ProgressSink();
    ProgressSink(const ProgressSink &) = delete;
    ProgressSink & operator=(const ProgressSink &) = delete;

    /** Thread-safe; forwards at most every 1% (and always 1.0). */
    void report(float fraction);
    /** Releases the callback; call once on the JS thread when the work is done. */
    void release();

private:
    Napi::ThreadSafeFunction tsfn_;
    bool active_ = false;
    std::atomic<int> last_percent_{-1};
};

}  // namespace addon
