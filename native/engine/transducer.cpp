#include "transducer.h"

#include <cmath>

#include "gemv.h"

namespace parakeet {
namespace {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}

Transducer::Transducer(const Hparams & hp, const DecoderWeights & w) : hp_(hp), w_(w) {
    n_out_ = int(w.out_b.size());
    if (hp.joint_activation == "tanh") activation_ = Activation::Tanh;
    else if (hp.joint_activation == "sigmoid") activation_ = Activation::Sigmoid;
    gates_.resize(size_t(4 * hp.pred_hidden));
    input_.resize(size_t(hp.pred_hidden));
    hidden_.resize(size_t(hp.joint_hidden));
}

PredictionState Transducer::step(const PredictionState & state, const float * input) const {
    // torch.nn.LSTM, gates in the order i, f, g, o; both biases added.
    const int P = hp_.pred_hidden;
    PredictionState next;
    next.h.resize(w_.lstm.size());
    next.c.resize(w_.lstm.size());
    const float * x = input;
    for (size_t l = 0; l < w_.lstm.size(); ++l) {
        const LstmLayer & layer = w_.lstm[l];
        gemv(layer.w_ih.data(), x, layer.bias.data(), gates_.data(), 4 * P, layer.input);
        gemv_accumulate(layer.w_hh.data(), state.h[l].data(), gates_.data(), 4 * P, P);
        next.h[l].resize(size_t(P));
        next.c[l].resize(size_t(P));
        for (int i = 0; i < P; ++i) {
            const float in_gate = sigmoid(gates_[size_t(i)]);
            const float forget = sigmoid(gates_[size_t(P + i)]);
            const float cell = std::tanh(gates_[size_t(2 * P + i)]);
            const float out_gate = sigmoid(gates_[size_t(3 * P + i)]);
            const float c = forget * state.c[l][size_t(i)] + in_gate * cell;
            next.c[l][size_t(i)] = c;
            next.h[l][size_t(i)] = out_gate * std::tanh(c);
        }
        x = next.h[l].data();
    }
    // NeMo RNNTJoint.project_prednet, cached until the next emitted label.
    next.pred_proj.resize(size_t(hp_.joint_hidden));
    gemv(w_.pred_w.data(), x, w_.pred_b.data(), next.pred_proj.data(), hp_.joint_hidden, P);
    return next;
}

PredictionState Transducer::initial_state() const {
    PredictionState zero;
    zero.h.assign(w_.lstm.size(), std::vector<float>(size_t(hp_.pred_hidden), 0.0f));
    zero.c = zero.h;
    // Start of sequence: NeMo feeds a zero vector (the blank/padding embedding row).
    std::fill(input_.begin(), input_.end(), 0.0f);
    return step(zero, input_.data());
}

PredictionState Transducer::advance(const PredictionState & state, int token) const {
    const float * embedding = w_.embed.data() + size_t(token) * size_t(hp_.pred_hidden);
    return step(state, embedding);
}

void Transducer::joint(const float * f, const PredictionState & state, std::vector<float> & logits) const {
    const int J = hp_.joint_hidden;
    for (int j = 0; j < J; ++j) {
        const float z = f[j] + state.pred_proj[size_t(j)];
        hidden_[size_t(j)] = activation_ == Activation::Relu ? (z > 0.0f ? z : 0.0f)
                             : activation_ == Activation::Tanh ? std::tanh(z) : sigmoid(z);
    }
    logits.resize(size_t(n_out_));
    gemv(w_.out_w.data(), hidden_.data(), w_.out_b.data(), logits.data(), n_out_, J);
}

}  // namespace parakeet
