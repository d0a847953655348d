#include "sortformer_head.h"

#include <cmath>
#include <string>
#include <utility>

#include "parakeet/parakeet.h"
#include "graph_helpers.h"
#include "model_weights.h"

namespace parakeet {
namespace {

/** Nodes of the head's graph: about 40 per transformer layer, with room to spare. */
size_t head_graph_nodes(const SortformerHparams & sp) { return size_t(64) * size_t(sp.tf_layers) + 64; }

/** Gathers the file's tensors into a context (F32, the file's shapes), to be placed on the device in one buffer. */
class WeightPlan {
public:
    WeightPlan(const GgufFile & file, ggml_context * ctx) : file_(file), ctx_(ctx) {}

    ggml_tensor * add(const std::string & name) {
        const ggml_tensor * src = file_.tensor(name);
        if (src == nullptr) file_.fail("tensor '" + name + "' is missing");
        ggml_tensor * t = ggml_new_tensor(ctx_, GGML_TYPE_F32, ggml_n_dims(src), src->ne);
        ggml_format_name(t, "sortformer.%zu", names_.size());  // the file's names can reach ggml's 64-byte limit
        names_.emplace_back(t, name);
        return t;
    }
    DeviceLinear linear(const std::string & prefix) { return {add(prefix + ".weight"), add(prefix + ".bias")}; }
    DeviceLayerNorm norm(const std::string & prefix) { return {add(prefix + ".weight"), add(prefix + ".bias")}; }

    /** Once the context's buffer is allocated: every tensor's values, converted to F32 (read_as_f32). */
    void upload() const {
        for (const auto & [t, name] : names_) {
            const std::vector<float> values = read_as_f32(file_, name);
            ggml_backend_tensor_set(t, values.data(), 0, values.size() * sizeof(float));
        }
    }

private:
    const GgufFile & file_;
    ggml_context * ctx_;
    std::vector<std::pair<ggml_tensor *, std::string>> names_;
};

/** NeMo MultiHeadAttention with every key visible: softmax(q·kᵀ/√d_head)·v per head, then out_projection. x: [d, T]. */
ggml_tensor * self_attention(ggml_context * ctx, const TransformerLayerTensors & l, ggml_tensor * x, int frames, int d, int heads) {
    const int dh = d / heads;
    // [d, T] → [dh, H, T] → [dh, T, H]: one head's frames as a matrix.
    auto per_head = [&](const DeviceLinear & lin) {
        ggml_tensor * y = ggml_reshape_3d(ctx, linear(ctx, x, lin.w, lin.b), dh, heads, frames);
        return ggml_cont(ctx, ggml_permute(ctx, y, 0, 2, 1, 3));
    };
    ggml_tensor * q = per_head(l.query);
    ggml_tensor * k = per_head(l.key);
    ggml_tensor * scores = ggml_mul_mat(ctx, k, q);  // [T keys, T queries, H]
    ggml_tensor * probs = ggml_soft_max_ext(ctx, scores, nullptr, 1.0f / std::sqrt(float(dh)), 0.0f);
    // v as [T, dh, H], so that probs·v contracts over the keys.
    ggml_tensor * v = ggml_reshape_3d(ctx, linear(ctx, x, l.value.w, l.value.b), dh, heads, frames);
    v = ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3));
    ggml_tensor * context = ggml_mul_mat(ctx, v, probs);               // [dh, T, H]
    context = ggml_cont(ctx, ggml_permute(ctx, context, 0, 2, 1, 3));  // [dh, H, T]
    return linear(ctx, ggml_reshape_2d(ctx, context, d, frames), l.out_projection.w, l.out_projection.b);
}

}  // namespace

