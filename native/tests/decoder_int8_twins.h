// The int8 twins ModelWeights::quantize_decoder gives a 2-layer transducer's products under
// weightType 'int8' (per row; layer 0's input products staying F32), for the C++ tests.
#pragma once

#include <memory>

#include "int8_decoder_vnni.h"
#include "model_weights.h"

namespace parakeet_tests {

inline std::unique_ptr<parakeet::DecoderWeights::Int8> int8_twins(const parakeet::DecoderWeights & w, int P, int J, int outputs) {
    using parakeet::Int8Rows;
    auto q = std::make_unique<parakeet::DecoderWeights::Int8>();
    q->w_ih.push_back(Int8Rows());
    q->w_ih.emplace_back(w.lstm[1].w_ih, 4 * P, P);
    for (int l = 0; l < 2; ++l) q->w_hh.emplace_back(w.lstm[size_t(l)].w_hh, 4 * P, P);
    q->pred_w = Int8Rows(w.pred_w, J, P);
    q->out_w = Int8Rows(w.out_w, outputs, J);
    return q;
}

}  // namespace parakeet_tests
