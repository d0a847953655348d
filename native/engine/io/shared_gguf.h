// One mapping per model file in the process: models loaded from the same,
// unchanged file (a GPU model and its self-test's CPU reference, a model and a
// validation of its file) share its parsed metadata and its read-only mapping
// instead of mapping and pre-faulting it again.
#pragma once

#include <memory>
#include <string>

#include "gguf_file.h"

namespace parakeet {

/**
 * The GGUF at `path`, shared with every model still alive that opened the same file unchanged (same
 * path, device, inode, size and modification time), else opened now. Unmapped opens (use_mmap false)
 * are never shared: their reads seek a file position. Thread-safe. Throws what GgufFile::open throws.
 */
std::shared_ptr<const GgufFile> open_shared_gguf(const std::string & path, bool use_mmap);

}  // namespace parakeet
