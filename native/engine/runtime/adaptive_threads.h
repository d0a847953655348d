// Thread count per encoder run when the machine may be busy.
//
// ggml's CPU workers spin at the barrier after every graph node. When another
// process takes a core, a descheduled worker holds every barrier for a whole
// scheduler time slice, and n threads can run several times slower than one
// (measured on 2 cores: 110M Q8_0, 10 s, 2 threads 2–3× slower than 1 while a
// second process runs). This policy keeps the measured cost per encoder frame
// of two arms — all the configured threads, and one thread — and runs the
// faster, trying the other arm every kExplore runs so a change in load is seen.
#pragma once

namespace parakeet {

class AdaptiveThreads {
public:
    /** `max_threads` ≥ 1: the configured count (the "all threads" arm). */
    explicit AdaptiveThreads(int max_threads);

    /** Threads for the next run. */
    int choose();
    /** The run just finished: `threads` used, `ms_per_frame` its encoder time per encoder frame. */
    void report(int threads, double ms_per_frame);

    static constexpr int kExplore = 12;

private:
    int max_;
    double cost_[2] = {0.0, 0.0};  // EMA of ms per frame: [0] one thread, [1] max threads; 0 = not measured
    int runs_ = 0;
};

}  // namespace parakeet
