// Long audio: the windows a caller cut a clip into, checked before any encoder pass.
#pragma once

#include <cstddef>
#include <vector>

#include "parakeet/parakeet.h"

namespace parakeet {

/**
 * The encoder windows of an `n`-sample clip. The cut points are planned by the caller (native/windows.ts,
 * WindowPlanner: the one planner, also the app's file jobs'), so the one-call transcribe and a file job cut
 * the same audio alike. `given` empty: the whole clip, when it is at most `max_samples` long. Otherwise the
 * windows must cover the clip in order without gaps, each non-empty and at most `max_samples` long, every
 * cut on a multiple of `align` samples (one encoder frame: each window's frames then sit on the time grid
 * of a single pass over the clip, so word times stay exact across windows). Anything else is BadArgument,
 * naming the window and what was found.
 */
std::vector<SampleRange> checked_windows(const std::vector<SampleRange> & given, size_t n, int sample_rate, size_t max_samples, size_t align);

}  // namespace parakeet
