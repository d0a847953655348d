#include "amx.h"

#include <cstdlib>
#include <cstring>

#include "cpu_features.h"

#ifdef PARAKEET_AMX
#include <csetjmp>
#include <csignal>
#include <sys/syscall.h>
#include <unistd.h>

#include "simd_math.h"
#endif

namespace parakeet {

#ifdef PARAKEET_AMX
namespace {

// arch/x86/include/uapi/asm/prctl.h and the XSAVE feature number of the tile data.
constexpr int kArchGetXcompPerm = 0x1022;
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureTileData = 18;

bool request_tile_permission() {
    unsigned long permitted = 0;
    if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &permitted) == 0 && (permitted & (1ul << kXfeatureTileData)) != 0) return true;
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureTileData) != 0) return false;
    return syscall(SYS_arch_prctl, kArchGetXcompPerm, &permitted) == 0 && (permitted & (1ul << kXfeatureTileData)) != 0;
}

uint16_t to_bf16(float f) {  // exact for the small integers the probe uses
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return uint16_t(bits >> 16);
}

sigjmp_buf * probe_escape = nullptr;
extern "C" void on_probe_fault(int) { siglongjmp(*probe_escape, 1); }

/**
 * One 16 × 16 product over 32 inputs on the tiles (TDPBF16PS), against the same sums in scalar code:
 * small integers, so both are exact. A fault (SIGILL) while it runs means false.
 */
__attribute__((noinline)) bool tile_product_matches() {
    alignas(64) static uint16_t a[16 * 32], b[16 * 32];
    alignas(64) static float c[16 * 16];
    for (int m = 0; m < 16; ++m) {
        for (int k = 0; k < 32; ++k) a[m * 32 + k] = to_bf16(float((m * 7 + k * 3) % 11 - 5));
    }
    for (int k2 = 0; k2 < 16; ++k2) {  // B[k2][n][j] = w[n][2·k2 + j]
        for (int n = 0; n < 16; ++n) {
            for (int j = 0; j < 2; ++j) b[(k2 * 16 + n) * 2 + j] = to_bf16(float((n * 5 + (2 * k2 + j) * 13) % 9 - 4));
        }
    }
    const TileConfig config = full_tiles();
    load_tile_config(config);
    const size_t stride = 64;
    asm volatile(
            "tileloadd (%0,%2,1), %%tmm0\n\t"
            "tileloadd (%1,%2,1), %%tmm1\n\t"
            "tilezero %%tmm2\n\t"
            "tdpbf16ps %%tmm1, %%tmm0, %%tmm2\n\t"
            "tilestored %%tmm2, (%3,%2,1)\n\t" ::"r"(a),
            "r"(b), "r"(stride), "r"(c)
            : "memory");
    release_tiles();
    for (int m = 0; m < 16; ++m) {
        for (int n = 0; n < 16; ++n) {
            float expected = 0.0f;
            for (int k = 0; k < 32; ++k) expected += float((m * 7 + k * 3) % 11 - 5) * float((n * 5 + k * 13) % 9 - 4);
            if (c[m * 16 + n] != expected) return false;
        }
    }
    return true;
}

bool probe_passes() {
    struct sigaction previous {};
    struct sigaction handler {};
    handler.sa_handler = on_probe_fault;
    sigemptyset(&handler.sa_mask);
    if (sigaction(SIGILL, &handler, &previous) != 0) return false;
    sigjmp_buf escape;
    probe_escape = &escape;
    bool ok = false;
    if (sigsetjmp(escape, 1) == 0) ok = tile_product_matches();
    sigaction(SIGILL, &previous, nullptr);
    probe_escape = nullptr;
    return ok;
}

}  // namespace

/** The tile permission and the known-answer product; cpu_features.cpp runs it once, where CPUID and XCR0 allow AMX-BF16. */
AmxStatus probe_amx_tiles() {
    AmxStatus s;
    if (!request_tile_permission()) {
        s.reason = "the kernel refused the tile data permission (arch_prctl)";
        return s;
    }
    if (!probe_passes()) {
        s.reason = "the known-answer tile product failed";
        return s;
    }
    s.usable = true;
    s.reason = "AMX-BF16 passed its known-answer probe";
    return s;
}

#else

AmxStatus probe_amx_tiles() { return AmxStatus{false, "not an x86-64 Linux build"}; }

#endif

const AmxStatus & amx_bf16_status() {
    static const AmxStatus status{cpu_features().amx_usable, cpu_features().amx_reason};
    return status;
}

}  // namespace parakeet
