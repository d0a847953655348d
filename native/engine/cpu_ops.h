// What the engine's CPU custom ops share: run-time CPU feature checks (the ops are compiled for
// AVX-512 by target attributes, whatever the build's -march, and run only where the CPU has it)
// and the even split of a range over ggml's worker threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

namespace parakeet {

/**
 * The kernel classes the engine may use, in order. PARAKEET_CPU_CLASS=scalar|avx2|avx_vnni|avx512|avx512_vnni|amx
 * caps what the engine's own kernels take on this CPU (never more than the CPU has), so that one
 * machine tests every class: an AMX machine also runs the AVX512-VNNI, AVX-512, 256-bit and ggml-only rows.
 * avx_vnni is the 256-bit VPDPBUSD class (Intel 12th gen and later, AMD Zen 5: AVX-VNNI; on an
 * AVX512-VNNI CPU the same kernel runs in its EVEX form, q8_0_avx_vnni.cpp), below avx512 because
 * an AVX-512 CPU without VNNI (Skylake-X) runs the 256-bit kernels for its int8 matmuls.
 * ggml's own kernels are not affected. Unset or unknown: no cap (an unknown name is reported by
 * cpu_class_cap_reason()).
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

/** The cap PARAKEET_CPU_CLASS sets (read once per process), CpuClass::Amx when unset or unknown. */
inline CpuClass cpu_class_cap() {
    static const CpuClass cap = [] {
        const char * env = std::getenv("PARAKEET_CPU_CLASS");
        if (env == nullptr) return CpuClass::Amx;
        for (int c = 0; c <= int(CpuClass::Amx); ++c) {
            if (std::strcmp(env, cpu_class_name(CpuClass(c))) == 0) return CpuClass(c);
        }
        return CpuClass::Amx;
    }();
    return cap;
}

/** Empty when PARAKEET_CPU_CLASS is unset or names a class; else what is wrong with it. */
inline std::string cpu_class_cap_problem() {
    const char * env = std::getenv("PARAKEET_CPU_CLASS");
    if (env == nullptr || std::strcmp(env, cpu_class_name(cpu_class_cap())) == 0) return {};
    return std::string("PARAKEET_CPU_CLASS='") + env + "' is not one of scalar, avx2, avx_vnni, avx512, avx512_vnni, amx: ignored";
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
inline bool cpu_has_avx512f() {
    __builtin_cpu_init();
    return cpu_class_cap() >= CpuClass::Avx512 && __builtin_cpu_supports("avx512f");
}
/** AVX512F/BW/VL + AVX512-VNNI + F16C: what the Q8_0 kernel uses. */
inline bool cpu_has_avx512_vnni() {
    __builtin_cpu_init();
    return cpu_class_cap() >= CpuClass::Avx512Vnni && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("f16c");
}
/** AVX2 + FMA + F16C: the 256-bit kernels' base (q8_0_avx2.cpp). */
inline bool cpu_has_avx2() {
    __builtin_cpu_init();
    return cpu_class_cap() >= CpuClass::Avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}
/** The VEX-encoded 256-bit VPDPBUSD (AVX-VNNI) on top of cpu_has_avx2(). */
inline bool cpu_has_avx_vnni_vex() {
    __builtin_cpu_init();
    return cpu_class_cap() >= CpuClass::AvxVnni && cpu_has_avx2() && __builtin_cpu_supports("avxvnni");
}
/**
 * The same instruction EVEX-encoded (AVX512-VL + AVX512-VNNI): how an AVX512-VNNI CPU without
 * AVX-VNNI (Zen 4, Ice Lake) runs the avx_vnni class when PARAKEET_CPU_CLASS asks for it.
 */
inline bool cpu_has_avx_vnni_evex() {
    __builtin_cpu_init();
    return cpu_class_cap() >= CpuClass::AvxVnni && cpu_has_avx2() && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}
#else
inline bool cpu_has_avx512f() { return false; }
inline bool cpu_has_avx512_vnni() { return false; }
inline bool cpu_has_avx2() { return false; }
inline bool cpu_has_avx_vnni_vex() { return false; }
inline bool cpu_has_avx_vnni_evex() { return false; }
#endif

/**
 * The int8 kernels' instruction sets, best first: a packed int8 matrix (PackedQ8Matrix,
 * PackedI8ChannelMatrix) keeps one layout and runs on any of them. The 256-bit ones serve CPUs
 * without AVX512-VNNI and compute the same integer dot products.
 */
enum class Int8Kernel {
    Vnni512,      // AVX512-VNNI, 512-bit VPDPBUSD
    AvxVnniVex,   // AVX-VNNI, 256-bit VPDPBUSD (VEX)
    AvxVnniEvex,  // the same kernel built for AVX512-VL + VNNI (EVEX), for PARAKEET_CPU_CLASS=avx_vnni there
    Avx2,         // AVX2: VPMADDUBSW + VPMADDWD on sign-moved operands
};

/** Whether this CPU, under PARAKEET_CPU_CLASS, runs kernel `k`. */
inline bool int8_kernel_runs_here(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Vnni512: return cpu_has_avx512_vnni();
        case Int8Kernel::AvxVnniVex: return cpu_has_avx_vnni_vex();
        case Int8Kernel::AvxVnniEvex: return cpu_has_avx_vnni_evex();
        case Int8Kernel::Avx2: return cpu_has_avx2();
    }
    return false;
}

/** The first kernel of the enum's order that runs here; int8_kernels_available() says whether any does. */
inline Int8Kernel int8_kernel_for_this_cpu() {
    for (Int8Kernel k : {Int8Kernel::Vnni512, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex}) {
        if (int8_kernel_runs_here(k)) return k;
    }
    return Int8Kernel::Avx2;
}
inline bool int8_kernels_available() { return int8_kernel_runs_here(int8_kernel_for_this_cpu()); }

/** Thread `ith` of `nth` takes [begin, end) of [0, n): contiguous, even shares. */
struct ThreadShare {
    int64_t begin, end;
};
inline ThreadShare thread_share(int64_t n, int ith, int nth) {
    const int64_t per = (n + nth - 1) / nth;
    const int64_t begin = std::min<int64_t>(n, per * ith);
    return {begin, std::min<int64_t>(n, begin + per)};
}

}  // namespace parakeet
