// NVIDIA NeMo-Speech.cpp's GGUF schema for Streaming Sortformer diarizers (general.architecture
// "sortformer", converter conversion/diarization.py): its sortformer.* keys are translated into the
// engine's parakeet.* / parakeet.diar.* keys and its tensor names mapped onto the NeMo state_dict names
// a parakeet.cpp diarizer file holds, so the same checkpoint diarizes identically from either file.
#pragma once

namespace parakeet {

class GgufFile;

/** True when the file declares general.architecture = "sortformer". */
bool is_nvidia_sortformer_schema(const GgufFile & file);

/** Sets up the view; throws Error(ModelInvalid) naming what of the file this engine cannot run. */
void read_through_nvidia_sortformer_schema(GgufFile & file);

}  // namespace parakeet
