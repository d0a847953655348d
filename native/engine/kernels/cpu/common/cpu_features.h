// What this CPU offers the engine's own kernels, probed once per process: every CPU-feature check
// of the engine is a field here (cpu_features.cpp reads CPUID and XCR0, and runs the AMX permission
// and known-answer probe of amx.h). The kernel registry (registry.h) and the fused ops ask only
// `cpu_features().has(CpuClass::…)`.
//
// PARAKEET_CPU_CLASS=scalar|avx2|avx_vnni|avx512|avx512_vnni|amx caps the class the engine's kernels may use
// (never more than the CPU has), so that one machine tests every class: an AMX machine also runs the
// AVX512-VNNI, AVX-512, AVX2 and ggml-only rows. ggml's own kernels are not affected. Unset: no cap;
// an unknown name is reported (cap_problem) and ignored.
#pragma once

#include <string>

namespace parakeet {

/**
 * The kernel classes, in order. A class is what a row may assume at most; a row that needs a feature
 * its class does not imply says so (KernelRow::needs: avx_vnni's VEX or EVEX VPDPBUSD, which an
 * AVX-512 CPU without VNNI lacks although its class is higher).
 */
enum class CpuClass { Scalar = 0, Avx2 = 1, AvxVnni = 2, Avx512 = 3, Avx512Vnni = 4, Amx = 5 };

inline const char * cpu_class_name(CpuClass c) {
    switch (c) {
        case CpuClass::Scalar: return "scalar";
        case CpuClass::Avx2: return "avx2";
        case CpuClass::AvxVnni: return "avx_vnni";
        case CpuClass::Avx512: return "avx512";
        case CpuClass::Avx512Vnni: return "avx512_vnni";
        case CpuClass::Amx: return "amx";
    }
    return "amx";
}

struct CpuFeatures {
    // What the CPU and the OS report (CPUID, XCR0), whatever PARAKEET_CPU_CLASS says.
    bool avx2 = false, fma = false, f16c = false;
    bool avx_vnni = false;  // the VEX-coded VPDPBUSD (Alder Lake, Zen 5): the AVX-VNNI-256 rows
    bool avx512f = false, avx512bw = false, avx512vl = false, avx512_vnni = false, avx512_bf16 = false;
    bool amx_tile = false, amx_bf16 = false, amx_int8 = false;
    bool os_saves_avx512 = false, os_saves_tiles = false;
    // AMX-BF16 may run in this process: the bits above, the Linux tile permission and the
    // known-answer probe (amx.h); amx_reason says why not, or what was checked.
    bool amx_usable = false;
    std::string amx_reason;

    CpuClass hardware = CpuClass::Scalar;  // the highest class the CPU and OS allow
    CpuClass cap = CpuClass::Amx;          // PARAKEET_CPU_CLASS (Amx when unset or unknown)
    std::string cap_problem;               // empty, or what is wrong with PARAKEET_CPU_CLASS

    /** The class the engine's kernels use: the hardware's, capped. */
    CpuClass usable() const { return hardware < cap ? hardware : cap; }
    bool has(CpuClass c) const { return usable() >= c; }
    /** The avx_vnni rows' 256-bit VPDPBUSD, VEX-coded (AVX-VNNI: Alder Lake, Zen 5); the class implies AVX2, FMA, F16C. */
    bool avx_vnni_vex() const { return has(CpuClass::AvxVnni) && avx_vnni; }
    /** The same instruction EVEX-coded (AVX512-VL + AVX512-VNNI): how Zen 4 or Ice Lake runs the avx_vnni rows under PARAKEET_CPU_CLASS=avx_vnni. */
    bool avx_vnni_evex() const { return has(CpuClass::AvxVnni) && avx512vl && avx512_vnni; }
};

/** Probed on first use (thread-safe), then the same object for the life of the process. */
const CpuFeatures & cpu_features();

/** Shorthands the fused ops use. AVX2 + FMA + F16C: the 256-bit kernels' base. */
inline bool cpu_has_avx2() { return cpu_features().has(CpuClass::Avx2); }
inline bool cpu_has_avx512f() { return cpu_features().has(CpuClass::Avx512); }
/** AVX512F/BW/VL + AVX512-VNNI + F16C: what the Q8_0 kernel uses. */
inline bool cpu_has_avx512_vnni() { return cpu_features().has(CpuClass::Avx512Vnni); }
inline CpuClass cpu_class_cap() { return cpu_features().cap; }
inline std::string cpu_class_cap_problem() { return cpu_features().cap_problem; }

}  // namespace parakeet
