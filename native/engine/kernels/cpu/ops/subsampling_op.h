// The first two convolutions of NeMo's dw_striding ConvSubsampling as one ggml
// custom op (CPU, AVX-512 or AVX2: subsampling_avx2.h): conv.0 (1→C, 3×3, stride 2) + bias + ReLU + the
// valid-row mask, then stage 2's depthwise 3×3 stride-2 conv (its bias is folded
// into the pointwise bias that follows). conv.0's output is the largest tensor
// of the encoder (C × T/2 × n_mels/2: 20 MB for 10 s); fused it only ever lives
// as a few rows in cache, and the tap loops run vectorized over channels.
#pragma once

#include "ggml.h"
#include "packed_weights.h"

namespace parakeet {

/** The op runs on this CPU (AVX-512 or AVX2, checked at run time); symmetric padding (non-causal) only. */
bool fused_subsampling_available();

/**
 * A depthwise op's output, width × height positions of C channels: with ActivationFormat::None
 * the F32 tensor [C, width, height], channels fastest; otherwise one row per position
 * (h·width + w) of C values in that format ([row bytes, width·height], GGML_TYPE_I8), what the
 * pointwise conv's packed kernel reads (PackedMatmul::apply_quantized; C a multiple of 32).
 */
struct DepthwiseOutput {
    ggml_tensor * tensor;
    int64_t width, height;
};

/**
 * mel: [M, rows] (frequency fastest); conv0_w: [16, C] (9 taps, zero-padded to 16,
 * per channel); conv0_b: [C]; stage1_mask: [1, 1, H1] (1 keeps a conv.0 output row,
 * 0 zeroes it) or nullptr; dw_w: [(ky·3 + kx)·C + c] channels fastest. Returns the
 * depthwise output, W2 × H2 positions, in `format`.
 */
DepthwiseOutput fused_subsampling_front(ggml_context * ctx, ggml_tensor * mel, ggml_tensor * conv0_w, ggml_tensor * conv0_b,
                                        ggml_tensor * stage1_mask, ggml_tensor * dw_w, ActivationFormat format);

/**
 * A later stage's depthwise 3×3 stride-2 conv, padding 1 (symmetric), bias folded away as above:
 * x [C, W, H] (contiguous, channels fastest), dw_w as for fused_subsampling_front. Returns the
 * W' × H' positions in `format`. The same op's availability as fused_subsampling_available().
 */
DepthwiseOutput depthwise_stride2(ggml_context * ctx, ggml_tensor * x, ggml_tensor * dw_w, ActivationFormat format);

/**
 * x [C, F, T] (contiguous) → [F·C, T] in NeMo's flattening order (index c·F + f per frame): a
 * per-frame transpose as one pass split over frames (CPU graphs), where ggml's copy of the permuted
 * view walks every element through a 4-D index.
 */
ggml_tensor * flatten_channels_major(ggml_context * ctx, ggml_tensor * x);

}  // namespace parakeet
