// checked_windows (model/windows.h): the engine transcribes the windows its caller planned
// (native/windows.ts) only when they cover the clip in order, fit max_window_sec and cut on the
// encoder-frame grid; anything else is BadArgument naming the window and what was found.
#include <string>
#include <vector>

#include "check.h"
#include "windows.h"

using namespace parakeet;

namespace {

constexpr int kRate = 16000;
constexpr size_t kFrame = 1280;  // 80 ms: 160-sample hops × subsampling 8

/** The message of the BadArgument `given` is refused with ("" when accepted or refused otherwise). */
std::string refusal(const std::vector<SampleRange> & given, size_t n, size_t max_samples) {
    try {
        checked_windows(given, n, kRate, max_samples, kFrame);
    } catch (const Error & e) {
        return e.code() == ErrorCode::BadArgument ? std::string(e.what()) : std::string();
    }
    return "";
}

bool says(const std::string & message, const std::string & part) { return message.find(part) != std::string::npos; }

}  // namespace

TEST(windows_given_cover_the_clip_are_kept) {
    const size_t n = 25 * kRate + 77;
    const std::vector<SampleRange> given = {{0, 9 * kFrame * 12}, {9 * kFrame * 12, 17 * kFrame * 12}, {17 * kFrame * 12, n}};
    const std::vector<SampleRange> out = checked_windows(given, n, kRate, 10 * kRate, kFrame);
    CHECK_EQ(out.size(), size_t(3));
    for (size_t w = 0; w < out.size(); ++w) {
        CHECK_EQ(out[w].begin, given[w].begin);
        CHECK_EQ(out[w].end, given[w].end);
    }
}

TEST(no_windows_is_the_whole_clip_when_it_fits) {
    const std::vector<SampleRange> out = checked_windows({}, 10 * kRate, kRate, 10 * kRate, kFrame);
    CHECK_EQ(out.size(), size_t(1));
    CHECK_EQ(out[0].begin, size_t(0));
    CHECK_EQ(out[0].end, size_t(10 * kRate));
}

TEST(windows_that_break_the_rule_are_refused_by_name) {
    const size_t n = 20 * kRate;
    const size_t max = 10 * kRate;
    const size_t cut = 100 * kFrame;  // 8 s
    CHECK(says(refusal({}, n, max), "over max_window_sec"));
    CHECK(says(refusal({{0, cut}, {cut + kFrame, n}}, n, max), "window 1 begins at sample"));           // a gap
    CHECK(says(refusal({{0, cut}, {cut - kFrame, n}}, n, max), "window 1 begins at sample"));           // an overlap
    CHECK(says(refusal({{kFrame, cut}, {cut, n}}, n, max), "window 0 begins at sample 1280 where 0"));  // not from the start
    CHECK(says(refusal({{0, cut}, {cut, cut}}, n, max), "window 1 ends at sample"));                    // empty
    CHECK(says(refusal({{0, cut}, {cut, n + 1}}, n, max), "within the clip's"));                        // past the end
    CHECK(says(refusal({{0, cut}, {cut, 2 * cut}}, n, max), "but the clip has 320000 samples"));        // short of the end
    CHECK(says(refusal({{0, cut + 7}, {cut + 7, 2 * cut}, {2 * cut, n}}, n, max),
               "window 1 begins at sample 128007, not a multiple of the encoder frame (1280"));  // off the grid
    CHECK(says(refusal({{0, max + kFrame}, {max + kFrame, n}}, n, max), "window 0 is 10.08"));   // too long
    CHECK(refusal({{0, cut}, {cut, 2 * cut}, {2 * cut, n}}, n, max).empty());                    // the same clip cut by the rule
}
