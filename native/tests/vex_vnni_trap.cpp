#include "vex_vnni_trap.h"

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cstring>

namespace parakeet_tests {
namespace {

std::atomic<uint64_t> g_emulated{0};
struct sigaction g_previous;
// The signal frame's XSAVE image (standard format): XMM0–15 at 160, the header's XSTATE_BV at 512,
// the upper halves of YMM0–15 at 576; ZMM_Hi256 (bits 511:256) where CPUID.(0DH, 6).EBX says.
constexpr int kXmmOffset = 160, kXstateBvOffset = 512, kYmmHiOffset = 576;
constexpr uint64_t kAvxBit = 1u << 2, kZmmHi256Bit = 1u << 6;
unsigned g_zmm_hi256_offset = 0;

/** General register n (ModRM/SIB numbering, REX/VEX extended) in the saved context. */
int64_t gpr(const ucontext_t * uc, int n) {
    static const int kIndex[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                   REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
    return int64_t(uc->uc_mcontext.gregs[kIndex[n]]);
}

/** The 32 bytes of YMMn as the frame holds them (upper half zero when the AVX state is in its init form). */
void read_ymm(const uint8_t * xsave, int n, uint8_t out[32]) {
    std::memcpy(out, xsave + kXmmOffset + 16 * n, 16);
    uint64_t bv;
    std::memcpy(&bv, xsave + kXstateBvOffset, 8);
    if ((bv & kAvxBit) != 0)
        std::memcpy(out + 16, xsave + kYmmHiOffset + 16 * n, 16);
    else
        std::memset(out + 16, 0, 16);
}

/** Writes YMMn (a VEX instruction zeroes every bit above its length, up to the ZMM width). */
void write_ymm(uint8_t * xsave, int n, const uint8_t value[32], bool bits256) {
    uint64_t bv;
    std::memcpy(&bv, xsave + kXstateBvOffset, 8);
    if ((bv & kAvxBit) == 0) {  // init form: the area is not meaningful yet; zero it and mark it present
        std::memset(xsave + kYmmHiOffset, 0, 256);
        bv |= kAvxBit;
        std::memcpy(xsave + kXstateBvOffset, &bv, 8);
    }
    std::memcpy(xsave + kXmmOffset + 16 * n, value, 16);
    if (bits256)
        std::memcpy(xsave + kYmmHiOffset + 16 * n, value + 16, 16);
    else
        std::memset(xsave + kYmmHiOffset + 16 * n, 0, 16);
    if ((bv & kZmmHi256Bit) != 0 && g_zmm_hi256_offset != 0) std::memset(xsave + g_zmm_hi256_offset + 32 * n, 0, 32);
}

int64_t saturate32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v; }

/** Decodes and computes a VEX VPDP* at the interrupted RIP; false when it is something else. */
bool emulate(ucontext_t * uc) {
    const uint8_t * p = reinterpret_cast<const uint8_t *>(uc->uc_mcontext.gregs[REG_RIP]);
    if (p[0] != 0xC4 || (p[1] & 0x1F) != 2 || (p[2] & 3) != 1 || p[3] < 0x50 || p[3] > 0x53 || (p[2] & 0x80) != 0) return false;
    const int r = (p[1] & 0x80) ? 0 : 8, x = (p[1] & 0x40) ? 0 : 8, b = (p[1] & 0x20) ? 0 : 8;
    const int src1 = (~p[2] >> 3) & 15;
    const bool bits256 = (p[2] & 4) != 0;
    const uint8_t op = p[3], modrm = p[4];
    const int mod = modrm >> 6, dst = ((modrm >> 3) & 7) | r;
    int len = 5;
    uint8_t * xsave = reinterpret_cast<uint8_t *>(uc->uc_mcontext.fpregs);
    uint8_t a[32], c[32], acc[32];
    read_ymm(xsave, src1, a);
    read_ymm(xsave, dst, acc);
    if (mod == 3) {
        read_ymm(xsave, (modrm & 7) | b, c);
    } else {
        int64_t address = 0;
        bool rip_relative = false;
        if ((modrm & 7) == 4) {
            const uint8_t sib = p[len++];
            const int index = ((sib >> 3) & 7) | x, base = sib & 7;
            if (index != 4) address += gpr(uc, index) << (sib >> 6);
            if (base == 5 && mod == 0) {
                int32_t disp;
                std::memcpy(&disp, p + len, 4), len += 4, address += disp;
            } else {
                address += gpr(uc, base | b);
            }
        } else if ((modrm & 7) == 5 && mod == 0) {
            rip_relative = true;
        } else {
            address += gpr(uc, (modrm & 7) | b);
        }
        if (mod == 1) address += int8_t(p[len++]);
        if (mod == 2 || rip_relative) {
            int32_t disp;
            std::memcpy(&disp, p + len, 4), len += 4, address += disp;
        }
        if (rip_relative) address += int64_t(reinterpret_cast<uintptr_t>(p)) + len;
        std::memset(c, 0, sizeof c);
        std::memcpy(c, reinterpret_cast<const void *>(address), bits256 ? 32 : 16);
    }
    // Intel SDM: VPDPBUSD adds ZeroExtend(src1 bytes) × SignExtend(src2 bytes), four per lane; VPDPWSSD
    // adds signed word pairs; the S forms saturate the lane's sum instead of wrapping.
    for (int lane = 0; lane < (bits256 ? 8 : 4); ++lane) {
        int32_t sum32;
        std::memcpy(&sum32, acc + 4 * lane, 4);
        int64_t dot = 0;
        if (op <= 0x51) {
            for (int k = 0; k < 4; ++k) dot += int64_t(a[4 * lane + k]) * int64_t(int8_t(c[4 * lane + k]));
        } else {
            for (int k = 0; k < 2; ++k) {
                int16_t u, v;
                std::memcpy(&u, a + 4 * lane + 2 * k, 2), std::memcpy(&v, c + 4 * lane + 2 * k, 2);
                dot += int64_t(u) * int64_t(v);
            }
        }
        const int64_t total = int64_t(sum32) + dot;
        const int32_t out = (op & 1) != 0 ? int32_t(saturate32(total)) : int32_t(uint32_t(uint64_t(total)));
        std::memcpy(acc + 4 * lane, &out, 4);
    }
    write_ymm(xsave, dst, acc, bits256);
    uc->uc_mcontext.gregs[REG_RIP] += len;
    g_emulated.fetch_add(1, std::memory_order_relaxed);
    return true;
}

void on_sigill(int signal, siginfo_t * info, void * context) {
    if (emulate(static_cast<ucontext_t *>(context))) return;
    sigaction(SIGILL, &g_previous, nullptr);  // not ours: die of it as without the trap
    (void)signal, (void)info;
}

}  // namespace

bool VexVnniTrap::available() {
    unsigned a, b, c, d;
    if (__get_cpuid_count(0xD, 6, &a, &b, &c, &d) != 0) g_zmm_hi256_offset = b;
    return __get_cpuid_count(1, 0, &a, &b, &c, &d) != 0 && (c & (1u << 27)) != 0 && (c & (1u << 28)) != 0;
}

VexVnniTrap::VexVnniTrap() {
    if (!available()) return;
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sigill;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    installed_ = sigaction(SIGILL, &action, &g_previous) == 0;
}

VexVnniTrap::~VexVnniTrap() {
    if (installed_) sigaction(SIGILL, &g_previous, nullptr);
}

uint64_t VexVnniTrap::emulated() { return g_emulated.load(); }

}  // namespace parakeet_tests

#else

namespace parakeet_tests {
VexVnniTrap::VexVnniTrap() = default;
VexVnniTrap::~VexVnniTrap() = default;
bool VexVnniTrap::available() { return false; }
uint64_t VexVnniTrap::emulated() { return 0; }
}  // namespace parakeet_tests

#endif
