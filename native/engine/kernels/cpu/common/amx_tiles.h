// The AMX kernels' shared tile basics (f32_amx_bf16, q8_0_amx_bf16, int8_channel_amx, and the
// activation tiles in amx_tiles.cpp): the tile shape, the target the AVX-512 code around the tile
// instructions compiles for, and the conversion of F32 frames into BF16 activation tiles (amx_bf16.h
// says what the tile layouts hold and why). For the kernel files only; the graph sees amx_bf16.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "amx.h"

#ifdef PARAKEET_AMX
#define PARAKEET_AMX_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))

namespace parakeet {
namespace amx_tiles {

constexpr int64_t kTileFrames = 16;
constexpr size_t kTileBytes = 1024;  // 16 rows × 64 bytes

/**
 * Frame tiles [tile_begin, tile_end) of x's `frames` frames (x_stride floats apart) as BF16 tiles at
 * `a` (the whole tensor's): per frame tile, per 32-input step, 16 rows of 32 values (1 KiB), rows
 * past `frames` zero. Rounded to nearest even (VCVTNE2PS2BF16). `a` need not be 64-byte aligned (a
 * ggml tensor).
 */
PARAKEET_AMX_AVX512 void activation_tiles(const float * x, size_t x_stride, int64_t frames, int64_t k, int64_t tile_begin, int64_t tile_end,
                                          uint16_t * a);

}  // namespace amx_tiles
}  // namespace parakeet

#endif
