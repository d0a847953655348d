// Host memory for packed weights: large buffers 2 MiB aligned and, on Linux,
// marked for transparent huge pages. The packed kernels stream every weight once per
// encoder pass; with 4 KiB pages that is a TLB miss every 4 KiB, and a miss
// costs a two-level page walk inside a virtual machine.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace parakeet {

template <typename T>
class WeightBuffer {
public:
    WeightBuffer() = default;
    explicit WeightBuffer(size_t count) : count_(count) {
        if (count == 0) return;
        // Huge pages only pay for buffers of several of them: below that, 64-byte alignment and no
        // rounding (a 2 MiB page touched at all is zeroed and resident whole).
        constexpr size_t kHuge = size_t(2) << 20;
        const bool huge = count * sizeof(T) >= 4 * kHuge;
        const size_t kAlign = huge ? kHuge : 64;
        const size_t bytes = (count * sizeof(T) + kAlign - 1) / kAlign * kAlign;
#if defined(_WIN32)
        data_ = static_cast<T *>(_aligned_malloc(bytes, kAlign));
#else
        void * p = nullptr;
        data_ = posix_memalign(&p, kAlign, bytes) == 0 ? static_cast<T *>(p) : nullptr;
#endif
        if (data_ == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (huge) madvise(data_, bytes, MADV_HUGEPAGE);  // a hint: without it the pages are 4 KiB
#endif
    }
    ~WeightBuffer() {
#if defined(_WIN32)
        _aligned_free(data_);
#else
        std::free(data_);
#endif
    }
    WeightBuffer(const WeightBuffer &) = delete;
    WeightBuffer & operator=(const WeightBuffer &) = delete;
    WeightBuffer(WeightBuffer && o) noexcept : data_(o.data_), count_(o.count_) { o.data_ = nullptr, o.count_ = 0; }
    WeightBuffer & operator=(WeightBuffer && o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }

    T * data() { return data_; }
    const T * data() const { return data_; }
    size_t size() const { return count_; }

private:
    T * data_ = nullptr;
    size_t count_ = 0;
};

}  // namespace parakeet
