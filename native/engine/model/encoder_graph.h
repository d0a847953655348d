// Builders of the FastConformer encoder graph (NeMo ConformerEncoder), one
// function per model part. Activations are [D, T] (D fastest).
#pragma once

#include <utility>
#include <vector>

#include "ggml.h"
#include "graph_helpers.h"
#include "hparams.h"
#include "model_weights.h"

namespace parakeet {

/** Encoder-frame lengths after each subsampling stage (NeMo calc_length). */
struct SubsamplingLengths {
    std::vector<int> spatial;  // [0] = mel frames T, then per stage
    std::vector<int> valid;    // [0] = mel valid frames, then per stage
    std::vector<int> freq;     // [0] = n_mels, then per stage
};
SubsamplingLengths subsampling_lengths(const Hparams & hp, int mel_frames, int mel_valid);

/** Graph inputs shared by all layers. */
struct EncoderInputs {
    ggml_tensor * mel = nullptr;             // [M, T] (frequency fastest)
    std::vector<ggml_tensor *> stage_masks;  // per subsampling stage k ≥ 1: [1, 1, H_k] (1 valid, 0 padded), or nullptr
    ggml_tensor * pos = nullptr;             // [D, 2T'−1] relative positional table
    ggml_tensor * pos_halves = nullptr;      // [D, T'] its sin and cos halves for p ≥ 0 (rel_pos_projection.h), or nullptr
    ggml_tensor * pos_halves_q8 = nullptr;   // `pos_halves` as the Q8_0 halves kernel's rows (q8_0_rel_pos_vnni.h), or nullptr
    ggml_tensor * pos_quantized = nullptr;   // `pos` in the activation format of every layer's packed linear_pos, quantized once, or nullptr
    ggml_tensor * att_mask = nullptr;        // [T', T'] additive (0 / −inf), keys fastest
    ggml_tensor * frame_mask = nullptr;      // [1, T'] (1 valid, 0 padded)
    // Per layer: its linear_pos weight and that projection's rows for this run, kept between runs
    // (position_table.h); empty where the projection runs in the graph.
    std::vector<std::pair<const ggml_tensor *, ggml_tensor *>> kept_positions;
    const PackedWeights * packed = nullptr;  // packed twins of matmul weights for the engine's CPU kernels, or nullptr
    bool cpu_fused_ops = false;              // the graph runs on the CPU: fused custom ops may be used
};

/**
 * NeMo ConvSubsampling (dw_striding) + optional xscale -> [D, rows]. `in.mel`
 * is a stretch of the mel image and `in.stage_masks[k]` zero the rows of stage
 * k that lie outside [0, valid length) in absolute terms (see encoder.cpp).
 */
ggml_tensor * build_subsampling(ggml_context * ctx, const Hparams & hp, const EncoderWeights & w, const EncoderInputs & in);

/** The graph for this model takes the fused subsampling op (subsampling_op.h: CPU graph, dw_striding, 16-channel multiples). */
bool uses_fused_subsampling(const Hparams & hp, const EncoderWeights & w, bool cpu_graph);

/** The graph for this model takes the fused attention op (CPU graph, unbounded context, dk a multiple of 16). */
bool uses_fused_attention(const Hparams & hp, bool cpu_graph);

/**
 * linear_pos of the relative positional table for the fused attention [D, 2T'−1] (NeMo
 * RelPositionMultiHeadAttention.linear_pos(pos_emb), no bias): from `in.pos_halves` where the
 * weights were split at load, else from `in.pos`.
 */
ggml_tensor * build_position_projection(ggml_context * ctx, const ConformerLayerWeights & w, const EncoderInputs & in);

/** residual + NeMo RelPositionMultiHeadAttention of the normalized input xh [D, T']. */
ggml_tensor * build_rel_pos_attention(ggml_context * ctx, const Hparams & hp, const ConformerLayerWeights & w, const NormedInput & xh,
                                      const EncoderInputs & in, int frames, ggml_tensor * residual);

/** residual + NeMo ConformerConvolution of the normalized input xh [D, T']. */
ggml_tensor * build_conv_module(ggml_context * ctx, const Hparams & hp, const ConformerLayerWeights & w, const NormedInput & xh,
                                const EncoderInputs & in, int frames, ggml_tensor * residual);

/** residual + ½·NeMo ConformerFeedForward(xh) (Linear → Swish → Linear), in the packed kernels' epilogues where they apply. */
ggml_tensor * build_feed_forward(ggml_context * ctx, const NormedInput & xh, ggml_tensor * w1, ggml_tensor * b1, ggml_tensor * w2, ggml_tensor * b2,
                                 const PackedWeights * packed, ggml_tensor * residual);

/** NeMo ConformerLayer: FFN/2, MHSA, conv, FFN/2, norm_out. */
ggml_tensor * build_conformer_layer(ggml_context * ctx, const Hparams & hp, const ConformerLayerWeights & w, ggml_tensor * x,
                                    const EncoderInputs & in, int frames);

/** Upper bound of the nodes in one encoder graph (sizes the graph and its metadata arena). */
size_t encoder_graph_nodes(const Hparams & hp);
/** Models whose graph would need more nodes are refused at load (they would not fit any sane budget). */
constexpr size_t kMaxEncoderGraphNodes = 65536;

/** NeMo RelPositionalEncoding: rows for relative positions T'−1 … −(T'−1), [2T'−1][D]. */
std::vector<float> relative_positions(int frames, int d_model);

/** Additive attention mask [T'][T'] (query-major, keys fastest): padded keys and, for chunked_limited, out-of-context keys get −inf. */
std::vector<float> attention_mask(const Hparams & hp, int frames, int valid);

}  // namespace parakeet
