// A stream cache window's shift for the next chunk as one in-place ggml custom op (CPU): the last
// `kept` columns of [cache | chunk] moved to the window's front with one memmove. ggml's copy splits
// columns among threads, so overlapping ranges need a contiguous copy of the tail first and a copy
// back: two passes over the window per layer and cache where one does.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace parakeet {

/**
 * Moves columns [from, from + kept) of `window` [rows, n] (contiguous columns) to [0, kept); returns
 * the node to expand (its own value is a placeholder). Run by the node's first thread alone.
 */
ggml_tensor * shift_window_in_place(ggml_context * ctx, ggml_tensor * window, int64_t from, int64_t kept);

}  // namespace parakeet
