// NVIDIA NeMo-Speech.cpp's GGUF schema (general.architecture "asr", converter conversion/asr.py): its
// asr.* keys are translated into the engine's parakeet.* keys and its tensor names mapped onto the
// parakeet.cpp names, so the same checkpoint decodes identically from either file.
#pragma once

#include <string>

namespace parakeet {

class GgufFile;

/** True when the file (through its current view) declares general.architecture = "asr". */
bool is_nvidia_schema(const GgufFile & file);

/** Sets up the view; throws Error(ModelInvalid) naming what of the file this engine cannot run. */
void read_through_nvidia_schema(GgufFile & file);

/** The embedded SentencePiece model (asr.tokenizer.spm_model, base64 in the file), decoded; "" when absent. */
std::string nvidia_sentencepiece_model(const GgufFile & file);

}  // namespace parakeet
