#include "log.h"

#include <cstdio>
#include <mutex>

#include "ggml.h"

namespace parakeet {
namespace {

std::mutex g_mutex;
LogCallback g_callback;
// ggml logs per thread; a capture is per thread too (the loading thread).
thread_local std::string * t_capture = nullptr;

void ggml_log_hook(enum ggml_log_level level, const char * text, void *) {
    if (text == nullptr) return;
    std::string line(text);
    if (t_capture != nullptr && (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN)) {
        t_capture->append(line);
    }
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.empty()) return;
    LogLevel ours = LogLevel::Debug;
    switch (level) {
        case GGML_LOG_LEVEL_ERROR: ours = LogLevel::Error; break;
        case GGML_LOG_LEVEL_WARN: ours = LogLevel::Warn; break;
        case GGML_LOG_LEVEL_INFO: ours = LogLevel::Info; break;
        default: ours = LogLevel::Debug; break;
    }
    log_line(ours, "ggml: " + line);
}

}  // namespace

void set_log_callback(LogCallback callback) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_callback = std::move(callback);
}

void log_line(LogLevel level, const std::string & message) {
    LogCallback callback;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        callback = g_callback;
    }
    if (callback) {
        callback(level, message);
        return;
    }
    if (level == LogLevel::Warn || level == LogLevel::Error) {
        std::fprintf(stderr, "[parakeet] %s\n", message.c_str());
    }
}

void install_ggml_log_hook() {
    static std::once_flag once;
    std::call_once(once, [] { ggml_log_set(ggml_log_hook, nullptr); });
}

GgmlErrorCapture::GgmlErrorCapture() {
    install_ggml_log_hook();
    t_capture = new std::string();
}

GgmlErrorCapture::~GgmlErrorCapture() {
    delete t_capture;
    t_capture = nullptr;
}

std::string GgmlErrorCapture::text() const {
    std::string out = t_capture ? *t_capture : std::string();
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

}  // namespace parakeet
