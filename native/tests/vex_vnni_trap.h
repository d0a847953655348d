// Runs VEX-coded AVX-VNNI code on a CPU without AVX-VNNI (a test tool): while a VexVnniTrap lives, the
// SIGILL that VPDPBUSD/VPDPBUSDS/VPDPWSSD/VPDPWSSDS (VEX.66.0F38 50–53, 128 or 256 bits) raise is
// caught, the instruction is computed in scalar code on the interrupted thread's saved registers (and
// its memory operand), and execution resumes after it. Everything else in the kernel runs as compiled,
// so the `*_avx_vnni` rows' real machine code executes on an AVX512-VNNI CPU (Zen 4), which otherwise
// only runs their `_evex` build. x86-64 Linux only (the signal frame's XSAVE image); `available()` says.
#pragma once

#include <cstdint>

namespace parakeet_tests {

class VexVnniTrap {
public:
    VexVnniTrap();
    ~VexVnniTrap();
    VexVnniTrap(const VexVnniTrap &) = delete;
    VexVnniTrap & operator=(const VexVnniTrap &) = delete;

    /** The trap can run here: x86-64 Linux with the AVX state in signal frames. */
    static bool available();
    /** VNNI instructions computed since the process started (every thread). */
    static uint64_t emulated();

private:
    bool installed_ = false;
};

}  // namespace parakeet_tests
