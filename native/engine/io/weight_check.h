// Every stored weight must be a finite number. A NaN or an infinity in one
// tensor does not fail anything downstream: the model loads and "transcribes"
// garbage. So the loader scans every tensor's bytes once (a bit test per
// element for float types, the block scales for the common quantized types)
// and names the first bad tensor.
#pragma once

#include <atomic>

#include "gguf_file.h"

namespace parakeet {

/**
 * Throws Error(ModelInvalid) naming the first tensor (in file order) that holds a NaN or an infinity;
 * Error(Aborted) when `abort` is set. A mapped file is scanned on up to `n_threads` threads (0: all cores).
 */
void check_weights_finite(const GgufFile & file, const std::atomic<bool> * abort, int n_threads);

}  // namespace parakeet
