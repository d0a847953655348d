#include "encoder.h"

#include <cmath>
#include <limits>

#include "encoder_graph.h"
#include "graph_helpers.h"
#include "parakeet/parakeet.h"

namespace parakeet {
namespace {

constexpr size_t kGraphNodes = 16384;

std::vector<float> time_mask(int length, int valid) {
    std::vector<float> m(size_t(length), 0.0f);
    for (int t = 0; t < valid && t < length; ++t) m[size_t(t)] = 1.0f;
    return m;
}

}  // namespace

std::vector<float> relative_positions(int frames, int d_model) {
    // NeMo RelPositionalEncoding.extend_pe: positions T'−1 … −(T'−1);
    // pe[p, 2i] = sin(pos·div_i), pe[p, 2i+1] = cos(pos·div_i), div_i = exp(−2i·ln(10000)/D).
    const int rows = 2 * frames - 1;
    std::vector<float> pe(size_t(rows) * d_model);
    for (int p = 0; p < rows; ++p) {
        const double pos = double(frames - 1 - p);
        for (int i = 0; i < d_model / 2; ++i) {
            const double div = std::exp(-(2.0 * i) * std::log(10000.0) / d_model);
            pe[size_t(p) * d_model + 2 * i] = float(std::sin(pos * div));
            pe[size_t(p) * d_model + 2 * i + 1] = float(std::cos(pos * div));
        }
    }
    return pe;
}

std::vector<float> attention_mask(const Hparams & hp, int frames, int valid) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    std::vector<float> mask(size_t(frames) * frames, 0.0f);
    const bool limited = hp.att_context_style == "chunked_limited";
    const int chunk = hp.att_context_right + 1;
    const int left_chunks = limited ? hp.att_context_left / chunk : 0;
    for (int i = 0; i < frames; ++i) {
        for (int j = 0; j < frames; ++j) {
            bool visible = j < valid;
            if (limited) {
                // NeMo chunked_limited: key j visible to query i iff 0 ≤ ⌊i/c⌋ − ⌊j/c⌋ ≤ left_chunks.
                const int diff = i / chunk - j / chunk;
                visible = visible && diff >= 0 && diff <= left_chunks;
            }
            if (!visible) mask[size_t(i) * frames + j] = neg_inf;
        }
    }
    return mask;
}

EncoderOutput Encoder::run(const MelSpectrogram & mel, EncoderHead head, bool keep_encoded, const std::atomic<bool> * abort) {
    const SubsamplingLengths len = subsampling_lengths(hp_, mel.n_frames, mel.valid_frames);
    const int frames = len.spatial.back();
    const int valid = len.valid.back();
    EncoderOutput out;
    out.frames = frames;
    out.valid = valid;
    out.dim = hp_.d_model;

    const size_t meta_size = ggml_tensor_overhead() * kGraphNodes + ggml_graph_overhead_custom(kGraphNodes, false);
    if (graph_meta_.size() < meta_size) graph_meta_.resize(meta_size);
    ggml_init_params params = {graph_meta_.size(), graph_meta_.data(), true};
    ggml_context * ctx = ggml_init(params);
    struct FreeCtx {
        ggml_context * c;
        ~FreeCtx() { ggml_free(c); }
    } free_ctx{ctx};

    EncoderInputs in;
    in.mel = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, hp_.n_mels, mel.n_frames);
    ggml_set_name(in.mel, "mel");
    ggml_set_input(in.mel);
    std::vector<std::vector<float>> stage_mask_data(len.spatial.size());
    in.stage_masks.assign(len.spatial.size(), nullptr);
    for (size_t k = 1; k < len.spatial.size(); ++k) {
        if (len.valid[k] >= len.spatial[k]) continue;  // nothing to zero
        ggml_tensor * m = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 1, 1, len.spatial[k]);
        ggml_set_name(m, ("stage_mask_" + std::to_string(k)).c_str());
        ggml_set_input(m);
        in.stage_masks[k] = m;
        stage_mask_data[k] = time_mask(len.spatial[k], len.valid[k]);
    }
    in.pos = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, hp_.d_model, 2 * frames - 1);
    ggml_set_name(in.pos, "pos");
    ggml_set_input(in.pos);
    in.att_mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, frames, frames);
    ggml_set_name(in.att_mask, "att_mask");
    ggml_set_input(in.att_mask);
    std::vector<float> frame_mask_data;
    if (valid < frames) {
        in.frame_mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1, frames);
        ggml_set_name(in.frame_mask, "frame_mask");
        ggml_set_input(in.frame_mask);
        frame_mask_data = time_mask(frames, valid);
    }

    ggml_tensor * x = build_subsampling(ctx, hp_, w_, in, len);
    for (const ConformerLayerWeights & layer : w_.layers) x = build_conformer_layer(ctx, hp_, layer, x, in, frames);
    ggml_set_name(x, "encoded");
    ggml_set_output(x);

    ggml_tensor * head_out = nullptr;
    if (head == EncoderHead::Ctc) {
        head_out = linear(ctx, x, w_.ctc_w, w_.ctc_b);  // NeMo ConvASRDecoder (Conv1d k=1)
    } else if (head == EncoderHead::JointEnc) {
        head_out = linear(ctx, x, w_.joint_enc_w, w_.joint_enc_b);  // NeMo RNNTJoint.project_encoder
    }
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, kGraphNodes, false);
    ggml_build_forward_expand(graph, x);
    if (head_out != nullptr) {
        ggml_set_name(head_out, "head");
        ggml_set_output(head_out);
        ggml_build_forward_expand(graph, head_out);
    }

    // Inputs: the mel as a [T][M] image (frequency fastest).
    std::vector<float> image(size_t(mel.n_frames) * hp_.n_mels);
    for (int m = 0; m < hp_.n_mels; ++m)
        for (int t = 0; t < mel.n_frames; ++t) image[size_t(t) * hp_.n_mels + m] = mel.data[size_t(m) * mel.n_frames + t];
    const std::vector<float> pos = relative_positions(frames, hp_.d_model);
    const std::vector<float> att = attention_mask(hp_, frames, valid);

    out.devices = backend_.compute(graph, [&] {
        ggml_backend_tensor_set(in.mel, image.data(), 0, image.size() * sizeof(float));
        for (size_t k = 0; k < in.stage_masks.size(); ++k) {
            if (in.stage_masks[k]) ggml_backend_tensor_set(in.stage_masks[k], stage_mask_data[k].data(), 0, stage_mask_data[k].size() * sizeof(float));
        }
        ggml_backend_tensor_set(in.pos, pos.data(), 0, pos.size() * sizeof(float));
        ggml_backend_tensor_set(in.att_mask, att.data(), 0, att.size() * sizeof(float));
        if (in.frame_mask) ggml_backend_tensor_set(in.frame_mask, frame_mask_data.data(), 0, frame_mask_data.size() * sizeof(float));
    }, abort);

    if (keep_encoded) {
        out.encoded.resize(size_t(frames) * hp_.d_model);
        ggml_backend_tensor_get(x, out.encoded.data(), 0, out.encoded.size() * sizeof(float));
    }
    if (head_out != nullptr) {
        out.head_dim = int(head_out->ne[0]);
        out.head.resize(size_t(frames) * out.head_dim);
        ggml_backend_tensor_get(head_out, out.head.data(), 0, out.head.size() * sizeof(float));
    }
    return out;
}

}  // namespace parakeet
