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
    /**
     * On the JS thread when the work is done: drops reports still queued, calls
     * the callback with 1 on success (before the promise settles, so it is
     * always the last report), and releases it.
     */
    void finish(Napi::Env env, bool success);

private:
    Napi::ThreadSafeFunction tsfn_;
    Napi::FunctionReference callback_;
    bool active_ = false;
    std::shared_ptr<std::atomic<bool>> finished_ = std::make_shared<std::atomic<bool>>(false);
    std::atomic<int> last_percent_{-1};
};

}  // namespace addon
