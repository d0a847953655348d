// Splitting the sequential decoders' matrix–vector products over two cores.
//
// A transducer emits tokens one at a time, and every step reads the prediction LSTM's and the
// joint's weights once: 2.7 MB as int8 and 11 MB as F32 at Parakeet's sizes, more than one core's
// L2 holds, so one core streams them from L3. With two threads each core reads its own half of
// every matrix's rows, which for int8 then stays in its own L2: measured 108 → 46 µs per LSTM step
// plus a block of joints (110M shape). The helper spins between products (a hand-off costs well
// under a microsecond; a sleeping thread's wake-up costs tens), so it lives only for one decoding
// pass, and only where that pass was given two threads.
#pragma once

#include <atomic>
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
        if (!helper_.joinable() || half == 0 || rows < kMinRows) {
            part(0, rows);
            return;
        }
        using Callable = std::remove_reference_t<Part>;
        post(&call<Callable>, const_cast<void *>(static_cast<const void *>(&part)), half, rows);
        part(0, half);
        wait();
    }

private:
    static constexpr int kMinRows = 64;  // below this the hand-off costs more than half the product
    using Job = void (*)(void *, int, int);
    template <typename Part>
    static void call(void * part, int begin, int end) {
        (*static_cast<Part *>(part))(begin, end);
    }
    void post(Job fn, void * ctx, int begin, int end);
    void wait();
    void helper_loop();

    Job fn_ = nullptr;
    void * ctx_ = nullptr;
    int begin_ = 0, end_ = 0;
    std::atomic<unsigned> posted_{0}, done_{0};
    std::atomic<bool> stop_{false};
    std::thread helper_;
};

}  // namespace parakeet
