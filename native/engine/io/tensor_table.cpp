#include "tensor_table.h"

namespace parakeet {
namespace {

using H = const Hparams &;
using R = TensorRole;
using S = TensorScope;
using N = TensorNeed;
using E = EncoderWeights;
using St = SubsamplingStageWeights;
using L = ConformerLayerWeights;

int64_t v1(H h) { return int64_t(h.vocab_size) + 1; }
TensorShape d(H h) { return {h.d_model}; }
TensorShape c(H h) { return {h.subsampling_channels}; }
TensorShape conv3x3(H h) { return {3, 3, 1, h.subsampling_channels}; }

/** A Model-scope row placed into EncoderWeights. */
TensorSpec model(const char * name, N need, R role, TensorShape (*shape)(H), ggml_tensor * E::*slot = nullptr) {
    return {name, S::Model, need, role, shape, slot, nullptr, nullptr};
}
TensorSpec stage(const char * name, R role, TensorShape (*shape)(H), ggml_tensor * St::*slot = nullptr) {
    return {name, S::SubsamplingStage, N::Always, role, shape, nullptr, slot, nullptr};
}
TensorSpec layer(const char * name, N need, R role, TensorShape (*shape)(H), ggml_tensor * L::*slot = nullptr) {
    return {name, S::EncoderLayer, need, role, shape, nullptr, nullptr, slot};
}
TensorSpec lstm(const char * name, TensorShape (*shape)(H)) {
    return {name, S::PredictionLayer, N::Transducer, R::Host, shape, nullptr, nullptr, nullptr};
}

/** `row` with what its product feeds (MatmulUse). */
TensorSpec feeding(MatmulUse use, TensorSpec row) {
    row.matmul = use;
    return row;
}

std::vector<TensorSpec> build_table() {
    const N A = N::Always, B = N::EncoderBias;
    return {
            // preprocessor (NeMo AudioToMelSpectrogramPreprocessor)
            model("preprocessor.featurizer.fb", A, R::Host,
                  [](H h) -> TensorShape {
                      return {h.n_fft / 2 + 1, h.n_mels, 1};
                  }),
            model("preprocessor.featurizer.window", A, R::Host, [](H h) -> TensorShape { return {h.win_length}; }),
            // subsampling (ConvSubsampling, dw_striding): conv.0, then per stage a depthwise and a pointwise conv
            model("encoder.pre_encode.conv.0.weight", A, R::Derived, conv3x3),
            model("encoder.pre_encode.conv.0.bias", A, R::Vector, c, &E::conv0_b),
            stage("encoder.pre_encode.conv.{dw}.weight", R::Derived, conv3x3),
            stage("encoder.pre_encode.conv.{dw}.bias", R::Derived, c),
            stage(
                    "encoder.pre_encode.conv.{pw}.weight", R::Matmul,
                    [](H h) -> TensorShape {
                        return {1, 1, h.subsampling_channels, h.subsampling_channels};
                    },
                    &St::pw_w),
            stage("encoder.pre_encode.conv.{pw}.bias", R::Derived, c),
            model(
                    "encoder.pre_encode.out.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {int64_t(h.subsampling_channels) * h.freq_after_subsampling(), h.d_model};
                    },
                    &E::sub_out_w),
            model("encoder.pre_encode.out.bias", A, R::Vector, d, &E::sub_out_b),
            // conformer layers (ConformerLayer)
            layer("encoder.layers.{i}.norm_feed_forward1.weight", A, R::Vector, d, &L::ff1_norm_w),
            layer("encoder.layers.{i}.norm_feed_forward1.bias", A, R::Vector, d, &L::ff1_norm_b),
            layer("encoder.layers.{i}.norm_self_att.weight", A, R::Vector, d, &L::att_norm_w),
            layer("encoder.layers.{i}.norm_self_att.bias", A, R::Vector, d, &L::att_norm_b),
            layer("encoder.layers.{i}.norm_conv.weight", A, R::Vector, d, &L::conv_norm_w),
            layer("encoder.layers.{i}.norm_conv.bias", A, R::Vector, d, &L::conv_norm_b),
            layer("encoder.layers.{i}.norm_feed_forward2.weight", A, R::Vector, d, &L::ff2_norm_w),
            layer("encoder.layers.{i}.norm_feed_forward2.bias", A, R::Vector, d, &L::ff2_norm_b),
            layer("encoder.layers.{i}.norm_out.weight", A, R::Vector, d, &L::out_norm_w),
            layer("encoder.layers.{i}.norm_out.bias", A, R::Vector, d, &L::out_norm_b),
            layer(
                    "encoder.layers.{i}.feed_forward1.linear1.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.d_model, h.ff_dim};
                    },
                    &L::ff1_w1),
            layer(
                    "encoder.layers.{i}.feed_forward1.linear1.bias", B, R::Vector, [](H h) -> TensorShape { return {h.ff_dim}; }, &L::ff1_b1),
            layer(
                    "encoder.layers.{i}.feed_forward1.linear2.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.ff_dim, h.d_model};
                    },
                    &L::ff1_w2),
            layer("encoder.layers.{i}.feed_forward1.linear2.bias", B, R::Vector, d, &L::ff1_b2),
            layer(
                    "encoder.layers.{i}.feed_forward2.linear1.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.d_model, h.ff_dim};
                    },
                    &L::ff2_w1),
            layer(
                    "encoder.layers.{i}.feed_forward2.linear1.bias", B, R::Vector, [](H h) -> TensorShape { return {h.ff_dim}; }, &L::ff2_b1),
            layer(
                    "encoder.layers.{i}.feed_forward2.linear2.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.ff_dim, h.d_model};
                    },
                    &L::ff2_w2),
            layer("encoder.layers.{i}.feed_forward2.linear2.bias", B, R::Vector, d, &L::ff2_b2),
            layer(
                    "encoder.layers.{i}.self_attn.linear_q.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.d_model, h.d_model};
                    },
                    &L::q_w),
            layer("encoder.layers.{i}.self_attn.linear_q.bias", B, R::Vector, d, &L::q_b),
            layer(
                    "encoder.layers.{i}.self_attn.linear_k.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.d_model, h.d_model};
                    },
                    &L::k_w),
            layer("encoder.layers.{i}.self_attn.linear_k.bias", B, R::Vector, d, &L::k_b),
            layer(
                    "encoder.layers.{i}.self_attn.linear_v.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.d_model, h.d_model};
                    },
                    &L::v_w),
            layer("encoder.layers.{i}.self_attn.linear_v.bias", B, R::Vector, d, &L::v_b),
            layer(
                    "encoder.layers.{i}.self_attn.linear_out.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {h.d_model, h.d_model};
                    },
                    &L::out_w),
            layer("encoder.layers.{i}.self_attn.linear_out.bias", B, R::Vector, d, &L::out_b),
            feeding(MatmulUse::RelPos, layer(
                                               "encoder.layers.{i}.self_attn.linear_pos.weight", A, R::Matmul,
                                               [](H h) -> TensorShape {
                                                   return {h.d_model, h.d_model};
                                               },
                                               &L::pos_w)),
            layer(
                    "encoder.layers.{i}.self_attn.pos_bias_u", A, R::Vector,
                    [](H h) -> TensorShape {
                        return {h.head_dim(), h.n_heads};
                    },
                    &L::pos_bias_u),
            layer(
                    "encoder.layers.{i}.self_attn.pos_bias_v", A, R::Vector,
                    [](H h) -> TensorShape {
                        return {h.head_dim(), h.n_heads};
                    },
                    &L::pos_bias_v),
            layer(
                    "encoder.layers.{i}.conv.pointwise_conv1.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {1, h.d_model, 2 * int64_t(h.d_model)};
                    },
                    &L::pw1_w),
            layer(
                    "encoder.layers.{i}.conv.pointwise_conv1.bias", B, R::Vector, [](H h) -> TensorShape { return {2 * int64_t(h.d_model)}; },
                    &L::pw1_b),
            layer("encoder.layers.{i}.conv.depthwise_conv.weight", A, R::Derived,
                  [](H h) -> TensorShape {
                      return {h.conv_kernel, 1, h.d_model};
                  }),
            layer("encoder.layers.{i}.conv.depthwise_conv.bias", B, R::Derived, d),
            // The conv module's norm: batch norm is folded into the depthwise conv; layer norm runs as stored.
            layer("encoder.layers.{i}.conv.batch_norm.weight", N::BatchNormConv, R::Derived, d),
            layer("encoder.layers.{i}.conv.batch_norm.bias", N::BatchNormConv, R::Derived, d),
            layer("encoder.layers.{i}.conv.batch_norm.weight", N::LayerNormConv, R::Vector, d, &L::conv_ln_w),
            layer("encoder.layers.{i}.conv.batch_norm.bias", N::LayerNormConv, R::Vector, d, &L::conv_ln_b),
            layer("encoder.layers.{i}.conv.batch_norm.running_mean", N::BatchNormConv, R::Derived, d),
            layer("encoder.layers.{i}.conv.batch_norm.running_var", N::BatchNormConv, R::Derived, d),
            layer(
                    "encoder.layers.{i}.conv.pointwise_conv2.weight", A, R::Matmul,
                    [](H h) -> TensorShape {
                        return {1, h.d_model, h.d_model};
                    },
                    &L::pw2_w),
            layer("encoder.layers.{i}.conv.pointwise_conv2.bias", B, R::Vector, d, &L::pw2_b),
            // CTC head (ConvASRDecoder)
            model(
                    "{ctc}decoder_layers.0.weight", N::Ctc, R::Matmul,
                    [](H h) -> TensorShape {
                        return {1, h.d_model, v1(h)};
                    },
                    &E::ctc_w),
            model(
                    "{ctc}decoder_layers.0.bias", N::Ctc, R::Vector, [](H h) -> TensorShape { return {v1(h)}; }, &E::ctc_b),
            // transducer: prediction network (RNNTDecoder) and joint (RNNTJoint); joint.enc runs in the encoder graph
            model("decoder.prediction.embed.weight", N::Transducer, R::Host,
                  [](H h) -> TensorShape {
                      return {h.pred_hidden, v1(h)};
                  }),
            lstm("decoder.prediction.dec_rnn.lstm.weight_ih_l{i}",
                 [](H h) -> TensorShape {
                     return {h.pred_hidden, 4 * int64_t(h.pred_hidden)};
                 }),
            lstm("decoder.prediction.dec_rnn.lstm.weight_hh_l{i}",
                 [](H h) -> TensorShape {
                     return {h.pred_hidden, 4 * int64_t(h.pred_hidden)};
                 }),
            lstm("decoder.prediction.dec_rnn.lstm.bias_ih_l{i}", [](H h) -> TensorShape { return {4 * int64_t(h.pred_hidden)}; }),
            lstm("decoder.prediction.dec_rnn.lstm.bias_hh_l{i}", [](H h) -> TensorShape { return {4 * int64_t(h.pred_hidden)}; }),
            // language prompt (Nemotron-3.5): Linear(D + P → 2D) → ReLU → Linear(2D → D) over [encoder frame | one-hot prompt]
            model(
                    "prompt_kernel.0.weight", N::Prompt, R::Vector,
                    [](H h) -> TensorShape {
                        return {int64_t(h.d_model) + h.num_prompts, 2 * int64_t(h.d_model)};
                    },
                    &E::prompt1_w),
            model(
                    "prompt_kernel.0.bias", N::Prompt, R::Vector, [](H h) -> TensorShape { return {2 * int64_t(h.d_model)}; }, &E::prompt1_b),
            model(
                    "prompt_kernel.2.weight", N::Prompt, R::Vector,
                    [](H h) -> TensorShape {
                        return {2 * int64_t(h.d_model), h.d_model};
                    },
                    &E::prompt2_w),
            model("prompt_kernel.2.bias", N::Prompt, R::Vector, d, &E::prompt2_b),
            feeding(MatmulUse::Exact, model(
                                              "joint.enc.weight", N::Transducer, R::Matmul,
                                              [](H h) -> TensorShape {
                                                  return {h.d_model, h.joint_hidden};
                                              },
                                              &E::joint_enc_w)),
            model(
                    "joint.enc.bias", N::Transducer, R::Vector, [](H h) -> TensorShape { return {h.joint_hidden}; }, &E::joint_enc_b),
            model("joint.pred.weight", N::Transducer, R::Host,
                  [](H h) -> TensorShape {
                      return {h.pred_hidden, h.joint_hidden};
                  }),
            model("joint.pred.bias", N::Transducer, R::Host, [](H h) -> TensorShape { return {h.joint_hidden}; }),
            model("joint.joint_net.2.weight", N::Transducer, R::Host,
                  [](H h) -> TensorShape {
                      return {h.joint_hidden, v1(h) + int64_t(h.durations.size())};
                  }),
            model("joint.joint_net.2.bias", N::Transducer, R::Host, [](H h) -> TensorShape { return {v1(h) + int64_t(h.durations.size())}; }),
    };
}

