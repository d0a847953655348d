// The host allocator's policy for long sessions. glibc's malloc raises its mmap threshold to the size of
// each mmap'ed block that is freed (up to 32 MiB), so after the first freed megabyte-sized buffer every
// later one of that size comes from the heap arenas of the worker threads instead, where blocks of
// varying sizes and lifetimes fragment: a meeting on a streaming model (a stream per segment, ~10 MB of
// caches and buffers each, freed while small blocks land in the hole it leaves) grew the engine's RSS by
// ~100 MB per minute of audio, without bound. (The diarizer stream keeps its buffers for its life instead.)
#pragma once

namespace parakeet {

/**
 * Pins glibc's mmap and trim thresholds at their defaults (128 KiB), which turns the dynamic raise off:
 * buffers that large are mapped and returned to the system when freed, so per-chunk and per-stream
 * buffers cannot pile up in the arenas. Once per process (Model::load, DiarizerModel::create_stream);
 * a no-op where the C library is not glibc.
 */
void keep_large_allocations_mapped();

}  // namespace parakeet
