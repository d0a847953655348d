#include "cpu_features.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "amx.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define PARAKEET_CPUID 1
#include <cpuid.h>
#endif

namespace parakeet {
namespace {

#ifdef PARAKEET_CPUID
struct CpuidRegs {
    unsigned a = 0, b = 0, c = 0, d = 0;
};

CpuidRegs cpuid(unsigned leaf, unsigned sub) {
    CpuidRegs r;
    if (__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d) == 0) return CpuidRegs{};
    return r;
}

uint64_t xcr0() {
    uint32_t lo = 0, hi = 0;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t(hi) << 32) | lo;
}

bool bit(unsigned reg, int n) { return (reg & (1u << n)) != 0; }

/** The bits of CPUID leaves 1, 7.0 and 7.1 and XCR0 (Intel SDM vol. 2A, CPUID; AMD APM vol. 3). */
void read_cpuid(CpuFeatures & f) {
    const CpuidRegs leaf1 = cpuid(1, 0), leaf7 = cpuid(7, 0), leaf7_1 = cpuid(7, 1);
    if (!bit(leaf1.c, 27)) return;  // no OSXSAVE: XGETBV faults and no AVX state is saved
    const uint64_t state = xcr0();
    const bool os_avx = (state & 0x6) == 0x6;
    f.os_saves_avx512 = (state & 0xe6) == 0xe6;
    f.os_saves_tiles = (state & (3ull << 17)) == (3ull << 17);
    f.fma = os_avx && bit(leaf1.c, 12);
    f.f16c = os_avx && bit(leaf1.c, 29);
    f.avx2 = os_avx && bit(leaf7.b, 5);
    f.avx_vnni = os_avx && bit(leaf7_1.a, 4);
    f.avx512f = f.os_saves_avx512 && bit(leaf7.b, 16);
    f.avx512bw = f.os_saves_avx512 && bit(leaf7.b, 30);
    f.avx512vl = f.os_saves_avx512 && bit(leaf7.b, 31);
    f.avx512_vnni = f.os_saves_avx512 && bit(leaf7.c, 11);
    f.avx512_bf16 = f.os_saves_avx512 && bit(leaf7_1.a, 5);
    f.amx_bf16 = bit(leaf7.d, 22);
    f.amx_tile = bit(leaf7.d, 24);
    f.amx_int8 = bit(leaf7.d, 25);
}

/** What AMX-BF16 needs from the bits (the kernels convert with AVX512-BF16 around the tiles). */
std::string missing_for_amx(const CpuFeatures & f) {
    if (!f.amx_tile) return "no AMX-TILE";
    if (!f.amx_bf16) return "no AMX-BF16";
    if (!(f.avx512f && f.avx512bw && f.avx512vl)) return "no AVX-512 F/BW/VL";
    if (!f.avx512_bf16) return "no AVX512-BF16";
    if (!f.os_saves_avx512) return "the OS does not save AVX-512 state";
    if (!f.os_saves_tiles) return "the OS does not save tile state (XCR0 bits 17/18)";
    return "";
}
#endif

CpuFeatures probe() {
    CpuFeatures f;
    const char * env = std::getenv("PARAKEET_CPU_CLASS");
    if (env != nullptr) {
        bool known = false;
        for (int c = 0; c <= int(CpuClass::Amx); ++c) {
            if (std::strcmp(env, cpu_class_name(CpuClass(c))) == 0) f.cap = CpuClass(c), known = true;
        }
        if (!known)
            f.cap_problem = std::string("PARAKEET_CPU_CLASS='") + env + "' is not one of scalar, avx2, avx_vnni, avx512, avx512_vnni, amx: ignored";
    }
#ifdef PARAKEET_CPUID
    read_cpuid(f);
    if (f.avx2 && f.fma && f.f16c) f.hardware = CpuClass::Avx2;
    // 256-bit VPDPBUSD, VEX (AVX-VNNI) or EVEX (AVX512-VNNI with VL).
    if (f.hardware == CpuClass::Avx2 && (f.avx_vnni || (f.avx512_vnni && f.avx512vl))) f.hardware = CpuClass::AvxVnni;
    if (f.hardware >= CpuClass::Avx2 && f.avx512f) f.hardware = CpuClass::Avx512;
    if (f.hardware == CpuClass::Avx512 && f.avx512bw && f.avx512vl && f.avx512_vnni) f.hardware = CpuClass::Avx512Vnni;
    // The tile permission and the probe run only where the class may be used: a capped process
    // never touches the tiles.
    const char * amx_env = std::getenv("PARAKEET_AMX");
    const std::string missing = missing_for_amx(f);
    if (amx_env != nullptr && std::strcmp(amx_env, "0") == 0) {
        f.amx_reason = "off (PARAKEET_AMX=0)";
    } else if (f.cap < CpuClass::Amx) {
        f.amx_reason = std::string("off (PARAKEET_CPU_CLASS=") + cpu_class_name(f.cap) + ")";
    } else if (!missing.empty()) {
        f.amx_reason = missing;
    } else if (f.hardware == CpuClass::Avx512Vnni) {
        const AmxStatus s = probe_amx_tiles();
        f.amx_usable = s.usable;
        f.amx_reason = s.reason;
        if (s.usable) f.hardware = CpuClass::Amx;
    } else {
        f.amx_reason = "no AVX512-VNNI";
    }
#else
    f.amx_reason = "not an x86-64 build";
#endif
    return f;
}

}  // namespace

const CpuFeatures & cpu_features() {
    static const CpuFeatures features = probe();
    return features;
}

}  // namespace parakeet
