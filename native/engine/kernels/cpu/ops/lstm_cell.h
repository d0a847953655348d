// torch.nn.LSTM's cell from its gate pre-activations, for the transducer's prediction network
// (transducer.cpp): AVX-512 where the CPU has it, else scalar.
#pragma once

namespace parakeet {

/** c' = f·c + i·g, h' = o·tanh(c') over P cells; gates [4P] in PyTorch's order i, f, g, o. */
void lstm_cell(const float * gates, const float * c, float * c_out, float * h_out, int P);

}  // namespace parakeet
