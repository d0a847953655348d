// The instruction sets one packed int8 layout runs on (PackedQ8Matrix, PackedI8ChannelMatrix): the
// 512-bit VNNI kernel and the 256-bit ones, which compute the same integer dot products for CPUs
// without AVX512-VNNI. The kernel registry (registry.cpp) builds each matrix for one of them, per
// row; the default below is for the tests and benchmarks that build matrices directly.
#pragma once

#include <initializer_list>

#include "cpu_features.h"

namespace parakeet {

enum class Int8Kernel {
    Vnni512,      // AVX512-VNNI, 512-bit VPDPBUSD (q8_0_vnni, int8_channel_vnni)
    AvxVnniVex,   // AVX-VNNI, 256-bit VPDPBUSD, VEX (q8_0_avx_vnni, int8_channel_avx_vnni)
    AvxVnniEvex,  // the same kernel built for AVX512-VL + VNNI, EVEX (the _evex rows: class avx_vnni on Zen 4)
    Avx2,         // AVX2: VPMADDUBSW + VPMADDWD on sign-moved operands (q8_0_avx2, int8_channel_avx2)
};

/** Whether this CPU, under PARAKEET_CPU_CLASS, runs kernel `k` (the registry rows' class and `needs`). */
inline bool int8_kernel_runs_here(Int8Kernel k, const CpuFeatures & cpu = cpu_features()) {
    switch (k) {
        case Int8Kernel::Vnni512: return cpu.has(CpuClass::Avx512Vnni);
        case Int8Kernel::AvxVnniVex: return cpu.avx_vnni_vex();
        case Int8Kernel::AvxVnniEvex: return cpu.avx_vnni_evex();
        case Int8Kernel::Avx2: return cpu.has(CpuClass::Avx2);
    }
    return false;
}

/** The first kernel of the enum's order that runs here (Avx2 where none does; int8_kernels_available() says whether any does). */
inline Int8Kernel int8_kernel_for_this_cpu() {
    for (Int8Kernel k : {Int8Kernel::Vnni512, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex}) {
        if (int8_kernel_runs_here(k)) return k;
    }
    return Int8Kernel::Avx2;
}
inline bool int8_kernels_available() { return int8_kernel_runs_here(int8_kernel_for_this_cpu()); }

}  // namespace parakeet
