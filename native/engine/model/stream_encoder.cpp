#include "stream_encoder.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <limits>

#include "ggml-alloc.h"
#include "graph_helpers.h"
#include "prompt_kernel.h"
#include "stream_attention_op.h"

namespace parakeet {

/** One chunk shape's graph: metadata, nodes, its allocator (sized at build), and the constant uploads. */
struct StreamEncoder::ChunkGraph {
    std::vector<uint8_t> meta;
    ggml_context * ctx = nullptr;
    ggml_cgraph * graph = nullptr;
    ggml_gallocr_t alloc = nullptr;
    ggml_tensor *mel = nullptr, *mask = nullptr, *onehot = nullptr;
    ggml_tensor *encoded = nullptr, *joint = nullptr;
    int frames = 0;
    std::vector<float> onehot_rows;
    GraphParts parts;  // node ranges of subsampling, each layer's modules, joint.enc, cache shifts (profiles)

    ~ChunkGraph() {
        if (alloc != nullptr) ggml_gallocr_free(alloc);
        if (ctx != nullptr) ggml_free(ctx);
    }
};

bool fused_stream_ops(const ComputeBackend & backend, int64_t dk) {
    const char * env = std::getenv("PARAKEET_STREAM_FUSED");
    return backend.is_cpu() && stream_attention_available(dk) && !(env != nullptr && std::string(env) == "0");
}

namespace {

ggml_tensor * new_input(ggml_context * ctx, const char * name, int64_t ne0, int64_t ne1) {
    ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
    ggml_set_name(t, name);
    ggml_set_input(t);
    return t;
}

}  // namespace

StreamEncoder::StreamEncoder(const Hparams & hp, const EncoderWeights & w, const PackedWeights & packed, ComputeBackend & backend,
                             const StreamInfo & schedule, int prompt_index)
        : hp_(hp),
          w_(w),
          packed_(packed),
          backend_(backend),
          left_(schedule.att_left),
          chunk_(schedule.chunk_frames),
          prompt_index_(prompt_index) {
    // The caches: three tensors per layer in one buffer on the device, zero at the start (NeMo
    // get_initial_cache_state; zero conv cache = the causal left padding).
    const size_t n = w_.layers.size();
    ggml_init_params params = {ggml_tensor_overhead() * 4 * n + 1024, nullptr, true};
    cache_ctx_ = ggml_init(params);
    if (cache_ctx_ == nullptr) throw Error(ErrorCode::OutOfMemory, "no memory for a stream's cache descriptors");
    for (size_t i = 0; i < n; ++i) {
        StreamLayerCache c;
        c.key = ggml_new_tensor_2d(cache_ctx_, GGML_TYPE_F32, hp_.d_model, left_ + chunk_);
        // The fused CPU attention reads V's window like K's (a column per frame, written without a transpose).
        c.fused = fused_stream_ops(backend_, hp_.head_dim());
        c.value_columns = c.fused;
        c.value = c.value_columns ? ggml_new_tensor_2d(cache_ctx_, GGML_TYPE_F32, hp_.d_model, left_ + chunk_)
                                  : ggml_new_tensor_2d(cache_ctx_, GGML_TYPE_F32, left_ + chunk_, hp_.d_model);
        c.conv = ggml_new_tensor_2d(cache_ctx_, GGML_TYPE_F32, hp_.d_model, hp_.conv_kernel - 1 + chunk_);
        c.left = left_;
        caches_.push_back(c);
        positions_.push_back(ggml_new_tensor_3d(cache_ctx_, GGML_TYPE_F32, hp_.head_dim(), 2 * (left_ + chunk_) - 1, hp_.n_heads));
    }
    cache_buffer_ = ggml_backend_alloc_ctx_tensors_from_buft(cache_ctx_, backend_.buffer_type());
    if (cache_buffer_ == nullptr) {
        ggml_free(cache_ctx_);
        throw Error(ErrorCode::OutOfMemory, "not enough memory on " + backend_.device_name() + " for a stream's attention and convolution caches");
    }
    ggml_backend_buffer_clear(cache_buffer_, 0);
    try {
        fill_positions();
    } catch (...) {
        ggml_backend_buffer_free(cache_buffer_);
        ggml_free(cache_ctx_);
        throw;
    }
}

void StreamEncoder::fill_positions() {
    // Per layer: the product (a packed kernel may add a quantize node), its reshape, permute and copy.
    const size_t nodes = 64 + 16 * w_.layers.size();
    std::vector<uint8_t> meta(ggml_tensor_overhead() * nodes + ggml_graph_overhead_custom(nodes, false));
    ggml_init_params params = {meta.size(), meta.data(), true};
    ggml_context * ctx = ggml_init(params);
    struct Free {
        ggml_context * ctx;
        ggml_gallocr_t alloc = nullptr;
        ~Free() {
            if (alloc != nullptr) ggml_gallocr_free(alloc);
            ggml_free(ctx);
        }
    } scope{ctx};
    const int keys = left_ + chunk_;
    ggml_tensor * pos = new_input(ctx, "pos", hp_.d_model, 2 * keys - 1);
    const PackedWeights * packed = packed_.count() != 0 ? &packed_ : nullptr;
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, nodes, false);
    for (size_t i = 0; i < w_.layers.size(); ++i) {
        // Head-major [dk, P, H], as the attention's position products read it (no copy per chunk).
        ggml_tensor * p = ggml_reshape_3d(ctx, mul_mat(ctx, w_.layers[i].pos_w, pos, packed), hp_.head_dim(), hp_.n_heads, 2 * keys - 1);
        ggml_build_forward_expand(graph, ggml_cpy(ctx, ggml_permute(ctx, p, 0, 2, 1, 3), positions_[i]));
    }
    scope.alloc = ggml_gallocr_new(backend_.buffer_type());
    if (scope.alloc == nullptr || !ggml_gallocr_alloc_graph(scope.alloc, graph)) {
        throw Error(ErrorCode::OutOfMemory, "not enough memory on " + backend_.device_name() + " for a stream's positional projections");
    }
    const std::vector<float> rows = relative_positions(keys, hp_.d_model);
    ggml_status status = GGML_STATUS_SUCCESS;
    backend_.device_work("preparing a stream", [&] {
        ggml_backend_tensor_set(pos, rows.data(), 0, rows.size() * sizeof(float));
        status = ggml_backend_graph_compute(backend_.backend(), graph);
    });
    if (status != GGML_STATUS_SUCCESS) {
        throw Error(ErrorCode::DeviceUnavailable, "the compute device " + backend_.device_name() + " failed while preparing a stream");
    }
}

