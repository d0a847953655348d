// Which GGUF schema a model file is written in, and the view that lets the engine read it as its own
// (parakeet.cpp's): NVIDIA NeMo-Speech.cpp files (nvidia_schema.h, nvidia_sortformer_schema.h) and parakeet.cpp bundles
// (bundle_format.h). Other projects' files are refused by name (foreign_models.h).
#pragma once

#include <string>

#include "parakeet/parakeet.h"

namespace parakeet {

class GgufFile;

/** Sets up the file's view for its schema, once, right after it is opened; parakeet.cpp files are left as they are. */
void adopt_dialect(GgufFile & file);

/** ModelInfo's schema, bundle components and SentencePiece size for a file adopt_dialect has seen. */
void describe_dialect(const GgufFile & file, ModelInfo & info);

/** The SentencePiece model the file embeds (NeMo-Speech.cpp's), decoded; "" when it has none. */
std::string embedded_sentencepiece_model(const GgufFile & file);

}  // namespace parakeet
