#include "encoder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "attention_op.h"
#include "encoder_graph.h"
#include "graph_helpers.h"
#include "model_schema.h"
#include "parakeet/parakeet.h"
#include "prompt_kernel.h"
#include "q8_0_rel_pos_vnni.h"
#include "rel_pos_projection.h"

namespace parakeet {
namespace {

std::vector<float> time_mask(int length, int valid) {
    std::vector<float> m(size_t(length), 0.0f);
    for (int t = 0; t < valid && t < length; ++t) m[size_t(t)] = 1.0f;
    return m;
}

}  // namespace

size_t encoder_graph_nodes(const Hparams & hp) {
    // Per conformer layer ~90 nodes plus 4 per depthwise tap (two views, a mul,
    // an add); the subsampling graph is smaller. Generous margin: running out
    // aborts inside ggml, so the schema refuses models beyond kMaxEncoderGraphNodes.
    return 1024 + size_t(hp.n_layers) * (128 + 4 * size_t(hp.conv_kernel));
}

std::vector<float> relative_positions(int frames, int d_model) {
    // NeMo RelPositionalEncoding.extend_pe: positions T'−1 … −(T'−1);
    // pe[p, 2i] = sin(pos·div_i), pe[p, 2i+1] = cos(pos·div_i), div_i = exp(−2i·ln(10000)/D).
    const int rows = 2 * frames - 1;
    const std::vector<double> div = position_frequencies(d_model);
    std::vector<float> pe(size_t(rows) * d_model);
    for (int p = 0; p < rows; ++p) {
        const double pos = double(frames - 1 - p);
        for (int i = 0; i < d_model / 2; ++i) {
            pe[size_t(p) * d_model + 2 * i] = float(std::sin(pos * div[size_t(i)]));
            pe[size_t(p) * d_model + 2 * i + 1] = float(std::cos(pos * div[size_t(i)]));
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

namespace {

// Output frames per subsampling tile (1024 mel frames ≈ 10 s). Tiling bounds the
// memory of the first conv stage (C × M/2 × T/2 floats: ~200 MB for a 60 s
// window of a 128-mel model) to a constant.
constexpr int kTileFrames = 128;
// Extra output rows computed on each side of a tile: a row's receptive field
// reaches one row past the tile edge through the zero padding of each conv
// stage, so the first and last row of a tile are recomputed by its neighbours.
constexpr int kTileMargin = 2;

struct GraphArena {
    ggml_context * ctx = nullptr;
    explicit GraphArena(std::vector<uint8_t> & memory) {
        ggml_init_params params = {memory.size(), memory.data(), true};
        ctx = ggml_init(params);
    }
    ~GraphArena() { ggml_free(ctx); }
};

ggml_tensor * new_input(ggml_context * ctx, const char * name, int64_t ne0, int64_t ne1, int64_t ne2 = 1) {
    ggml_tensor * t = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, ne0, ne1, ne2);
    ggml_set_name(t, name);
    ggml_set_input(t);
    return t;
}

// The positional projections kept between runs (position_table.h) take at most this much memory:
// 0.6B (24 layers × 1024) up to 341 frames (27 s windows), 110M (17 × 512) up to 964 (77 s).
constexpr size_t kPositionTableBytes = size_t(64) << 20;
// The table grows in steps of this many frames, so that windows growing a little at a time do not
// recompute it for each.
constexpr int kPositionTableStep = 32;

/**
 * The positional encoding's inputs of a graph of `frames` frames (in.pos, and the halves where
 * linear_pos was split at load): nodes only, unallocated until a reader is in the graph.
 */
void add_position_inputs(ggml_context * ctx, EncoderInputs & in, const Hparams & hp, const EncoderWeights & w, int frames) {
    const PackedWeights * packed = in.packed;
    in.pos = new_input(ctx, "pos", hp.d_model, 2 * frames - 1);
    if (packed != nullptr && (packed->has_rel_pos() || packed->has_q8_rel_pos())) {
        in.pos_halves = new_input(ctx, "pos_halves", hp.d_model, frames);
        // One quantization of the table for every layer's Q8_0 halves kernel.
        if (packed->has_q8_rel_pos()) in.pos_halves_q8 = Q8RelPosProjection::quantize_table(ctx, in.pos_halves);
    } else if (packed != nullptr && uses_fused_attention(hp, in.cpu_fused_ops)) {
        // Every layer's linear_pos reads the same table: quantized once, not once per layer.
        std::vector<const ggml_tensor *> readers;
        for (const ConformerLayerWeights & layer : w.layers) readers.push_back(layer.pos_w);
        in.pos_quantized = quantized_for(ctx, in.pos, packed, readers);
    }
}

/** Fills the inputs add_position_inputs made that the graph reads (either table may be unused, so unallocated). */
void set_position_inputs(const EncoderInputs & in, int frames, int d_model) {
    if (in.pos != nullptr && in.pos->buffer != nullptr) {
        const std::vector<float> pos = relative_positions(frames, d_model);
        ggml_backend_tensor_set(in.pos, pos.data(), 0, pos.size() * sizeof(float));
    }
    if (in.pos_halves != nullptr && in.pos_halves->buffer != nullptr) {
        const std::vector<float> halves = relative_position_halves(frames, d_model);
        ggml_backend_tensor_set(in.pos_halves, halves.data(), 0, halves.size() * sizeof(float));
    }
}

}  // namespace

PositionTable::Layout Encoder::position_layout() const {
    // The AMX attention op reads P as its own BF16 words, made once here rather than per run.
    return packed_.count() != 0 && packed_.attention_products() == AttentionProducts::AmxBf16 ? PositionTable::Layout::AmxWords
                                                                                              : PositionTable::Layout::F32Rows;
}

bool Encoder::fill_position_table(int frames, const std::atomic<bool> * abort, EncoderProfile * profile) {
    const size_t layers = w_.layers.size();
    const PositionTable::Layout layout = position_layout();
    int target = (frames + kPositionTableStep - 1) / kPositionTableStep * kPositionTableStep;
    if (!position_table_.fits(layout, target, hp_.d_model, layers)) target = frames;
    try {
        position_table_.allocate(layout, target, hp_.d_model, layers, backend_.buffer_type());  // a CPU graph's (keep_positions)
    } catch (const std::bad_alloc &) {
        return false;  // no room for it: this run projects the positions itself
    }
    GraphArena arena(graph_meta_);
    ggml_context * ctx = arena.ctx;
    EncoderInputs in;
    in.packed = packed_.count() != 0 ? &packed_ : nullptr;
    in.cpu_fused_ops = backend_.is_cpu();
    add_position_inputs(ctx, in, hp_, w_, target);
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, encoder_graph_nodes(hp_), false);
    for (size_t i = 0; i < layers; ++i) {
        ggml_tensor * p = build_position_projection(ctx, w_.layers[i], in);
        ggml_build_forward_expand(graph, layout == PositionTable::Layout::AmxWords
                                                 ? amx_position_words(ctx, p, position_table_.layer(i), hp_.head_dim())
                                                 : ggml_cpy(ctx, p, position_table_.layer(i)));
    }
    try {
        backend_.compute(
                graph, [&] { set_position_inputs(in, target, hp_.d_model); }, abort, profile, "positions");
    } catch (const Error & e) {
        position_table_.clear();                        // half filled: the next run starts it again
        if (e.code() != ErrorCode::OutOfMemory) throw;  // cancelled, or the device failed: as any run would say
        return false;                                   // the table's compute buffers did not fit: this run projects the positions itself
    } catch (...) {
        position_table_.clear();
        throw;
    }
    return true;
}

Encoder::Encoder(const Hparams & hp, const EncoderWeights & w, const PackedWeights & packed, ComputeBackend & backend)
        : hp_(hp),
          w_(w),
          packed_(packed),
          backend_(backend),
          position_table_(kPositionTableBytes) {
    backend_.reserve_graph_nodes(encoder_graph_nodes(hp_));
}

EncoderOutput Encoder::run(const MelSpectrogram & mel, EncoderHead head, bool keep_encoded, const std::atomic<bool> * abort, EncoderProfile * profile,
                           int prompt_index) {
    const int out_frames = subsampling_lengths(hp_, mel.n_frames, mel.valid_frames).spatial.back();
    // Zero mel frames are appended until T' is a multiple of 8. Valid outputs are
    // unchanged (every stage masks frames past the valid length, exactly as NeMo's
    // batch padding), and every matmul contraction over time (attention · V) then
    // fits the SIMD width, which keeps it on ggml's blocked kernels. The CPU's fused
    // attention takes any length, so there the padding would only be extra work.
    int mel_frames = mel.n_frames;
    while (!uses_fused_attention(hp_, backend_.is_cpu()) && subsampling_lengths(hp_, mel_frames, mel.valid_frames).spatial.back() % 8 != 0)
        ++mel_frames;
    std::vector<std::string> devices;
    int frames = 0, valid = 0;
    EncoderBuffers buffers;
    subsample_padded(mel, mel_frames, frames, valid, devices, buffers, abort, profile);
    EncoderOutput out;
    run_layers(buffers.subsampled, frames, valid, out_frames, head, keep_encoded, abort, profile, prompt_index, out);
    for (const std::string & d : devices) {
        if (std::find(out.devices.begin(), out.devices.end(), d) == out.devices.end()) out.devices.push_back(d);
    }
    return out;
}

void Encoder::pre_encode(const MelSpectrogram & mel, int & valid, EncoderBuffers & buffers, const std::atomic<bool> * abort) {
    std::vector<std::string> devices;
    int frames = 0;
    subsample_padded(mel, mel.n_frames, frames, valid, devices, buffers, abort, nullptr);
    buffers.subsampled.resize(size_t(valid) * size_t(hp_.d_model));
}

const EncoderOutput & Encoder::encode_pre_encoded(const float * rows, int n_rows, EncoderBuffers & buffers, const std::atomic<bool> * abort) {
    // As run(): off the CPU's fused attention, zero rows (masked as padding) make T' a multiple of 8.
    int frames = n_rows;
    while (!uses_fused_attention(hp_, backend_.is_cpu()) && frames % 8 != 0) ++frames;
    // assign + resize keep the vector's capacity: no allocation once a run of this size has been made.
    buffers.layer_input.assign(rows, rows + size_t(n_rows) * size_t(hp_.d_model));
    buffers.layer_input.resize(size_t(frames) * size_t(hp_.d_model), 0.0f);
    run_layers(buffers.layer_input, frames, n_rows, n_rows, EncoderHead::None, true, abort, nullptr, -1, buffers.output);
    return buffers.output;
}

void Encoder::subsample_padded(const MelSpectrogram & mel, int mel_frames, int & frames_out, int & valid_out, std::vector<std::string> & devices,
                               EncoderBuffers & buffers, const std::atomic<bool> * abort, EncoderProfile * profile) {
    const int factor = hp_.subsampling_factor;
    const SubsamplingLengths len = subsampling_lengths(hp_, mel_frames, mel.valid_frames);
    const int frames = len.spatial.back();
    const int stages = hp_.subsampling_stages();
    const int64_t D = hp_.d_model;
    frames_out = frames;
    valid_out = len.valid.back();

    const size_t graph_nodes = encoder_graph_nodes(hp_);
    const size_t meta_size = ggml_tensor_overhead() * graph_nodes + ggml_graph_overhead_custom(graph_nodes, false);
    if (graph_meta_.size() < meta_size) graph_meta_.resize(meta_size);
    auto add_devices = [&](const std::vector<std::string> & ran) {
        for (const std::string & d : ran) {
            if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
        }
    };

    // --- 1. subsampling, in tiles of output rows (causal models use one tile:
    // their asymmetric padding breaks the tile-edge argument above).
    std::vector<float> & subsampled = buffers.subsampled;
    subsampled.resize(size_t(frames) * D);
    const bool tiled = !hp_.causal_downsampling && frames > kTileFrames;
    const int margin = tiled ? kTileMargin : 0;
    for (int r0 = 0; r0 < frames; r0 += tiled ? kTileFrames : frames) {
        const int r1 = tiled ? std::min(frames, r0 + kTileFrames) : frames;
        const int first_row = r0 - margin;  // absolute output row of tile row 0
        const int rows = (r1 - r0) + 2 * margin;
        const int mel_first = first_row * factor;  // absolute mel frame of image row 0
        const int mel_rows = tiled ? rows * factor : mel_frames;

        GraphArena arena(graph_meta_);
        ggml_context * ctx = arena.ctx;
        EncoderInputs in;
        in.packed = packed_.count() != 0 ? &packed_ : nullptr;
        in.cpu_fused_ops = backend_.is_cpu();
        in.mel = new_input(ctx, "mel", hp_.n_mels, mel_rows);
        std::vector<std::vector<float>> mask_data(size_t(stages) + 1);
        in.stage_masks.assign(size_t(stages) + 1, nullptr);
        int stage_rows = mel_rows;
        int stage_first = mel_first;
        for (int k = 1; k <= stages; ++k) {
            stage_rows = hp_.causal_downsampling ? stage_rows / 2 + 1 : (stage_rows - 1) / 2 + 1;
            stage_first /= 2;  // exact: tiles start at multiples of the subsampling factor
            // Rows outside [0, L_k) in absolute terms are zero in NeMo (padding or mask).
            std::vector<float> m(size_t(stage_rows), 0.0f);
            bool any_zero = false;
            for (int i = 0; i < stage_rows; ++i) {
                const int a = stage_first + i;
                const bool ok = a >= 0 && a < len.valid[size_t(k)];
                m[size_t(i)] = ok ? 1.0f : 0.0f;
                any_zero = any_zero || !ok;
            }
            if (!any_zero) continue;
            in.stage_masks[size_t(k)] = new_input(ctx, "stage_mask", 1, 1, stage_rows);
            mask_data[size_t(k)] = std::move(m);
        }
        ggml_tensor * x = build_subsampling(ctx, hp_, w_, in);  // [D, rows]
        ggml_set_name(x, "subsampled");
        ggml_set_output(x);
        ggml_cgraph * graph = ggml_new_graph_custom(ctx, graph_nodes, false);
        ggml_build_forward_expand(graph, x);

        // The mel image [rows][M] (frequency fastest); frames outside the clip are zero.
        std::vector<float> & image = buffers.image;
        image.assign(size_t(mel_rows) * hp_.n_mels, 0.0f);
        for (int i = 0; i < mel_rows; ++i) {
            const int t = mel_first + i;
            if (t < 0 || t >= mel.n_frames) continue;
            for (int m = 0; m < hp_.n_mels; ++m) image[size_t(i) * hp_.n_mels + m] = mel.data[size_t(m) * mel.n_frames + t];
        }
        add_devices(backend_.compute(
                graph,
                [&] {
                    ggml_backend_tensor_set(in.mel, image.data(), 0, image.size() * sizeof(float));
                    for (size_t k = 0; k < in.stage_masks.size(); ++k) {
                        if (in.stage_masks[k])
                            ggml_backend_tensor_set(in.stage_masks[k], mask_data[k].data(), 0, mask_data[k].size() * sizeof(float));
                    }
                },
                abort, profile, "subsampling"));
        // Keep the tile's interior rows [r0, r1). A read from a lost GPU throws: the device's failure (device_work).
        backend_.device_work("reading the subsampling's output", [&] {
            ggml_backend_tensor_get(x, subsampled.data() + size_t(r0) * D, size_t(margin) * D * sizeof(float), size_t(r1 - r0) * D * sizeof(float));
        });
    }
}

void Encoder::run_layers(const std::vector<float> & subsampled, int frames, int valid, int out_frames, EncoderHead head, bool keep_encoded,
                         const std::atomic<bool> * abort, EncoderProfile * profile, int prompt_index, EncoderOutput & out) {
    const int64_t D = hp_.d_model;
    out.devices.clear();
    out.frames = out_frames;
    out.valid = valid;
    out.dim = hp_.d_model;
    const size_t graph_nodes = encoder_graph_nodes(hp_);
    const size_t meta_size = ggml_tensor_overhead() * graph_nodes + ggml_graph_overhead_custom(graph_nodes, false);
    if (graph_meta_.size() < meta_size) graph_meta_.resize(meta_size);
    auto add_devices = [&](const std::vector<std::string> & ran) {
        for (const std::string & d : ran) {
            if (std::find(out.devices.begin(), out.devices.end(), d) == out.devices.end()) out.devices.push_back(d);
        }
    };

    // --- 2. conformer layers and the head
    // The kept projections (its own graph, in graph_meta_ too, so before this run's arena).
    const bool keep_positions = uses_fused_attention(hp_, backend_.is_cpu()) &&
                                position_table_.fits(position_layout(), frames, D, w_.layers.size()) &&
                                (position_table_.frames() >= frames || fill_position_table(frames, abort, profile));
    GraphArena arena(graph_meta_);
    ggml_context * ctx = arena.ctx;
    EncoderInputs in;
    in.packed = packed_.count() != 0 ? &packed_ : nullptr;
    in.cpu_fused_ops = backend_.is_cpu();
    ggml_tensor * x_in = new_input(ctx, "subsampled", D, frames);
    if (keep_positions) {
        for (size_t i = 0; i < w_.layers.size(); ++i) in.kept_positions.emplace_back(w_.layers[i].pos_w, position_table_.view(ctx, i, frames));
    } else {
        add_position_inputs(ctx, in, hp_, w_, frames);
    }
    in.att_mask = new_input(ctx, "att_mask", frames, frames);
    std::vector<float> frame_mask_data;
    if (valid < frames) {
        in.frame_mask = new_input(ctx, "frame_mask", 1, frames);
        frame_mask_data = time_mask(frames, valid);
    }
    ggml_tensor * x = x_in;
    for (const ConformerLayerWeights & layer : w_.layers) x = build_conformer_layer(ctx, hp_, layer, x, in, frames);
    ggml_set_name(x, "encoded");
    ggml_set_output(x);

    ggml_tensor * head_out = nullptr;
    ggml_tensor * in_prompt = nullptr;
    if (head == EncoderHead::Ctc) {
        head_out = linear(ctx, x, w_.ctc_w, w_.ctc_b, in.packed);  // NeMo ConvASRDecoder (Conv1d k=1)
    } else if (head == EncoderHead::JointEnc) {
        ggml_tensor * joint_in = x;
        if (hp_.has_prompt) {
            in_prompt = new_input(ctx, "prompt_onehot", hp_.num_prompts, frames);
            joint_in = build_prompt_kernel(ctx, w_, x, in_prompt);
        }
        head_out = linear(ctx, joint_in, w_.joint_enc_w, w_.joint_enc_b, in.packed);  // NeMo RNNTJoint.project_encoder
    }
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, graph_nodes, false);
    ggml_build_forward_expand(graph, x);
    if (head_out != nullptr) {
        ggml_set_name(head_out, "head");
        ggml_set_output(head_out);
        ggml_build_forward_expand(graph, head_out);
    }
    add_devices(backend_.compute(
            graph,
            [&] {
                ggml_backend_tensor_set(x_in, subsampled.data(), 0, subsampled.size() * sizeof(float));
                set_position_inputs(in, frames, hp_.d_model);
                // Unused (so unallocated, and not built: T'² floats) when the fused attention op runs instead
                // of the masked softmax.
                if (in.att_mask->buffer != nullptr) {
                    const std::vector<float> att = attention_mask(hp_, frames, valid);
                    ggml_backend_tensor_set(in.att_mask, att.data(), 0, att.size() * sizeof(float));
                }
                if (in.frame_mask) ggml_backend_tensor_set(in.frame_mask, frame_mask_data.data(), 0, frame_mask_data.size() * sizeof(float));
                if (in_prompt != nullptr) {
                    const std::vector<float> onehot = prompt_onehot(hp_, prompt_index >= 0 ? prompt_index : prompt_index_for(hp_, "auto"), frames);
                    ggml_backend_tensor_set(in_prompt, onehot.data(), 0, onehot.size() * sizeof(float));
                }
            },
            abort, profile, "conformer layers"));

    // Only the unpadded frames leave the device.
    out.encoded.clear();  // `out` may be a reused one (EncoderBuffers): nothing of its last run stays
    out.head.clear();
    out.head_dim = 0;
    // A read from a lost GPU throws: the device's failure (device_work), as a failed compute is.
    backend_.device_work("reading the encoder's output", [&] {
        if (keep_encoded) {
            out.encoded.resize(size_t(out_frames) * hp_.d_model);
            ggml_backend_tensor_get(x, out.encoded.data(), 0, out.encoded.size() * sizeof(float));
        }
        if (head_out != nullptr) {
            out.head_dim = int(head_out->ne[0]);
            out.head.resize(size_t(out_frames) * out.head_dim);
            ggml_backend_tensor_get(head_out, out.head.data(), 0, out.head.size() * sizeof(float));
        }
    });
}

}  // namespace parakeet
