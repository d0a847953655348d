// Per-environment addon state (constructors), so the addon is safe in worker
// threads and in several Electron contexts.
#pragma once

#include <napi.h>

namespace addon {

struct AddonState {
    Napi::FunctionReference abort_flag_ctor;
    Napi::FunctionReference model_ctor;
    Napi::FunctionReference model_state_ctor;
    Napi::FunctionReference stream_ctor;
    Napi::FunctionReference vad_model_ctor;
    Napi::FunctionReference vad_stream_ctor;
    Napi::FunctionReference diarizer_ctor;
    Napi::FunctionReference diarizer_stream_ctor;
};

AddonState & addon_state(Napi::Env env);

}  // namespace addon
