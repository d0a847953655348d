#include "transducer.h"

#include <algorithm>
#include <cmath>

#include "cpu_ops.h"
#include "f32_gemv.h"
#include "simd_math.h"

namespace parakeet {
namespace {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

/** torch.nn.LSTM's cell from its gate pre-activations (order i, f, g, o): c' = f·c + i·g, h' = o·tanh(c'). */
void lstm_cell_scalar(const float * gates, const float * c, float * c_out, float * h_out, int P) {
    for (int i = 0; i < P; ++i) {
        const float in_gate = sigmoid(gates[i]);
        const float forget = sigmoid(gates[P + i]);
        const float cell = std::tanh(gates[2 * P + i]);
        const float out_gate = sigmoid(gates[3 * P + i]);
        const float cn = forget * c[i] + in_gate * cell;
        c_out[i] = cn;
        h_out[i] = out_gate * std::tanh(cn);
    }
}

#ifdef PARAKEET_X86
// The same on 16 lanes, tanh(x) = 2·σ(2x) − 1 through the fused ops' expf (simd_math.h): absolute
// error ≈ 1e-7, where the scalar libm calls were a fifth of the int8 decoder's time per token.
PARAKEET_AVX512 __m512 tanh512(__m512 x) {
    const __m512 two = _mm512_set1_ps(2.0f);
    return _mm512_fmsub_ps(two, sigmoid512(_mm512_mul_ps(two, x)), _mm512_set1_ps(1.0f));
}

PARAKEET_AVX512 void lstm_cell_avx512(const float * gates, const float * c, float * c_out, float * h_out, int P) {
    for (int i = 0; i < P; i += 16) {
        const __mmask16 m = P - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (P - i)) - 1u);
        const __m512 in_gate = sigmoid512(_mm512_maskz_loadu_ps(m, gates + i));
        const __m512 forget = sigmoid512(_mm512_maskz_loadu_ps(m, gates + P + i));
        const __m512 cell = tanh512(_mm512_maskz_loadu_ps(m, gates + 2 * P + i));
        const __m512 out_gate = sigmoid512(_mm512_maskz_loadu_ps(m, gates + 3 * P + i));
        const __m512 cn = _mm512_fmadd_ps(forget, _mm512_maskz_loadu_ps(m, c + i), _mm512_mul_ps(in_gate, cell));
        _mm512_mask_storeu_ps(c_out + i, m, cn);
        _mm512_mask_storeu_ps(h_out + i, m, _mm512_mul_ps(out_gate, tanh512(cn)));
    }
}
#endif

void lstm_cell(const float * gates, const float * c, float * c_out, float * h_out, int P) {
#ifdef PARAKEET_X86
    static const bool avx512 = cpu_has_avx512f();
    if (avx512) return lstm_cell_avx512(gates, c, c_out, h_out, P);
#endif
    lstm_cell_scalar(gates, c, c_out, h_out, P);
}
}  // namespace

Transducer::Transducer(const Hparams & hp, const DecoderWeights & w) : hp_(hp), w_(w) {
    n_out_ = int(w.out_b.size());
    if (hp.joint_activation == "tanh") activation_ = Activation::Tanh;
    else if (hp.joint_activation == "sigmoid") activation_ = Activation::Sigmoid;
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
        if (q8 != nullptr) q8->w_hh[l].gemv(state.h[l].data(), nullptr, gates_.data(), true, int8_inputs_, split_);
        else gemv_accumulate(layer.w_hh.data(), state.h[l].data(), gates_.data(), 4 * P, P, split_);
        next.h[l].resize(size_t(P));
        next.c[l].resize(size_t(P));
        lstm_cell(gates_.data(), state.c[l].data(), next.c[l].data(), next.h[l].data(), P);
        x = next.h[l].data();
    }
    // NeMo RNNTJoint.project_prednet, cached until the next emitted label.
    next.pred_proj.resize(size_t(hp_.joint_hidden));
    if (q8 != nullptr) q8->pred_w.gemv(x, w_.pred_b.data(), next.pred_proj.data(), false, int8_inputs_, split_);
    else gemv(w_.pred_w.data(), x, w_.pred_b.data(), next.pred_proj.data(), hp_.joint_hidden, P, split_);
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
            hidden_block_[size_t(c) * size_t(J) + size_t(j)] = activation_ == Activation::Relu ? (z > 0.0f ? z : 0.0f)
                                                             : activation_ == Activation::Tanh ? std::tanh(z) : sigmoid(z);
        }
    }
    logits.resize(size_t(count) * size_t(n_out_));
    if (w_.int8 != nullptr) w_.int8->out_w.gemv_block(hidden_block_.data(), count, w_.out_b.data(), logits.data(), int8_inputs_, split_);
    else gemv_block(w_.out_w.data(), hidden_block_.data(), count, w_.out_b.data(), logits.data(), n_out_, J, split_);
}

void Transducer::joint(const float * f, const PredictionState & state, std::vector<float> & logits) const {
    const int J = hp_.joint_hidden;
    for (int j = 0; j < J; ++j) {
        const float z = f[j] + state.pred_proj[size_t(j)];
        hidden_[size_t(j)] = activation_ == Activation::Relu ? (z > 0.0f ? z : 0.0f)
                             : activation_ == Activation::Tanh ? std::tanh(z) : sigmoid(z);
    }
    logits.resize(size_t(n_out_));
    if (w_.int8 != nullptr) w_.int8->out_w.gemv(hidden_.data(), w_.out_b.data(), logits.data(), false, int8_inputs_, split_);
    else gemv(w_.out_w.data(), hidden_.data(), w_.out_b.data(), logits.data(), n_out_, J, split_);
}

}  // namespace parakeet
