#include "row_split.h"

#include <system_error>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define PARAKEET_SPIN_PAUSE() _mm_pause()
#else
#define PARAKEET_SPIN_PAUSE() std::this_thread::yield()
#endif

namespace parakeet {

RowSplit::RowSplit() {
    try {
        helper_ = std::thread([this] { helper_loop(); });
    } catch (const std::system_error &) {
        // No thread: run() does everything on the caller.
    }
}

RowSplit::~RowSplit() {
    if (!helper_.joinable()) return;
    stop_.store(true, std::memory_order_release);
    helper_.join();
}

unsigned RowSplit::post(Job fn, void * ctx, int begin, int end) {
    fn_ = fn;
    ctx_ = ctx;
    begin_ = begin;
    end_ = end;
    return posted_.fetch_add(1, std::memory_order_release) + 1;  // publishes the job's fields
}

bool RowSplit::take_back(unsigned job) {
    unsigned expected = job - 1;
    return claimed_.compare_exchange_strong(expected, job, std::memory_order_acq_rel);
}

void RowSplit::note_busy() {
    if (++busy_ < kBusyToGiveUp) return;
    given_up_ = true;
    stop_.store(true, std::memory_order_release);  // the helper leaves its loop; joined at destruction
}

void RowSplit::wait(unsigned job) {
    while (done_.load(std::memory_order_acquire) != job) PARAKEET_SPIN_PAUSE();
}

void RowSplit::helper_loop() {
    unsigned seen = 0;
    for (;;) {
        unsigned job;
        while ((job = posted_.load(std::memory_order_acquire)) == seen) {
            if (stop_.load(std::memory_order_acquire)) return;
            PARAKEET_SPIN_PAUSE();
        }
        seen = job;
        unsigned expected = job - 1;
        if (!claimed_.compare_exchange_strong(expected, job, std::memory_order_acq_rel)) continue;  // taken back
        fn_(ctx_, begin_, end_);
        done_.store(job, std::memory_order_release);
    }
}

}  // namespace parakeet
