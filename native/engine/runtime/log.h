// Engine-internal logging: one sink for our lines and ggml's.
#pragma once

#include <string>

#include "parakeet/parakeet.h"

namespace parakeet {

void log_line(LogLevel level, const std::string & message);

/**
 * While alive, collects ggml's error lines (e.g. gguf parse failures) so the
 * exception we throw can quote them instead of them only reaching stderr.
 */
class GgmlErrorCapture {
public:
    GgmlErrorCapture();
    ~GgmlErrorCapture();
    GgmlErrorCapture(const GgmlErrorCapture &) = delete;
    GgmlErrorCapture & operator=(const GgmlErrorCapture &) = delete;
    std::string text() const;
};

/** Installs the ggml log hook once (idempotent). */
void install_ggml_log_hook();

}  // namespace parakeet
