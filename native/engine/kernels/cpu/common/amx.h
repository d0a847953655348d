// Intel AMX (Advanced Matrix Extensions) for the engine's own kernels: whether this process may use
// its BF16 tiles, and the tile configuration the kernels load.
//
// Three things must hold before a tile instruction runs, or it faults: the CPU reports AMX-TILE and
// AMX-BF16 (with AVX512-BF16 for the conversions around them), the OS saves the tile state (XCR0
// bits 17 and 18), and on Linux the process has asked for the tile data permission
// (arch_prctl ARCH_REQ_XCOMP_PERM; without it the first tile instruction raises SIGILL). Then a
// known-answer probe runs one tile product and compares it with the scalar result, with SIGILL caught
// for its duration, so a CPU, hypervisor or compiler that gets any of it wrong falls back to the VNNI
// kernels instead of crashing.
//
// The tile configuration is written with our own LDTILECFG (inline asm, 64-byte memory operand):
// GCC 12's _tile_loadconfig declares its operand as 8 bytes, so the stores that fill the
// configuration are removed as dead and the first TILELOADD faults (ggml's AMX kernels, built with
// that compiler, crash on these CPUs for that reason).
#pragma once

#include <cstdint>
#include <string>

namespace parakeet {

struct AmxStatus {
    bool usable = false;
    std::string reason;  // why not, or what was checked
};

/**
 * Whether the AMX-BF16 kernels may run in this process: cpu_features() (cpu_features.h) checks it
 * once (CPUID, XCR0, PARAKEET_CPU_CLASS, then the Linux permission and the known-answer probe
 * below). PARAKEET_AMX=0 in the environment turns them off (comparisons, diagnostics).
 */
const AmxStatus & amx_bf16_status();
/** The Linux tile permission and one known-answer tile product (SIGILL caught): for cpu_features() only. */
AmxStatus probe_amx_tiles();
inline bool amx_bf16_usable() { return amx_bf16_status().usable; }

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && defined(__linux__)
#define PARAKEET_AMX 1

/** Palette 1: 8 tiles of up to 16 rows × 64 bytes. */
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t bytes_per_row[16] = {};
    uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64, "LDTILECFG reads 64 bytes");

/** Every tile 16 rows × 64 bytes: what the BF16 GEMM uses for A (16 frames × 32 inputs), B and C. */
inline TileConfig full_tiles() {
    TileConfig c;
    for (int t = 0; t < 8; ++t) {
        c.bytes_per_row[t] = 64;
        c.rows[t] = 16;
    }
    return c;
}

inline void load_tile_config(const TileConfig & config) { asm volatile("ldtilecfg %0" ::"m"(config)); }
/** Returns the tile state to its initial (unused) state: cheaper context switches for this thread. */
inline void release_tiles() { asm volatile("tilerelease" ::: "memory"); }
#endif

}  // namespace parakeet
