// NeMo ConvSubsampling, subsampling="dw_striding" (spec §3.1): conv.0 (1→C,
// 3×3, stride 2) + ReLU, then per further stage a depthwise 3×3 stride-2 conv
// and a pointwise conv + ReLU, then Linear(C·F' → D).
//
// Activations are kept channels-fastest ([C, W=freq, H=time]) so pointwise
// convs are plain matmuls and ggml's depthwise kernel runs its CWHN path.
#include <cmath>

#include "encoder_graph.h"
#include "graph_helpers.h"
#include "subsampling_op.h"

namespace parakeet {

SubsamplingLengths subsampling_lengths(const Hparams & hp, int mel_frames, int mel_valid) {
    SubsamplingLengths len;
    len.spatial.push_back(mel_frames);
    len.valid.push_back(mel_valid);
    len.freq.push_back(hp.n_mels);
    // NeMo calc_length with kernel 3, stride 2: symmetric padding 1+1 -> floor((L−1)/2)+1;
    // causal padding 2+1 -> floor(L/2)+1.
    auto next = [&](int l) { return hp.causal_downsampling ? l / 2 + 1 : (l - 1) / 2 + 1; };
    for (int s = 0; s < hp.subsampling_stages(); ++s) {
        len.spatial.push_back(next(len.spatial.back()));
        len.valid.push_back(next(len.valid.back()));
        len.freq.push_back(next(len.freq.back()));
    }
    return len;
}

namespace {

/**
 * A stage's pointwise conv + ReLU + MaskedConvSequential's time mask on W·H positions (H time rows
 * of W frequency columns): x is [C, W·H] F32, or (quantized) already in the packed kernel's
 * activation format (pointwise_input_format); one node through a packed kernel's epilogue, else
 * ggml's ops.
 */
ggml_tensor * pointwise_relu_masked(ggml_context * ctx, ggml_tensor * x, bool quantized, ggml_tensor * w, ggml_tensor * b,
                                    const PackedWeights * packed, ggml_tensor * mask, int64_t W, int64_t H) {
    const PackedMatmul * p = packed != nullptr ? packed->find(w) : nullptr;
    if (p != nullptr) {
        Epilogue e;
        e.bias = b;
        e.relu = true;
        e.row_mask = mask;
        e.mask_group = W;
        ggml_tensor * y = quantized ? p->apply_quantized(ctx, x, ggml_get_name(w), e) : p->apply(ctx, x, ggml_get_name(w), e);
        return ggml_reshape_3d(ctx, y, w->ne[1], W, H);
    }
    GGML_ASSERT(!quantized);
    ggml_tensor * y = ggml_reshape_3d(ctx, ggml_relu(ctx, linear(ctx, x, w, b)), w->ne[1], W, H);
    return mask != nullptr ? ggml_mul(ctx, y, mask) : y;
}

// The activation format a stage's pointwise conv reads (None: F32), which the fused depthwise ops
// write directly (subsampling_op.h), as the fused layer norm does for the conformer's matmuls.
ActivationFormat pointwise_input_format(const PackedWeights * packed, ggml_tensor * pw_w) {
    const PackedMatmul * p = packed != nullptr ? packed->find(pw_w) : nullptr;
    return p != nullptr && pw_w->ne[0] % 32 == 0 ? p->activation_format() : ActivationFormat::None;
}

/** A fused depthwise op's output (in `format`) through the stage's pointwise conv (pointwise_relu_masked). */
ggml_tensor * stage_output(ggml_context * ctx, const DepthwiseOutput & dw, ActivationFormat format, ggml_tensor * pw_w, ggml_tensor * pw_b,
                           const PackedWeights * packed, ggml_tensor * mask) {
    const bool quantized = format != ActivationFormat::None;
    ggml_tensor * x = quantized ? dw.tensor : ggml_reshape_2d(ctx, dw.tensor, dw.tensor->ne[0], dw.width * dw.height);
    return pointwise_relu_masked(ctx, x, quantized, pw_w, pw_b, packed, mask, dw.width, dw.height);
}

/**
 * NeMo CausalConv2D pads 2 before and 1 after on both axes. The convs here pad 2 on both sides
 * instead (their own symmetric padding, where ggml_pad_ext copied the whole input element by element
 * on one thread) and drop what that adds: output i reads padded inputs 2i … 2i+2 either way, and only
 * an odd length gets one more output at the end, past the causal length floor(n/2) + 1.
 */
constexpr int kCausalPad = 2;

/** [C, W, H] channels-fastest cut to its first `width` columns and `height` rows (a copy only where they differ). */
ggml_tensor * crop_causal(ggml_context * ctx, ggml_tensor * x, int64_t width, int64_t height) {
    if (x->ne[1] == width && x->ne[2] == height) return x;
    return ggml_cont(ctx, ggml_view_3d(ctx, x, x->ne[0], width, height, x->nb[1], x->nb[2], 0));
}

int64_t causal_length(int64_t n) { return n / 2 + 1; }

// conv.0: full 3×3 conv over the 1-channel [M, T] image, as im2col + matmul
// so the result comes out channels-fastest: [C, W1, H1]; ReLU; stage-1 mask.
ggml_tensor * conv0_stage(ggml_context * ctx, const Hparams & hp, const EncoderWeights & w, const EncoderInputs & in) {
    const int64_t C = hp.subsampling_channels;
    const bool causal = hp.causal_downsampling;
    const int pad = causal ? kCausalPad : 1;
    ggml_tensor * image = in.mel;
    // im2col only reads the kernel's shape [3, 3, 1, C]; the taps live in conv0_w.
    ggml_tensor * kernel_shape = ggml_view_4d(ctx, w.conv0_w, 3, 3, 1, C, 3 * sizeof(float), 9 * sizeof(float), 9 * sizeof(float), 0);
    ggml_tensor * cols = ggml_im2col(ctx, kernel_shape, image, 2, 2, pad, pad, 1, 1, true, GGML_TYPE_F32);  // [9, W1, H1]
    const int64_t W1 = cols->ne[1], H1 = cols->ne[2];
    cols = ggml_pad(ctx, cols, 16 - 9, 0, 0, 0);                                              // zero taps 9..15
    ggml_tensor * x = ggml_mul_mat(ctx, w.conv0_w, ggml_reshape_2d(ctx, cols, 16, W1 * H1));  // [C, W1·H1]
    x = ggml_relu(ctx, ggml_add(ctx, x, w.conv0_b));
    x = ggml_reshape_3d(ctx, x, C, W1, H1);
    if (causal) x = crop_causal(ctx, x, causal_length(image->ne[0]), causal_length(image->ne[1]));
    // NeMo MaskedConvSequential: time rows past the valid length are zeroed before the next stage.
    if (in.stage_masks.size() > 1 && in.stage_masks[1] != nullptr) x = ggml_mul(ctx, x, in.stage_masks[1]);

    return x;
}

}  // namespace

bool uses_fused_subsampling(const Hparams & hp, const EncoderWeights & w, bool cpu_graph) {
    return !hp.causal_downsampling && cpu_graph && hp.subsampling_channels % 16 == 0 && !w.stages.empty() && fused_subsampling_available();
}

ggml_tensor * build_subsampling(ggml_context * ctx, const Hparams & hp, const EncoderWeights & w, const EncoderInputs & in) {
    const int64_t C = hp.subsampling_channels;
    const bool causal = hp.causal_downsampling;
    const int pad = causal ? 0 : 1;

    const bool fused = uses_fused_subsampling(hp, w, in.cpu_fused_ops);
    ggml_tensor * x = nullptr;
    if (fused) {
        // conv.0 + ReLU + mask + the first depthwise conv in one op (subsampling_op.h).
        ggml_tensor * mask1 = in.stage_masks.size() > 1 ? in.stage_masks[1] : nullptr;
        const SubsamplingStageWeights & st = w.stages[0];
        const ActivationFormat format = pointwise_input_format(in.packed, st.pw_w);
        const DepthwiseOutput dw = fused_subsampling_front(ctx, in.mel, w.conv0_w, w.conv0_b, mask1, st.dw_w, format);
        ggml_tensor * mask2 = in.stage_masks.size() > 2 ? in.stage_masks[2] : nullptr;
        x = stage_output(ctx, dw, format, st.pw_w, st.pw_b, in.packed, mask2);
    } else {
        x = conv0_stage(ctx, hp, w, in);
    }

    for (size_t s = fused ? 1 : 0; s < w.stages.size(); ++s) {
        const SubsamplingStageWeights & st = w.stages[s];
        const size_t k = s + 2;
        ggml_tensor * mask = k < in.stage_masks.size() ? in.stage_masks[k] : nullptr;
        if (fused && ggml_is_contiguous(x)) {
            const ActivationFormat format = pointwise_input_format(in.packed, st.pw_w);
            x = stage_output(ctx, depthwise_stride2(ctx, x, st.dw_w, format), format, st.pw_w, st.pw_b, in.packed, mask);
            continue;
        }
        ggml_tensor * cwhn = ggml_permute(ctx, x, 2, 0, 1, 3);  // view [W, H, C], channels contiguous
        // The CWHN kernel path wants the kernel channels-fastest too: view [1, C, 3, 3] as [3, 3, 1, C].
        ggml_tensor * kernel_cwhn = ggml_permute(ctx, st.dw_w, 2, 3, 0, 1);
        const int stage_pad = causal ? kCausalPad : pad;
        ggml_tensor * dw = ggml_conv_2d_dw_direct(ctx, kernel_cwhn, cwhn, 2, 2, stage_pad, stage_pad, 1, 1);
        int64_t W = dw->ne[0], H = dw->ne[1];
        ggml_tensor * flat = ggml_view_2d(ctx, dw, C, W * H, size_t(C) * sizeof(float), 0);  // [C, W·H]
        if (causal) {
            // dw is channels-fastest in memory: view it [C, W, H] to cut the causal extent.
            W = causal_length(x->ne[1]);
            H = causal_length(x->ne[2]);
            ggml_tensor * chw = ggml_view_3d(ctx, dw, C, dw->ne[0], dw->ne[1], size_t(C) * sizeof(float), size_t(C) * dw->ne[0] * sizeof(float), 0);
            flat = ggml_reshape_2d(ctx, crop_causal(ctx, chw, W, H), C, W * H);
        }
        x = pointwise_relu_masked(ctx, flat, false, st.pw_w, st.pw_b, in.packed, mask, W, H);  // depthwise bias is folded into pw_b
    }

    // Flatten per time step as NeMo does (channel-major: index c·F' + f), then Linear.
    const int64_t F = x->ne[1], T = x->ne[2];
    if (in.cpu_fused_ops && ggml_is_contiguous(x)) {
        x = flatten_channels_major(ctx, x);
    } else {
        x = ggml_cont(ctx, ggml_permute(ctx, x, 1, 0, 2, 3));  // [F, C, T]
        x = ggml_reshape_2d(ctx, x, F * C, T);
    }
    x = linear(ctx, x, w.sub_out_w, w.sub_out_b, in.packed);                // [D, T']
    if (hp.xscaling) x = ggml_scale(ctx, x, std::sqrt(float(hp.d_model)));  // NeMo xscale = √d_model
    return x;
}

}  // namespace parakeet
