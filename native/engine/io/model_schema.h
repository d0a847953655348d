// The parakeet.cpp GGUF schema: hyper-parameters from keys (with defaults and
// inference from tensor shapes), head detection, and shape validation of every
// tensor the engine uses (spec §1).
#pragma once

#include <string>
#include <vector>

#include "gguf_file.h"
#include "hparams.h"

namespace parakeet {

/** Reads and sanity-checks every hyper-parameter; throws Error(ModelInvalid) naming the key. */
Hparams read_hparams(const GgufFile & file);

/**
 * Only the front end's keys (parakeet.preprocessor.*, parakeet.encoder.*): the FastConformer of a model
 * that is not a speech recognizer (Sortformer diarizers); the caller checks its identity.
 */
Hparams read_frontend_hparams(const GgufFile & file);

/** Checks that every tensor the engine will use exists with the expected shape. */
void validate_tensors(const GgufFile & file, const Hparams & hp);

/** Tensor names of the subsampling convs: stage 0 is conv.0; stage s ≥ 1 is the depthwise conv.(3s−1) + pointwise conv.(3s). */
std::string subsampling_conv_name(int index);

/**
 * The prompt index (one-hot position) of a locale of a prompt model's dictionary, or −1: "auto" is the
 * dictionary's "auto" entry where it has one, else its entry for parakeet.prompt.default_lang.
 */
int prompt_index_for(const Hparams & hp, const std::string & language);

/** True for the matmul weights parakeet.cpp may quantize (spec §1.7 allowlist). */
bool is_quantizable_name(const std::string & name);

}  // namespace parakeet
