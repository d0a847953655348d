// The language prompt of a prompt-conditioned RNNT (Nemotron-3.5; NeMo's prompt_kernel in
// EncDecRNNTBPEModelWithPrompt): each encoder frame is extended with a one-hot of the chosen prompt
// and mapped back to d_model before the transducer's joint reads it.
#pragma once

#include <vector>

#include "ggml.h"
#include "hparams.h"
#include "model_weights.h"

namespace parakeet {

/** Linear2(ReLU(Linear1([x | onehot]))) over encoder frames x [D, T]; onehot [P, T] is a graph input (prompt_onehot). */
ggml_tensor * build_prompt_kernel(ggml_context * ctx, const EncoderWeights & w, ggml_tensor * x, ggml_tensor * onehot);

/** The one-hot rows for `frames` frames of prompt `index`: [frames][P]. */
std::vector<float> prompt_onehot(const Hparams & hp, int index, int frames);

}  // namespace parakeet