StreamEncoder::~StreamEncoder() {
    graphs_.clear();
    if (cache_buffer_ != nullptr) ggml_backend_buffer_free(cache_buffer_);
    if (cache_ctx_ != nullptr) ggml_free(cache_ctx_);
}

StreamEncoder::ChunkGraph & StreamEncoder::graph_for(int rows, int drop) {
    auto found = graphs_.find({rows, drop});
    if (found != graphs_.end()) return *found->second;
    auto g = std::make_unique<ChunkGraph>();
    const size_t nodes = encoder_graph_nodes(hp_);
    g->meta.resize(ggml_tensor_overhead() * nodes + ggml_graph_overhead_custom(nodes, false));
    ggml_init_params params = {g->meta.size(), g->meta.data(), true};
    g->ctx = ggml_init(params);
    ggml_context * ctx = g->ctx;

    EncoderInputs in;
    in.packed = packed_.count() != 0 ? &packed_ : nullptr;
    in.cpu_fused_ops = backend_.is_cpu();
    g->mel = in.mel = new_input(ctx, "mel", hp_.n_mels, rows);
    in.stage_masks.assign(size_t(hp_.subsampling_stages()) + 1, nullptr);  // a chunk is all valid frames
    ggml_tensor * sub = build_subsampling(ctx, hp_, w_, in);               // [D, rows']
    g->frames = int(sub->ne[1]) - drop;
    if (g->frames <= 0) throw Error(ErrorCode::Internal, "a streaming chunk of " + std::to_string(rows) + " mel frames gave no encoder frame");
    // NeMo drop_extra_pre_encoded: the frames the pre-encode cache produced again.
    ggml_tensor * x = ggml_view_2d(ctx, sub, sub->ne[0], g->frames, sub->nb[1], size_t(drop) * sub->nb[1]);
    g->graph = ggml_new_graph_custom(ctx, nodes, false);
    g->parts.mark(g->graph, x, "subsampling");
    const int keys = left_ + g->frames;
    if (g->frames > chunk_)
        throw Error(ErrorCode::Internal, "a streaming chunk of " + std::to_string(g->frames) + " frames exceeds the preset's chunk");
    // This shape's table is the centre 2·keys − 1 rows of the full chunk's (positions keys − 1 … −(keys − 1)).
    std::vector<ggml_tensor *> positions;
    for (ggml_tensor * full : positions_) {
        const size_t skip = size_t(left_ + chunk_ - keys) * full->nb[1];
        positions.push_back(ggml_view_3d(ctx, full, full->ne[0], 2 * keys - 1, full->ne[2], full->nb[1], full->nb[2], skip));
    }
    g->mask = in.att_mask = new_input(ctx, "att_mask", keys, g->frames);
    std::vector<ggml_tensor *> shifts;
    for (size_t i = 0; i < w_.layers.size(); ++i) {
        x = build_stream_layer(ctx, g->graph, hp_, w_.layers[i], x, in, positions[i], caches_[i], g->frames, shifts, g->parts);
    }
    g->encoded = x;
    ggml_set_name(x, "encoded");
    ggml_set_output(x);
    ggml_tensor * joint_in = x;
    if (prompt_index_ >= 0) {
        g->onehot = new_input(ctx, "prompt_onehot", hp_.num_prompts, g->frames);
        joint_in = build_prompt_kernel(ctx, w_, x, g->onehot);
        g->onehot_rows = prompt_onehot(hp_, prompt_index_, g->frames);
    }
    g->joint = linear(ctx, joint_in, w_.joint_enc_w, w_.joint_enc_b, in.packed);  // NeMo RNNTJoint.project_encoder
    ggml_set_name(g->joint, "joint_enc");
    ggml_set_output(g->joint);
    g->parts.mark(g->graph, g->joint, prompt_index_ >= 0 ? "prompt kernel + joint.enc" : "joint.enc");
    for (ggml_tensor * shift : shifts) g->parts.mark(g->graph, shift, "cache shifts");  // after every read of the windows

    g->alloc = ggml_gallocr_new(backend_.buffer_type());
    if (g->alloc == nullptr || !ggml_gallocr_alloc_graph(g->alloc, g->graph)) {
        throw Error(ErrorCode::OutOfMemory, "not enough memory on " + backend_.device_name() + " for a streaming chunk's compute buffers");
    }
    ChunkGraph & out = *g;
    graphs_.emplace(std::make_pair(rows, drop), std::move(g));
    return out;
}

