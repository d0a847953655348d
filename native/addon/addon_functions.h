#pragma once

#include <napi.h>

#include <functional>

namespace addon {

Napi::Value ListDevices(const Napi::CallbackInfo & info);
Napi::Value SelectDevice(const Napi::CallbackInfo & info);
Napi::Value BuildInfo(const Napi::CallbackInfo & info);
Napi::Value LoadBackends(const Napi::CallbackInfo & info);
Napi::Value Quantize(const Napi::CallbackInfo & info);
Napi::Value SetLogHandler(const Napi::CallbackInfo & info);
void CleanupLogHandler();
Napi::Value BenchMatmul(const Napi::CallbackInfo & info);

}  // namespace addon
