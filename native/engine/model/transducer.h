// The transducer's prediction network and joint on the host (NeMo RNNTDecoder
// + RNNTJoint), used step by step by the greedy RNNT/TDT decoders.
#pragma once

#include <vector>

#include "hparams.h"
#include "model_weights.h"

namespace parakeet {

class RowSplit;

/** LSTM state of the prediction network plus its cached output projection. */
struct PredictionState {
    std::vector<std::vector<float>> h, c;  // per layer [P]
    std::vector<float> pred_proj;          // joint.pred(g) for the current state [J]
};

class Transducer {
public:
    Transducer(const Hparams & hp, const DecoderWeights & w);

    /** State after the start-of-sequence step (zero input, zero state). */
    PredictionState initial_state() const;
    /** Feeds `token` (NeMo: the last emitted label) and returns the next state. */
    PredictionState advance(const PredictionState & state, int token) const;
    /** Raw joint logits for one encoder frame's projection f [J]: [V+1 (+ Nd)]. */
    void joint(const float * f, const PredictionState & state, std::vector<float> & logits) const;
    /** Joint logits of `count` consecutive frames (projections `f`, row stride J) under one state: [count][outputs]. */
    void joint_block(const float * f, int count, const PredictionState & state, std::vector<float> & logits) const;
    int outputs() const { return n_out_; }
    /** Shares the products' rows with `split`'s helper until reset to nullptr (row_split.h). */
    void set_split(RowSplit * split) const { split_ = split; }

private:
    /** One LSTM step fed with `token`'s embedding (−1: the start-of-sequence zero input). */
    PredictionState step(const PredictionState & state, int token) const;
    const std::vector<float> & input_projection(int token) const;

    const Hparams & hp_;
    const DecoderWeights & w_;
    int n_out_ = 0;
    enum class Activation { Relu, Tanh, Sigmoid } activation_ = Activation::Relu;
    mutable std::vector<float> gates_, input_, hidden_, hidden_block_;
    mutable std::vector<std::vector<float>> input_cache_;  // W_ih·embed[token] + b of layer 0, filled on first use
    mutable Int8Inputs int8_inputs_;                       // weightType int8: this state's quantized input vectors
    mutable RowSplit * split_ = nullptr;                   // set for one decoding pass with two threads
};

}  // namespace parakeet
