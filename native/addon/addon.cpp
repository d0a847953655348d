// Node-API entry point of the Parakeet engine addon.
#include <napi.h>

#include "addon_abort_flag.h"
#include "addon_diarizer.h"
#include "addon_functions.h"
#include "addon_model.h"
#include "addon_model_state.h"
#include "addon_state.h"
#include "addon_stream.h"
#include "addon_vad.h"

namespace addon {

AddonState & addon_state(Napi::Env env) { return *env.GetInstanceData<AddonState>(); }

Napi::Object Init(Napi::Env env, Napi::Object exports) {
    auto * state = new AddonState();
    env.SetInstanceData<AddonState>(state);  // deleted by Node at environment teardown
    Napi::Function abort_flag = AddonAbortFlag::Define(env);
    Napi::Function model = AddonModel::Define(env);
    state->abort_flag_ctor = Napi::Persistent(abort_flag);
    state->model_ctor = Napi::Persistent(model);
    state->model_state_ctor = Napi::Persistent(AddonModelState::Define(env));
    state->stream_ctor = Napi::Persistent(AddonStream::Define(env));
    Napi::Function vad_model = AddonVadModel::Define(env);
    state->vad_model_ctor = Napi::Persistent(vad_model);
    state->vad_stream_ctor = Napi::Persistent(AddonVadStream::Define(env));
    Napi::Function diarizer = AddonDiarizer::Define(env);
    state->diarizer_ctor = Napi::Persistent(diarizer);
    state->diarizer_stream_ctor = Napi::Persistent(AddonDiarizerStream::Define(env));
    env.AddCleanupHook([] { CleanupLogHandler(); });

    exports.Set("AbortFlag", abort_flag);
    exports.Set("Model", model);
    exports.Set("loadModel", Napi::Function::New(env, AddonModel::Load, "loadModel"));
    exports.Set("VadModel", vad_model);
    exports.Set("loadVadModel", Napi::Function::New(env, AddonVadModel::Load, "loadVadModel"));
    exports.Set("Diarizer", diarizer);
    exports.Set("loadDiarizer", Napi::Function::New(env, AddonDiarizer::Load, "loadDiarizer"));
    exports.Set("listDevices", Napi::Function::New(env, ListDevices, "listDevices"));
    exports.Set("selectDevice", Napi::Function::New(env, SelectDevice, "selectDevice"));
    exports.Set("buildInfo", Napi::Function::New(env, BuildInfo, "buildInfo"));
    exports.Set("loadBackends", Napi::Function::New(env, LoadBackends, "loadBackends"));
    exports.Set("quantize", Napi::Function::New(env, Quantize, "quantize"));
    exports.Set("benchMatmul", Napi::Function::New(env, BenchMatmul, "benchMatmul"));
    exports.Set("setLogHandler", Napi::Function::New(env, SetLogHandler, "setLogHandler"));
    return exports;
}

}  // namespace addon

static Napi::Object InitParakeet(Napi::Env env, Napi::Object exports) { return addon::Init(env, exports); }

NODE_API_MODULE(parakeet, InitParakeet)
