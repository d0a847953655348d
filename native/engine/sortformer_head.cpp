#include "sortformer_head.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

#include "model_weights.h"

namespace parakeet {
namespace {

constexpr float kLayerNormEps = 1e-5f;  // torch.nn.LayerNorm default, as NeMo's TransformerEncoderBlock uses it

HostLinear read_linear(const GgufFile & f, const std::string & prefix) {
    HostLinear l;
    const std::vector<float> w = read_as_f32(f, prefix + ".weight");  // [out][in], nn.Linear's layout
    l.b = read_as_f32(f, prefix + ".bias");
    const ggml_tensor * t = f.tensor(prefix + ".weight");
    l.in = int(t->ne[0]);
    l.out = int(t->ne[1]);
    l.w_t.resize(w.size());
    for (int o = 0; o < l.out; ++o) {
        for (int i = 0; i < l.in; ++i) l.w_t[size_t(i) * size_t(l.out) + size_t(o)] = w[size_t(o) * size_t(l.in) + size_t(i)];
    }
    return l;
}

HostLayerNorm read_norm(const GgufFile & f, const std::string & prefix) {
    return {read_as_f32(f, prefix + ".weight"), read_as_f32(f, prefix + ".bias")};
}

/** How many blocks parallel_blocks splits n items into on `threads` threads. */
int block_count(int n, int threads) {
    return std::max(1, std::min(threads, n));
}

/**
 * Runs body(block, first, last) over [0, n) in block_count(n, threads) contiguous blocks, one per thread; the
 * calling thread takes block 0. The bodies only do arithmetic into storage allocated before (nothing to throw
 * across threads).
 */
void parallel_blocks(int n, int threads, const std::function<void(int, int, int)> & body) {
    const int blocks = block_count(n, threads);
    const int per = (n + blocks - 1) / blocks;
    std::vector<std::thread> helpers;
    for (int b = 1; b * per < n; ++b) helpers.emplace_back(body, b, b * per, std::min(n, (b + 1) * per));
    if (n > 0) body(0, 0, std::min(n, per));
    for (std::thread & h : helpers) h.join();
}

/**
 * y[t][o] = b[o] + Σ_i x[t][i]·W[o][i] in F32. Frames go four at a time through the k-major weight rows, so
 * each weight row loaded serves four frames and the loop over outputs is contiguous (the compiler vectorizes it).
 */
std::vector<float> apply(const HostLinear & l, const std::vector<float> & x, int frames, int threads) {
    std::vector<float> y(size_t(frames) * size_t(l.out));
    const size_t in = size_t(l.in), out = size_t(l.out);
    parallel_blocks(frames, threads, [&](int, int first, int last) {
        for (int t0 = first; t0 < last; t0 += 4) {
            const int n = std::min(4, last - t0);
            float * rows[4];
            const float * xs[4];
            for (int r = 0; r < 4; ++r) {
                const int t = t0 + std::min(r, n - 1);  // a short block repeats its last frame (same result, written twice)
                rows[r] = y.data() + size_t(t) * out;
                xs[r] = x.data() + size_t(t) * in;
                std::copy(l.b.begin(), l.b.end(), rows[r]);
            }
            for (size_t i = 0; i < in; ++i) {
                const float * w = l.w_t.data() + i * out;
                const float x0 = xs[0][i], x1 = xs[1][i], x2 = xs[2][i], x3 = xs[3][i];
                float * y0 = rows[0];
                float * y1 = rows[1];
                float * y2 = rows[2];
                float * y3 = rows[3];
                if (n == 4) {
                    for (size_t o = 0; o < out; ++o) {
                        y0[o] += x0 * w[o];
                        y1[o] += x1 * w[o];
                        y2[o] += x2 * w[o];
                        y3[o] += x3 * w[o];
                    }
                } else {
                    for (int r = 0; r < n; ++r) {
                        float * yr = rows[r];
                        const float xr = xs[r][i];
                        for (size_t o = 0; o < out; ++o) yr[o] += xr * w[o];
                    }
                }
            }
        }
    });
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
std::vector<float> self_attention(const TransformerLayerWeights & l, const std::vector<float> & x, int frames, int d, int heads, int threads) {
    const std::vector<float> q = apply(l.query, x, frames, threads), k = apply(l.key, x, frames, threads), v = apply(l.value, x, frames, threads);
    const int dh = d / heads;
    const float scale = 1.0f / std::sqrt(float(dh));
    // kᵀ [d][frames]: a query's scores against every key are then one contiguous (vectorized) pass per feature.
    std::vector<float> k_t(size_t(frames) * size_t(d));
    for (int j = 0; j < frames; ++j) {
        for (int e = 0; e < d; ++e) k_t[size_t(e) * size_t(frames) + size_t(j)] = k[size_t(j) * size_t(d) + size_t(e)];
    }
    std::vector<float> context(size_t(frames) * size_t(d), 0.0f);
    std::vector<float> scores(size_t(block_count(frames, threads)) * size_t(frames));  // one row of scores per block
    parallel_blocks(frames, threads, [&](int block, int first, int last) {
        float * s = scores.data() + size_t(block) * size_t(frames);
        for (int i = first; i < last; ++i) {
            for (int h = 0; h < heads; ++h) {
                const float * qi = q.data() + size_t(i) * size_t(d) + size_t(h) * size_t(dh);
                std::fill(s, s + frames, 0.0f);
                for (int e = 0; e < dh; ++e) {
                    const float qe = qi[e] * scale;
                    const float * kt = k_t.data() + size_t(h * dh + e) * size_t(frames);
                    for (int j = 0; j < frames; ++j) s[j] += qe * kt[j];
                }
                const float best = *std::max_element(s, s + frames);
                float sum = 0.0f;
                for (int j = 0; j < frames; ++j) {
                    s[j] = std::exp(s[j] - best);
                    sum += s[j];
                }
                const float inv_sum = 1.0f / sum;
                float * ci = context.data() + size_t(i) * size_t(d) + size_t(h) * size_t(dh);
                for (int j = 0; j < frames; ++j) {
                    const float p = s[j] * inv_sum;
                    const float * vj = v.data() + size_t(j) * size_t(d) + size_t(h) * size_t(dh);
                    for (int e = 0; e < dh; ++e) ci[e] += p * vj[e];
                }
            }
        }
    });
    return apply(l.out_projection, context, frames, threads);
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

std::vector<float> sortformer_speaker_activities(const SortformerHeadWeights & w, const SortformerHparams & sp, const float * encoded, int frames,
                                                 int threads) {
    const int d = sp.tf_d_model;
    std::vector<float> x = apply(w.encoder_proj, std::vector<float>(encoded, encoded + size_t(frames) * size_t(sp.fc_d_model)), frames, threads);
    for (const TransformerLayerWeights & l : w.layers) {
        // NeMo TransformerEncoderBlock.forward_postln: LN(x + MHA(x)), then LN(y + FF(y)) with FF = dense_out(relu(dense_in(y))).
        std::vector<float> attended = self_attention(l, x, frames, d, sp.tf_heads, threads);
        add_and_norm(attended, x, l.norm1, frames, d);
        std::vector<float> hidden = apply(l.dense_in, attended, frames, threads);
        relu_in_place(hidden);
        std::vector<float> ff = apply(l.dense_out, hidden, frames, threads);
        add_and_norm(ff, attended, l.norm2, frames, d);
        x = std::move(ff);
    }
    // SortformerModules.forward_speaker_sigmoids: sigmoid(single_hidden_to_spks(relu(first_hidden_to_hidden(relu(x))))).
    relu_in_place(x);
    std::vector<float> hidden = apply(w.hidden_to_hidden, x, frames, threads);
    relu_in_place(hidden);
    std::vector<float> logits = apply(w.hidden_to_spks, hidden, frames, threads);
    for (float & v : logits) v = 1.0f / (1.0f + std::exp(-v));
    return logits;
}

}  // namespace parakeet
