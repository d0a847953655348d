// Hyper-parameters of a transducer for the engine's C++ tests (NeMo TDT/RNNT with a ReLU joint).
#pragma once

#include <utility>
#include <vector>

#include "hparams.h"

namespace parakeet_tests {

inline parakeet::Hparams transducer_hparams(int vocab, int pred_hidden, int pred_layers, int joint_hidden, std::vector<int> durations) {
    parakeet::Hparams hp;
    hp.vocab_size = vocab;
    hp.blank_id = vocab;
    hp.pred_hidden = pred_hidden;
    hp.pred_layers = pred_layers;
    hp.joint_hidden = joint_hidden;
    hp.joint_activation = "relu";
    hp.durations = std::move(durations);
    hp.has_transducer = true;
    return hp;
}

}  // namespace parakeet_tests
