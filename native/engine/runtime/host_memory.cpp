#include "host_memory.h"

#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace parakeet {

void keep_large_allocations_mapped() {
#if defined(__GLIBC__)
    static std::once_flag once;
    // glibc's DEFAULT_MMAP_THRESHOLD_MIN; setting it explicitly is what disables the dynamic threshold
    // (mallopt(3), M_MMAP_THRESHOLD). A mapped block costs a page fault per 4 KiB on first touch, small
    // next to the compute a buffer of that size feeds.
    constexpr int kMmapThresholdBytes = 128 * 1024;
    // The trim threshold too: each raise of the mmap threshold doubled it (up to 64 MiB), and a raised one
    // keeps freed memory at the top of the heap from going back to the system.
    constexpr int kTrimThresholdBytes = 128 * 1024;  // glibc's DEFAULT_TRIM_THRESHOLD
    std::call_once(once, [] {
        mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
        mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes);
    });
#endif
}

}  // namespace parakeet
