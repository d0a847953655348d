// Engine errors -> JavaScript Errors with a stable `.code`.
#pragma once

#include <napi.h>

#include <string>

#include "parakeet/parakeet.h"

namespace addon {

inline Napi::Error make_error(Napi::Env env, const char * code, const std::string & message) {
    Napi::Error error = Napi::Error::New(env, message);
    error.Set("code", Napi::String::New(env, code));
    return error;
}

inline Napi::Error make_error(Napi::Env env, const parakeet::Error & e) { return make_error(env, parakeet::error_code_name(e.code()), e.what()); }

/** Captured on a worker thread, turned into a JS error on the main thread. */
struct PendingError {
    std::string code;
    std::string message;
    bool set = false;

    void capture_current() {
        try {
            throw;
        } catch (const parakeet::Error & e) {
            code = parakeet::error_code_name(e.code());
            message = e.what();
        } catch (const std::bad_alloc &) {
            code = "OUT_OF_MEMORY";
            message = "out of memory";
        } catch (const std::exception & e) {
            code = "INTERNAL";
            message = std::string("internal error: ") + e.what();
        } catch (...) {
            code = "INTERNAL";
            message = "internal error";
        }
        set = true;
    }
};

/** Argument validation failure on the JS thread. */
[[noreturn]] inline void throw_bad_argument(Napi::Env env, const std::string & message) { throw make_error(env, "BAD_ARGUMENT", message); }

}  // namespace addon
