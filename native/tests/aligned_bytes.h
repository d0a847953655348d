// Zeroed storage for a packed matrix, whose kernels load its panels with aligned 64-byte loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

/** `bytes` zeroed bytes inside `storage`, starting on a 64-byte boundary; valid while `storage` is not resized. */
inline uint8_t * aligned64(std::vector<uint8_t> & storage, size_t bytes) {
    storage.assign(bytes + 64, 0);
    return storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
}
