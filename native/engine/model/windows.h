// Long audio: where to cut a clip into encoder windows (at pauses).
#pragma once

#include <cstddef>
#include <vector>

namespace parakeet {

struct SampleRange {
    size_t begin = 0, end = 0;
};

/**
 * One range for clips up to `max_samples`; longer clips are cut into windows
 * of at most `max_samples`, each cut placed at the quietest 200 ms stretch of
 * the second half of the window (a pause, in speech), so words are rarely split.
 * Cuts fall on multiples of `align` samples (one encoder frame), so every
 * window's frames sit on the same time grid as a single pass over the clip.
 */
std::vector<SampleRange> plan_windows(const float * pcm, size_t n, int sample_rate, size_t max_samples, size_t align = 1);

}  // namespace parakeet