int StreamEncoder::step(const float * mel_rows, int rows, int drop, std::vector<float> & joint, std::vector<float> * encoded,
                        EncoderProfile * profile) {
    ChunkGraph & g = graph_for(rows, drop);
    const int frames = g.frames, keys = left_ + frames;
    // NeMo _create_masks over [cache | chunk] (positions 0 … L + frames − 1, queries the chunk's): a key is
    // visible when it is a filled cache slot (offset = L − filled) and chunked_limited allows it.
    // The preset's chunk, not the file's default (att_context_right): presets differ in it.
    const int chunk = chunk_;
    const int per_chunk = left_ / chunk;
    mask_.assign(size_t(frames) * size_t(keys), 0.0f);
    for (int i = 0; i < frames; ++i) {
        const int query = left_ + i;
        for (int j = 0; j < keys; ++j) {
            const int diff = query / chunk - j / chunk;
            const bool visible = j >= left_ - filled_ && diff >= 0 && diff <= per_chunk;
            if (!visible) mask_[size_t(i) * size_t(keys) + size_t(j)] = -std::numeric_limits<float>::infinity();
        }
    }
    ggml_status status = GGML_STATUS_SUCCESS;
    // A driver's exception (a lost device) is the device's failure, as a failed status is (ComputeBackend::device_work).
    backend_.device_work("running a streaming chunk", [&] {
        ggml_backend_tensor_set(g.mel, mel_rows, 0, size_t(rows) * size_t(hp_.n_mels) * sizeof(float));
        ggml_backend_tensor_set(g.mask, mask_.data(), 0, mask_.size() * sizeof(float));
        if (g.onehot != nullptr) ggml_backend_tensor_set(g.onehot, g.onehot_rows.data(), 0, g.onehot_rows.size() * sizeof(float));
        status = profile == nullptr ? ggml_backend_graph_compute(backend_.backend(), g.graph)
                                    : backend_.compute_profiled(g.graph, *profile, "stream chunk", [&](int node) { return g.parts.of(node); });
        if (status != GGML_STATUS_SUCCESS) return;
        joint.resize(size_t(frames) * size_t(g.joint->ne[0]));
        ggml_backend_tensor_get(g.joint, joint.data(), 0, joint.size() * sizeof(float));
        if (encoded != nullptr) {
            encoded->resize(size_t(frames) * size_t(hp_.d_model));
            ggml_backend_tensor_get(g.encoded, encoded->data(), 0, encoded->size() * sizeof(float));
        }
    });
    if (status != GGML_STATUS_SUCCESS) {
        throw Error(status == GGML_STATUS_ALLOC_FAILED ? ErrorCode::OutOfMemory : ErrorCode::DeviceUnavailable,
                    "the compute device " + backend_.device_name() + " failed while running a streaming chunk");
    }
    filled_ = std::min(left_, filled_ + frames);
    return frames;
}

}  // namespace parakeet
