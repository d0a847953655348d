// Splitting the sequential decoders' matrix–vector products over two cores.
//
// A transducer emits tokens one at a time, and every step reads the prediction LSTM's and the
// joint's weights once: 2.7 MB as int8 and 11 MB as F32 at Parakeet's sizes, more than one core's
// L2 holds, so one core streams them from L3. With two threads each core reads its own half of
// every matrix's rows, which for int8 then stays in its own L2: measured 108 → 46 µs per LSTM step
// plus a block of joints (110M shape). The helper spins between products (a hand-off costs well
// under a microsecond; a sleeping thread's wake-up costs tens), so it lives only for one decoding
// pass, and only where that pass was given two threads. A half the helper has not started when the
// caller finishes its own is taken back, so a helper that lost its core costs no waiting.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>
#include <type_traits>

namespace parakeet {

class RowSplit {
public:
    /** Starts the helper thread; where it cannot start, every product runs on the caller. */
    RowSplit();
    /** Stops and joins the helper. */
    ~RowSplit();
    RowSplit(const RowSplit &) = delete;
    RowSplit & operator=(const RowSplit &) = delete;

    /**
     * part(begin, end) over rows [0, rows): [0, h) on the caller and [h, rows) on the helper, h a
     * multiple of `align` near rows / 2; returns when both are done. `part` must not throw (the
     * products it runs do not allocate), and each row's numbers must not depend on the cut.
     */
    template <typename Part>
    void run(int rows, int align, Part && part) {
        const int half = rows / 2 / align * align;
        if (!helper_.joinable() || half == 0 || rows < kMinRows || given_up_) {
            part(0, rows);
            return;
        }
        using Callable = std::remove_reference_t<Part>;
        const unsigned job = post(&call<Callable>, const_cast<void *>(static_cast<const void *>(&part)), half, rows);
        const auto start = std::chrono::steady_clock::now();
        part(0, half);
        const auto own = std::chrono::steady_clock::now() - start;
        if (take_back(job)) {
            part(half, rows);  // the helper had not started it: it lost its core to another program
            note_busy();
        } else {
            wait(job);
            // The helper's half is as large as the caller's: finishing well after it (by more than
            // timing noise) means the helper was descheduled part of the time.
            if (std::chrono::steady_clock::now() - start > 2 * own + kLateSlack) note_busy();
        }
    }

private:
    static constexpr int kMinRows = 64;  // below this the hand-off costs more than half the product
    // Another program wants a core: the helper had not claimed its half by the time the caller
    // finished its own, or finished much later. After this many such products the rest of the pass
    // runs on the caller alone and the helper stops spinning (a third runnable thread on a busy
    // 2-core machine slowed the decoder 2×).
    static constexpr int kBusyToGiveUp = 3;
    static constexpr std::chrono::microseconds kLateSlack{50};
    int busy_ = 0;
    bool given_up_ = false;
    void note_busy();
    using Job = void (*)(void *, int, int);
    template <typename Part>
    static void call(void * part, int begin, int end) {
        (*static_cast<Part *>(part))(begin, end);
    }
    unsigned post(Job fn, void * ctx, int begin, int end);
    bool take_back(unsigned job);
    void wait(unsigned job);
    void helper_loop();

    Job fn_ = nullptr;
    void * ctx_ = nullptr;
    int begin_ = 0, end_ = 0;
    // Job numbers: the last posted, the last claimed (by the helper, or taken back by the caller:
    // whoever moves it from job − 1 to job runs the second half) and the last the helper finished.
    std::atomic<unsigned> posted_{0}, claimed_{0}, done_{0};
    std::atomic<bool> stop_{false};
    std::thread helper_;
};

}  // namespace parakeet