bool holds(TensorNeed need, H hp) {
    switch (need) {
        case N::Always: return true;
        case N::EncoderBias: return true;  // present or absent: both are checked
        case N::BatchNormConv: return hp.conv_norm_type == "batch_norm";
        case N::LayerNormConv: return hp.conv_norm_type != "batch_norm";
        case N::Ctc: return hp.has_ctc;
        case N::Transducer: return hp.has_transducer;
        case N::Prompt: return hp.has_prompt;
    }
    return false;
}

void substitute(std::string & s, const std::string & key, const std::string & value) {
    for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size())) s.replace(at, key.size(), value);
}

std::string bind(const char * pattern, int index, H hp) {
    std::string name = pattern;
    substitute(name, "{i}", std::to_string(index));
    substitute(name, "{dw}", std::to_string(3 * index - 1));
    substitute(name, "{pw}", std::to_string(3 * index));
    substitute(name, "{ctc}", hp.ctc_prefix);
    return name;
}

/** The scope's indices for these hyper-parameters. */
void index_range(TensorScope scope, H hp, int & first, int & end) {
    switch (scope) {
        case S::Model: first = 0, end = 1; return;
        case S::SubsamplingStage: first = 1, end = hp.subsampling_stages(); return;
        case S::EncoderLayer: first = 0, end = hp.n_layers; return;
        case S::PredictionLayer: first = 0, end = hp.pred_layers; return;
    }
    first = end = 0;
}

}  // namespace

const std::vector<TensorSpec> & tensor_table() {
    static const std::vector<TensorSpec> table = build_table();
    return table;
}

std::vector<TensorUse> tensors_for(const Hparams & hp) {
    const std::vector<TensorSpec> & table = tensor_table();
    std::vector<TensorUse> out;
    // Consecutive rows of one scope form a block, expanded index by index (layer 0's tensors, then layer 1's, …).
    for (size_t begin = 0; begin < table.size();) {
        size_t end = begin + 1;
        while (end < table.size() && table[end].scope == table[begin].scope && table[begin].scope != S::Model) ++end;
        int first = 0, stop = 0;
        index_range(table[begin].scope, hp, first, stop);
        for (int index = first; index < stop; ++index) {
            for (size_t r = begin; r < end; ++r) {
                const TensorSpec & spec = table[r];
                if (!holds(spec.need, hp)) continue;
                TensorUse use;
                use.spec = &spec;
                use.name = bind(spec.pattern, index, hp);
                use.index = index;
                use.shape = spec.shape(hp);
                use.present = spec.need != N::EncoderBias || hp.use_bias;
                out.push_back(std::move(use));
            }
        }
        begin = end;
    }
    return out;
}

}  // namespace parakeet
