#include "adaptive_threads.h"

namespace parakeet {

AdaptiveThreads::AdaptiveThreads(int max_threads) : max_(max_threads < 1 ? 1 : max_threads) {}

int AdaptiveThreads::choose() {
    if (max_ == 1) return 1;
    ++runs_;
    if (cost_[1] == 0.0) return max_;  // first: the configured count
    if (cost_[0] == 0.0) return 1;     // second: calibrate one thread
    const int best = cost_[0] <= cost_[1] ? 1 : max_;
    const int other = best == 1 ? max_ : 1;
    return runs_ % kExplore == 0 ? other : best;
}

void AdaptiveThreads::report(int threads, double ms_per_frame) {
    if (!(ms_per_frame > 0.0)) return;
    double & c = cost_[threads == 1 ? 0 : 1];
    // A quick average: load changes within seconds, and one stale measurement must not pin an arm.
    c = c == 0.0 ? ms_per_frame : 0.5 * c + 0.5 * ms_per_frame;
}

}  // namespace parakeet
