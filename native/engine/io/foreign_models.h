// Model files of other projects that users bring labelled "Parakeet": each is refused by name,
// saying what the file is and what to use instead (never "invalid file"). Files the engine reads
// through a dialect (model_dialect.h) are not refused here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace parakeet {

class GgufFile;

/** A non-GGUF container from the first bytes of a file (whisper.cpp's legacy ggml .bin), or "" when not one of those. */
std::string foreign_container_refusal(const uint8_t * head, size_t n);

/**
 * A GGUF of another project or of a kind this engine does not run (transcribe.cpp `stt.*`, CrispASR's flat
 * `parakeet.d_model`, diarization, VAD-only slices, packed-ternary Redux, another architecture), or ""
 * for a file that declares a Parakeet speech-recognition model.
 */
std::string foreign_gguf_refusal(const GgufFile & file);

}  // namespace parakeet
