#include "transducer.h"

#include <algorithm>
#include <cmath>

#include "f32_gemv.h"
#include "lstm_cell.h"

namespace parakeet {
namespace {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace

Transducer::Transducer(const Hparams & hp, const DecoderWeights & w) : hp_(hp), w_(w) {
    n_out_ = int(w.out_b.size());
    if (hp.joint_activation == "tanh")
        activation_ = Activation::Tanh;
    else if (hp.joint_activation == "sigmoid")
        activation_ = Activation::Sigmoid;
    gates_.resize(size_t(4 * hp.pred_hidden));
    input_.resize(size_t(hp.pred_hidden));
    hidden_.resize(size_t(hp.joint_hidden));
    input_cache_.resize(size_t(hp.vocab_size) + 2);  // V+1 token rows, then the start of sequence
}

const std::vector<float> & Transducer::input_projection(int token) const {
    // Layer 0's input is one of V+1 embedding rows (or zeros at the start), so
    // W_ih·x + b is computed once per token id and reused: the same numbers,
    // without streaming W_ih from memory for every emitted token.
    const size_t slot = token < 0 ? input_cache_.size() - 1 : size_t(token);
    std::vector<float> & cached = input_cache_[slot];
    if (cached.empty()) {
        const LstmLayer & layer = w_.lstm[0];
        cached.resize(size_t(4 * hp_.pred_hidden));
        if (token < 0) {
            std::fill(input_.begin(), input_.end(), 0.0f);  // NeMo's start of sequence: a zero input
            gemv(layer.w_ih.data(), input_.data(), layer.bias.data(), cached.data(), 4 * hp_.pred_hidden, layer.input, split_);
        } else {
            const float * embedding = w_.embed.data() + size_t(token) * size_t(hp_.pred_hidden);
            gemv(layer.w_ih.data(), embedding, layer.bias.data(), cached.data(), 4 * hp_.pred_hidden, layer.input, split_);
        }
    }
    return cached;
}

PredictionState Transducer::step(const PredictionState & state, int token) const {
    // torch.nn.LSTM, gates in the order i, f, g, o; both biases added.
    const int P = hp_.pred_hidden;
    const DecoderWeights::Int8 * q8 = w_.int8.get();
    PredictionState next;
    next.h.resize(w_.lstm.size());
    next.c.resize(w_.lstm.size());
    const float * x = nullptr;
    for (size_t l = 0; l < w_.lstm.size(); ++l) {
        const LstmLayer & layer = w_.lstm[l];
        if (l == 0) {
            const std::vector<float> & projected = input_projection(token);
            std::copy(projected.begin(), projected.end(), gates_.begin());
        } else if (q8 != nullptr) {
            q8->w_ih[l].gemv(x, layer.bias.data(), gates_.data(), false, int8_inputs_, split_);
        } else {
            gemv(layer.w_ih.data(), x, layer.bias.data(), gates_.data(), 4 * P, layer.input, split_);
        }
        if (q8 != nullptr)
            q8->w_hh[l].gemv(state.h[l].data(), nullptr, gates_.data(), true, int8_inputs_, split_);
        else
            gemv_accumulate(layer.w_hh.data(), state.h[l].data(), gates_.data(), 4 * P, P, split_);
        next.h[l].resize(size_t(P));
        next.c[l].resize(size_t(P));
        lstm_cell(gates_.data(), state.c[l].data(), next.c[l].data(), next.h[l].data(), P);
        x = next.h[l].data();
    }
    // NeMo RNNTJoint.project_prednet, cached until the next emitted label.
    next.pred_proj.resize(size_t(hp_.joint_hidden));
    if (q8 != nullptr)
        q8->pred_w.gemv(x, w_.pred_b.data(), next.pred_proj.data(), false, int8_inputs_, split_);
    else
        gemv(w_.pred_w.data(), x, w_.pred_b.data(), next.pred_proj.data(), hp_.joint_hidden, P, split_);
    return next;
}

PredictionState Transducer::initial_state() const {
    PredictionState zero;
    zero.h.assign(w_.lstm.size(), std::vector<float>(size_t(hp_.pred_hidden), 0.0f));
    zero.c = zero.h;
    return step(zero, -1);  // start of sequence
}

PredictionState Transducer::advance(const PredictionState & state, int token) const { return step(state, token); }

void Transducer::joint_block(const float * f, int count, const PredictionState & state, std::vector<float> & logits) const {
    const int J = hp_.joint_hidden;
    hidden_block_.resize(size_t(count) * size_t(J));
    for (int c = 0; c < count; ++c) {
        for (int j = 0; j < J; ++j) {
            const float z = f[size_t(c) * size_t(J) + size_t(j)] + state.pred_proj[size_t(j)];
            hidden_block_[size_t(c) * size_t(J) + size_t(j)] = activation_ == Activation::Relu   ? (z > 0.0f ? z : 0.0f)
                                                               : activation_ == Activation::Tanh ? std::tanh(z)
                                                                                                 : sigmoid(z);
        }
    }
    logits.resize(size_t(count) * size_t(n_out_));
    if (w_.int8 != nullptr)
        w_.int8->out_w.gemv_block(hidden_block_.data(), count, w_.out_b.data(), logits.data(), int8_inputs_, split_);
    else
        gemv_block(w_.out_w.data(), hidden_block_.data(), count, w_.out_b.data(), logits.data(), n_out_, J, split_);
}

void Transducer::joint(const float * f, const PredictionState & state, std::vector<float> & logits) const {
    const int J = hp_.joint_hidden;
    for (int j = 0; j < J; ++j) {
        const float z = f[j] + state.pred_proj[size_t(j)];
        hidden_[size_t(j)] = activation_ == Activation::Relu ? (z > 0.0f ? z : 0.0f) : activation_ == Activation::Tanh ? std::tanh(z) : sigmoid(z);
    }
    logits.resize(size_t(n_out_));
    if (w_.int8 != nullptr)
        w_.int8->out_w.gemv(hidden_.data(), w_.out_b.data(), logits.data(), false, int8_inputs_, split_);
    else
        gemv(w_.out_w.data(), hidden_.data(), w_.out_b.data(), logits.data(), n_out_, J, split_);
}

}  // namespace parakeet
