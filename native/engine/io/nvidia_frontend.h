// The part of NVIDIA NeMo-Speech.cpp's GGUF schema its ASR files ("asr", nvidia_schema.h) and its
// Sortformer diarizers ("sortformer", nvidia_sortformer_schema.h) share: the FastConformer encoder's and
// the preprocessor's keys under the architecture's prefix (asr.encoder.*, sortformer.encoder.*, …), the
// mel filterbank as preprocessor.fb and no window tensor.
#pragma once

#include <string>

#include "ggml.h"
#include "gguf.h"

namespace parakeet {

class GgufFile;

/** Copies the key `from` to `to` (in the overlay, integers as INT64) when the file has it. */
void copy_int(const GgufFile & f, gguf_context * overlay, const std::string & from, const char * to);
void copy_bool(const GgufFile & f, gguf_context * overlay, const std::string & from, const char * to);
void copy_string(const GgufFile & f, gguf_context * overlay, const std::string & from, const char * to);

/** `prefix`.encoder.* and `prefix`.preprocessor.* as the engine's parakeet.encoder.* / parakeet.preprocessor.* keys. */
void translate_frontend_keys(const GgufFile & f, gguf_context * overlay, const std::string & prefix);

/**
 * After translate_frontend_keys: preprocessor.fb as preprocessor.featurizer.fb (NeMo's Slaney filterbank
 * where the file has none) and the STFT window the schema does not store.
 */
void map_frontend_tensors(GgufFile & f, const std::string & prefix);

}  // namespace parakeet
