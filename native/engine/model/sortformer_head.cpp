#include "sortformer_head.h"

#include <algorithm>
#include <cmath>

#include "model_weights.h"

namespace parakeet {
namespace {

constexpr float kLayerNormEps = 1e-5f;  // torch.nn.LayerNorm default, as NeMo's TransformerEncoderBlock uses it

HostLinear read_linear(const GgufFile & f, const std::string & prefix) {
    HostLinear l;
    l.w = read_as_f32(f, prefix + ".weight");
    l.b = read_as_f32(f, prefix + ".bias");
    const ggml_tensor * t = f.tensor(prefix + ".weight");
    l.in = int(t->ne[0]);
    l.out = int(t->ne[1]);
    return l;
}

HostLayerNorm read_norm(const GgufFile & f, const std::string & prefix) {
    return {read_as_f32(f, prefix + ".weight"), read_as_f32(f, prefix + ".bias")};
}

/** y[t][o] = b[o] + Σ_i x[t][i]·W[o][i]. */
std::vector<float> apply(const HostLinear & l, const std::vector<float> & x, int frames) {
    std::vector<float> y(size_t(frames) * size_t(l.out));
    for (int t = 0; t < frames; ++t) {
        const float * xr = x.data() + size_t(t) * size_t(l.in);
        float * yr = y.data() + size_t(t) * size_t(l.out);
        for (int o = 0; o < l.out; ++o) {
            const float * wr = l.w.data() + size_t(o) * size_t(l.in);
            double acc = 0.0;  // double sums: the head's error stays far below the encoder's (192-wide rows, 18 layers)
            for (int i = 0; i < l.in; ++i) acc += double(xr[i]) * double(wr[i]);
            yr[o] = float(acc + double(l.b[size_t(o)]));
        }
    }
    return y;
}

void relu_in_place(std::vector<float> & x) {
    for (float & v : x) v = std::max(v, 0.0f);
}

/** x ← LayerNorm(x + residual), row by row (the post-LN residual of NeMo TransformerEncoderBlock.forward_postln). */
void add_and_norm(std::vector<float> & x, const std::vector<float> & residual, const HostLayerNorm & n, int frames, int d) {
    for (int t = 0; t < frames; ++t) {
        float * r = x.data() + size_t(t) * size_t(d);
        const float * res = residual.data() + size_t(t) * size_t(d);
        double mean = 0.0;
        for (int i = 0; i < d; ++i) {
            r[i] += res[i];
            mean += r[i];
        }
        mean /= d;
        double var = 0.0;
        for (int i = 0; i < d; ++i) var += (r[i] - mean) * (r[i] - mean);
        var /= d;
        const double inv = 1.0 / std::sqrt(var + kLayerNormEps);
        for (int i = 0; i < d; ++i) r[i] = float((r[i] - mean) * inv) * n.gamma[size_t(i)] + n.beta[size_t(i)];
    }
}

/** NeMo MultiHeadAttention with every key visible: softmax(q·kᵀ/√d_head)·v per head, then out_projection. */
std::vector<float> self_attention(const TransformerLayerWeights & l, const std::vector<float> & x, int frames, int d, int heads) {
    const std::vector<float> q = apply(l.query, x, frames), k = apply(l.key, x, frames), v = apply(l.value, x, frames);
    const int dh = d / heads;
    const float scale = 1.0f / std::sqrt(float(dh));
    std::vector<float> context(size_t(frames) * size_t(d), 0.0f);
    std::vector<float> scores(static_cast<size_t>(frames));
    for (int h = 0; h < heads; ++h) {
        for (int i = 0; i < frames; ++i) {
            const float * qi = q.data() + size_t(i) * size_t(d) + size_t(h) * size_t(dh);
            float best = -INFINITY;
            for (int j = 0; j < frames; ++j) {
                const float * kj = k.data() + size_t(j) * size_t(d) + size_t(h) * size_t(dh);
                double acc = 0.0;
                for (int e = 0; e < dh; ++e) acc += double(qi[e]) * double(kj[e]);
                scores[size_t(j)] = float(acc) * scale;
                best = std::max(best, scores[size_t(j)]);
            }
            float sum = 0.0f;
            for (int j = 0; j < frames; ++j) {
                scores[size_t(j)] = std::exp(scores[size_t(j)] - best);
                sum += scores[size_t(j)];
            }
            float * ci = context.data() + size_t(i) * size_t(d) + size_t(h) * size_t(dh);
            for (int j = 0; j < frames; ++j) {
                const float p = scores[size_t(j)] / sum;
                const float * vj = v.data() + size_t(j) * size_t(d) + size_t(h) * size_t(dh);
                for (int e = 0; e < dh; ++e) ci[e] += p * vj[e];
            }
        }
    }
    return apply(l.out_projection, context, frames);
}

}  // namespace

SortformerHeadWeights read_sortformer_head(const GgufFile & f, const SortformerHparams & sp) {
    SortformerHeadWeights w;
    w.encoder_proj = read_linear(f, "sortformer_modules.encoder_proj");
    w.hidden_to_hidden = read_linear(f, "sortformer_modules.first_hidden_to_hidden");
    w.hidden_to_spks = read_linear(f, "sortformer_modules.single_hidden_to_spks");
    if (sp.use_learnable_sil_emb) w.learnable_sil_emb = read_as_f32(f, "sortformer_modules.learnable_sil_emb");
    for (int i = 0; i < sp.tf_layers; ++i) {
        const std::string p = "transformer_encoder.layers." + std::to_string(i) + ".";
        TransformerLayerWeights l;
        l.query = read_linear(f, p + "first_sub_layer.query_net");
        l.key = read_linear(f, p + "first_sub_layer.key_net");
        l.value = read_linear(f, p + "first_sub_layer.value_net");
        l.out_projection = read_linear(f, p + "first_sub_layer.out_proj");
        l.norm1 = read_norm(f, p + "layer_norm_1");
        l.dense_in = read_linear(f, p + "second_sub_layer.dense_in");
        l.dense_out = read_linear(f, p + "second_sub_layer.dense_out");
        l.norm2 = read_norm(f, p + "layer_norm_2");
        w.layers.push_back(std::move(l));
    }
    return w;
}

std::vector<float> sortformer_speaker_activities(const SortformerHeadWeights & w, const SortformerHparams & sp, const float * encoded, int frames) {
    const int d = sp.tf_d_model;
    std::vector<float> x = apply(w.encoder_proj, std::vector<float>(encoded, encoded + size_t(frames) * size_t(sp.fc_d_model)), frames);
    for (const TransformerLayerWeights & l : w.layers) {
        // NeMo TransformerEncoderBlock.forward_postln: LN(x + MHA(x)), then LN(y + FF(y)) with FF = dense_out(relu(dense_in(y))).
        std::vector<float> attended = self_attention(l, x, frames, d, sp.tf_heads);
        add_and_norm(attended, x, l.norm1, frames, d);
        std::vector<float> hidden = apply(l.dense_in, attended, frames);
        relu_in_place(hidden);
        std::vector<float> ff = apply(l.dense_out, hidden, frames);
        add_and_norm(ff, attended, l.norm2, frames, d);
        x = std::move(ff);
    }
    // SortformerModules.forward_speaker_sigmoids: sigmoid(single_hidden_to_spks(relu(first_hidden_to_hidden(relu(x))))).
    relu_in_place(x);
    std::vector<float> hidden = apply(w.hidden_to_hidden, x, frames);
    relu_in_place(hidden);
    std::vector<float> logits = apply(w.hidden_to_spks, hidden, frames);
    for (float & v : logits) v = 1.0f / (1.0f + std::exp(-v));
    return logits;
}

}  // namespace parakeet
