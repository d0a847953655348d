// AbortFlag: a JS-visible cancellation flag that native workers poll
// (the engine passes it to ggml's abort callback and its decoding loops).
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>

namespace addon {

class AddonAbortFlag : public Napi::ObjectWrap<AddonAbortFlag> {
public:
    static Napi::Function Define(Napi::Env env);
    explicit AddonAbortFlag(const Napi::CallbackInfo & info);
    std::shared_ptr<std::atomic<bool>> flag() const { return flag_; }
    /** The flag of an AbortFlag passed from JS, or a fresh unset one. */
    static std::shared_ptr<std::atomic<bool>> from_value(Napi::Value value);

private:
    Napi::Value Abort(const Napi::CallbackInfo & info);
    Napi::Value Aborted(const Napi::CallbackInfo & info);
    std::shared_ptr<std::atomic<bool>> flag_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace addon