SortformerHead::SortformerHead(const GgufFile & f, const SortformerHparams & sp, ComputeBackend & backend) : sp_(sp), backend_(backend) {
    const size_t tensors = size_t(16) * size_t(sp.tf_layers) + 8;
    ggml_init_params params = {tensors * ggml_tensor_overhead(), nullptr, true};
    weights_ctx_ = ggml_init(params);
    if (weights_ctx_ == nullptr) throw Error(ErrorCode::OutOfMemory, "no memory for the Sortformer head's tensor descriptions");
    WeightPlan plan(f, weights_ctx_);
    encoder_proj_ = plan.linear("sortformer_modules.encoder_proj");
    hidden_to_hidden_ = plan.linear("sortformer_modules.first_hidden_to_hidden");
    hidden_to_spks_ = plan.linear("sortformer_modules.single_hidden_to_spks");
    for (int i = 0; i < sp.tf_layers; ++i) {
        const std::string p = "transformer_encoder.layers." + std::to_string(i) + ".";
        TransformerLayerTensors l;
        l.query = plan.linear(p + "first_sub_layer.query_net");
        l.key = plan.linear(p + "first_sub_layer.key_net");
        l.value = plan.linear(p + "first_sub_layer.value_net");
        l.out_projection = plan.linear(p + "first_sub_layer.out_proj");
        l.norm1 = plan.norm(p + "layer_norm_1");
        l.dense_in = plan.linear(p + "second_sub_layer.dense_in");
        l.dense_out = plan.linear(p + "second_sub_layer.dense_out");
        l.norm2 = plan.norm(p + "layer_norm_2");
        layers_.push_back(l);
    }
    weights_buffer_ = ggml_backend_alloc_ctx_tensors_from_buft(weights_ctx_, backend.buffer_type());
    if (weights_buffer_ == nullptr) {
        ggml_free(weights_ctx_);
        throw Error(ErrorCode::OutOfMemory, "the device has no room for the Sortformer head's weights");
    }
    ggml_backend_buffer_set_usage(weights_buffer_, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    plan.upload();
    if (sp.use_learnable_sil_emb) learnable_sil_emb_ = read_as_f32(f, "sortformer_modules.learnable_sil_emb");
    backend.reserve_graph_nodes(head_graph_nodes(sp));
}

SortformerHead::~SortformerHead() {
    if (weights_buffer_ != nullptr) ggml_backend_buffer_free(weights_buffer_);
    if (weights_ctx_ != nullptr) ggml_free(weights_ctx_);
}

void SortformerHead::speaker_activities(const float * encoded, int frames, std::vector<float> & out, const std::atomic<bool> * abort) {
    const size_t nodes = head_graph_nodes(sp_);
    graph_meta_.resize(ggml_tensor_overhead() * nodes * 2 + ggml_graph_overhead_custom(nodes, false));
    ggml_init_params params = {graph_meta_.size(), graph_meta_.data(), true};
    ggml_context * ctx = ggml_init(params);
    if (ctx == nullptr) throw Error(ErrorCode::OutOfMemory, "no memory for the Sortformer head's graph");
    struct ContextFree {
        ggml_context * c;
        ~ContextFree() { ggml_free(c); }
    } free_ctx{ctx};

    const int d = sp_.tf_d_model;
    ggml_tensor * input = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, sp_.fc_d_model, frames);
    ggml_set_name(input, "fastconformer_out");
    ggml_set_input(input);
    ggml_tensor * x = linear(ctx, input, encoder_proj_.w, encoder_proj_.b);
    for (const TransformerLayerTensors & l : layers_) {
        // NeMo TransformerEncoderBlock.forward_postln: LN(x + MHA(x)), then LN(y + FF(y)) with FF = dense_out(relu(dense_in(y))).
        ggml_tensor * y = layer_norm(ctx, ggml_add(ctx, self_attention(ctx, l, x, frames, d, sp_.tf_heads), x), l.norm1.gamma, l.norm1.beta);
        ggml_tensor * ff = linear(ctx, ggml_relu(ctx, linear(ctx, y, l.dense_in.w, l.dense_in.b)), l.dense_out.w, l.dense_out.b);
        x = layer_norm(ctx, ggml_add(ctx, ff, y), l.norm2.gamma, l.norm2.beta);
    }
    // SortformerModules.forward_speaker_sigmoids: sigmoid(single_hidden_to_spks(relu(first_hidden_to_hidden(relu(x))))).
    ggml_tensor * hidden = ggml_relu(ctx, linear(ctx, ggml_relu(ctx, x), hidden_to_hidden_.w, hidden_to_hidden_.b));
    ggml_tensor * activities = ggml_sigmoid(ctx, linear(ctx, hidden, hidden_to_spks_.w, hidden_to_spks_.b));  // [S, T]: frame-major rows
    ggml_set_name(activities, "speaker_activities");
    ggml_set_output(activities);
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, nodes, false);
    ggml_build_forward_expand(graph, activities);
    backend_.compute(
            graph, [&] { ggml_backend_tensor_set(input, encoded, 0, size_t(frames) * size_t(sp_.fc_d_model) * sizeof(float)); }, abort, nullptr,
            "sortformer head");
    out.resize(size_t(frames) * size_t(sp_.n_speakers));
    ggml_backend_tensor_get(activities, out.data(), 0, out.size() * sizeof(float));
}

}  // namespace parakeet
