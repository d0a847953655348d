// Module-level functions: devices, build info, quantize, logging.
#include <mutex>
#include <vector>

#include "addon_convert.h"
#include "addon_errors.h"
#include "addon_functions.h"
#include "parakeet/bench.h"

namespace addon {
namespace {

/** Runs `work` on a worker thread; resolves with `finish()` or rejects with the engine's code. */
class PromiseWorker : public Napi::AsyncWorker {
public:
    using Work = std::function<void()>;
    using Finish = std::function<Napi::Value(Napi::Env)>;
    PromiseWorker(Napi::Env env, const char * name, Work work, Finish finish)
            : Napi::AsyncWorker(env, name),
              deferred_(Napi::Promise::Deferred::New(env)),
              work_(std::move(work)),
              finish_(std::move(finish)) {}
    Napi::Promise promise() { return deferred_.Promise(); }
    void Execute() override {
        try {
            work_();
        } catch (...) {
            error_.capture_current();
        }
    }
    void OnOK() override {
        if (error_.set)
            deferred_.Reject(make_error(Env(), error_.code.c_str(), error_.message).Value());
        else
            deferred_.Resolve(finish_(Env()));
    }
    void OnError(const Napi::Error & e) override { deferred_.Reject(e.Value()); }

private:
    Napi::Promise::Deferred deferred_;
    Work work_;
    Finish finish_;
    PendingError error_;
};

std::mutex g_log_mutex;
Napi::ThreadSafeFunction g_log_tsfn;
bool g_log_active = false;

const char * level_name(parakeet::LogLevel level) {
    switch (level) {
        case parakeet::LogLevel::Debug: return "debug";
        case parakeet::LogLevel::Info: return "info";
        case parakeet::LogLevel::Warn: return "warn";
        case parakeet::LogLevel::Error: return "error";
    }
    return "info";
}

void release_log_handler() {
    parakeet::set_log_callback(nullptr);
    std::lock_guard<std::mutex> lock(g_log_mutex);
    if (g_log_active) {
        g_log_active = false;
        g_log_tsfn.Release();
    }
}

}  // namespace

Napi::Value ListDevices(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    try {
        const std::vector<parakeet::DeviceInfo> devices = parakeet::list_devices();
        Napi::Array out = Napi::Array::New(env, devices.size());
        for (size_t i = 0; i < devices.size(); ++i) out.Set(uint32_t(i), to_js(env, devices[i]));
        return out;
    } catch (const parakeet::Error & e) {
        throw make_error(env, e);
    }
}

Napi::Value SelectDevice(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    std::string name;
    if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull()) {
        if (!info[0].IsString()) throw_bad_argument(env, "selectDevice(name?): name must be a string");
        name = info[0].As<Napi::String>().Utf8Value();
    }
    try {
        return to_js(env, parakeet::select_device(name));
    } catch (const parakeet::Error & e) {
        throw make_error(env, e);
    }
}

Napi::Value BuildInfo(const Napi::CallbackInfo & info) { return to_js(info.Env(), parakeet::build_info()); }

Napi::Value LoadBackends(const Napi::CallbackInfo & info) {
    std::string dir;
    if (info.Length() > 0 && info[0].IsString()) dir = info[0].As<Napi::String>().Utf8Value();
    parakeet::load_backends(dir);
    return info.Env().Undefined();
}

Napi::Value Quantize(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsString()) {
        throw_bad_argument(env, "quantize(inPath, outPath, type): three strings expected");
    }
    const std::string in = info[0].As<Napi::String>().Utf8Value();
    const std::string out = info[1].As<Napi::String>().Utf8Value();
    const std::string type = info[2].As<Napi::String>().Utf8Value();
    auto * worker = new PromiseWorker(
            env, "parakeet:quantize", [in, out, type] { parakeet::quantize_model_file(in, out, type); }, [](Napi::Env e) { return e.Undefined(); });
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value SetLogHandler(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    release_log_handler();
    if (info.Length() == 0 || !info[0].IsFunction()) return env.Undefined();
    std::lock_guard<std::mutex> lock(g_log_mutex);
    g_log_tsfn = Napi::ThreadSafeFunction::New(env, info[0].As<Napi::Function>(), "parakeet:log", 256, 1);
    g_log_tsfn.Unref(env);
    g_log_active = true;
    Napi::ThreadSafeFunction tsfn = g_log_tsfn;
    parakeet::set_log_callback([tsfn](parakeet::LogLevel level, const std::string & message) mutable {
        const std::string lvl = level_name(level);
        // Under the lock: the JS thread may release this function (a new handler,
        // or the environment's cleanup) while a worker thread logs.
        std::lock_guard<std::mutex> guard(g_log_mutex);
        if (!g_log_active) return;
        tsfn.NonBlockingCall([lvl, message](Napi::Env e, Napi::Function fn) {
            try {
                fn.Call({Napi::String::New(e, lvl), Napi::String::New(e, message)});
            } catch (const Napi::Error &) {}
        });
    });
    return env.Undefined();
}

void CleanupLogHandler() { release_log_handler(); }

Napi::Value BenchMatmul(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject()) throw_bad_argument(env, "benchMatmul({type, out, in, tokens, threads, iterations, repack})");
    Napi::Object o = info[0].As<Napi::Object>();
    const std::string type = optional_string(o, "type", "f32");
    auto whole = [&](const char * key, double fallback, double hi) {
        const double v = optional_number(o, key, fallback);
        if (!(v >= 1 && v <= hi) || v != double(int(v)))
            throw_bad_argument(env, std::string("benchMatmul: ") + key + " must be an integer 1.." + std::to_string(int(hi)));
        return int(v);
    };
    const int out_features = whole("out", 512, 65536);
    const int in_features = whole("in", 512, 65536);
    const int tokens = whole("tokens", 128, 65536);
    const int threads = whole("threads", 1, 1024);
    const int iterations = whole("iterations", 10, 100000);
    const bool repack = optional_bool(o, "repack", false);
    auto result = std::make_shared<parakeet::MatmulBenchResult>();
    auto * worker = new PromiseWorker(
            env, "parakeet:bench-matmul",
            [=] { *result = parakeet::benchmark_matmul(type, out_features, in_features, tokens, threads, iterations, repack); },
            [result](Napi::Env e) -> Napi::Value {
                Napi::Object r = Napi::Object::New(e);
                r.Set("secondsPerCall", result->seconds_per_call);
                r.Set("gflops", result->gflops);
                r.Set("threadCpuSecondsPerCall", result->thread_cpu_seconds_per_call);
                return r;
            });
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

}  // namespace addon
