#include "windows.h"

#include <string>

namespace parakeet {
namespace {

std::string seconds(size_t samples, int sample_rate) { return std::to_string(double(samples) / sample_rate) + " s"; }

[[noreturn]] void refuse(size_t index, const std::string & what) {
    throw Error(ErrorCode::BadArgument,
                "window " + std::to_string(index) + " " + what +
                        "; plan the windows with native/windows.ts (WindowPlanner), which cuts at pauses on the encoder-frame grid");
}

}  // namespace

std::vector<SampleRange> checked_windows(const std::vector<SampleRange> & given, size_t n, int sample_rate, size_t max_samples, size_t align) {
    if (align == 0) align = 1;
    if (given.empty()) {
        if (n > max_samples) {
            throw Error(ErrorCode::BadArgument,
                        "the clip is " + seconds(n, sample_rate) + " long, over max_window_sec (" + seconds(max_samples, sample_rate) +
                                "), and no windows were given: cut it with native/windows.ts (WindowPlanner) or raise max_window_sec");
        }
        return {{0, n}};
    }
    size_t expected_begin = 0;
    for (size_t w = 0; w < given.size(); ++w) {
        const SampleRange & r = given[w];
        if (r.begin != expected_begin) {
            refuse(w, "begins at sample " + std::to_string(r.begin) + " where " + std::to_string(expected_begin) +
                              " was expected (windows cover the clip in order, without gaps)");
        }
        if (r.end <= r.begin || r.end > n) {
            refuse(w, "ends at sample " + std::to_string(r.end) + ", not after its begin (" + std::to_string(r.begin) + ") and within the clip's " +
                              std::to_string(n) + " samples");
        }
        if (r.end - r.begin > max_samples) {
            refuse(w, "is " + seconds(r.end - r.begin, sample_rate) + " long, over max_window_sec (" + seconds(max_samples, sample_rate) + ")");
        }
        if (r.begin % align != 0) {
            refuse(w,
                   "begins at sample " + std::to_string(r.begin) + ", not a multiple of the encoder frame (" + std::to_string(align) + " samples)");
        }
        expected_begin = r.end;
    }
    if (expected_begin != n) {
        refuse(given.size() - 1, "ends at sample " + std::to_string(expected_begin) + " but the clip has " + std::to_string(n) + " samples");
    }
    return given;
}

}  // namespace parakeet
