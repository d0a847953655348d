#include "addon_abort_flag.h"

#include "addon_state.h"

namespace addon {

Napi::Function AddonAbortFlag::Define(Napi::Env env) {
    return DefineClass(env, "AbortFlag",
                       {
                               InstanceMethod<&AddonAbortFlag::Abort>("abort"),
                               InstanceAccessor<&AddonAbortFlag::Aborted>("aborted"),
                       });
}

AddonAbortFlag::AddonAbortFlag(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AddonAbortFlag>(info) {}

Napi::Value AddonAbortFlag::Abort(const Napi::CallbackInfo & info) {
    flag_->store(true);
    return info.Env().Undefined();
}

Napi::Value AddonAbortFlag::Aborted(const Napi::CallbackInfo & info) { return Napi::Boolean::New(info.Env(), flag_->load()); }

std::shared_ptr<std::atomic<bool>> AddonAbortFlag::from_value(Napi::Value value) {
    if (value.IsObject()) {
        Napi::Object object = value.As<Napi::Object>();
        if (object.InstanceOf(addon_state(value.Env()).abort_flag_ctor.Value())) {
            return AddonAbortFlag::Unwrap(object)->flag();
        }
    }
    return std::make_shared<std::atomic<bool>>(false);
}

}  // namespace addon
