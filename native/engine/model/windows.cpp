#include "windows.h"

#include <algorithm>
#include <cmath>

namespace parakeet {

std::vector<SampleRange> plan_windows(const float * pcm, size_t n, int sample_rate, size_t max_samples, size_t align) {
    if (align == 0) align = 1;
    std::vector<SampleRange> out;
    if (max_samples == 0 || n <= max_samples) {
        out.push_back({0, n});
        return out;
    }
    // Energy per 10 ms hop, smoothed over 200 ms.
    const size_t hop = size_t(std::max(1, sample_rate / 100));
    const size_t frames = (n + hop - 1) / hop;
    std::vector<double> energy(frames, 0.0);
    for (size_t f = 0; f < frames; ++f) {
        const size_t b = f * hop, e = std::min(n, b + hop);
        double s = 0.0;
        for (size_t i = b; i < e; ++i) s += double(pcm[i]) * pcm[i];
        energy[f] = s / double(e - b);
    }
    const size_t span = 20;  // 200 ms
    std::vector<double> prefix(frames + 1, 0.0);
    for (size_t f = 0; f < frames; ++f) prefix[f + 1] = prefix[f] + energy[f];
    auto smoothed = [&](size_t f) {
        const size_t b = f >= span / 2 ? f - span / 2 : 0;
        const size_t e = std::min(frames, b + span);
        return (prefix[e] - prefix[b]) / double(e - b);
    };

    size_t start = 0;
    while (n - start > max_samples) {
        const size_t lo = (start + max_samples / 2) / hop;
        const size_t hi = std::min(frames - 1, (start + max_samples) / hop - 1);
        size_t best = hi;
        double best_energy = smoothed(hi);
        for (size_t f = lo; f <= hi; ++f) {
            const double e = smoothed(f);
            if (e < best_energy) {
                best_energy = e;
                best = f;
            }
        }
        size_t cut = std::min(n, best * hop + hop / 2);
        cut -= cut % align;
        if (cut <= start) cut = std::min(n, start + max_samples - (max_samples % align));
        out.push_back({start, cut});
        start = cut;
    }
    out.push_back({start, n});
    return out;
}

}  // namespace parakeet
