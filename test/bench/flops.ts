// Matmul FLOPs of one encoder pass (what the kernels must execute), used to
// express the encoder's achieved GFLOP/s next to ggml's measured matmul rate.
import type { ModelInfo } from '../../native/index.js';

function stageLength(length: number): number {
  return Math.floor((length - 1) / 2) + 1;
}

export function encoderFlops(info: ModelInfo, samples: number): { frames: number; gflop: number } {
  const melFrames = 1 + Math.floor(samples / info.hopLength);
  const stages = Math.log2(info.subsamplingFactor);
  let t = melFrames;
  let f = info.nMels;
  const C = info.subsamplingChannels;
  let flops = 0;
  for (let s = 0; s < stages; s++) {
    const tOut = stageLength(t);
    const fOut = stageLength(f);
    if (s === 0) flops += 2 * tOut * fOut * 9 * C;
    else flops += 2 * tOut * fOut * C * (9 + C);  // depthwise + pointwise
    t = tOut;
    f = fOut;
  }
  const T = t;
  const D = info.dModel;
  flops += 2 * T * C * f * D;  // pre_encode.out
  const perLayer =
    8 * T * D * info.ffDim +          // two half-step FFNs, two matmuls each
    8 * T * D * D +                   // q, k, v, out
    2 * (2 * T - 1) * D * D +         // linear_pos
    6 * T * D * D +                   // pointwise_conv1 (D→2D) + pointwise_conv2
    2 * T * T * D * 2 + 2 * T * (2 * T - 1) * D;  // q·kᵀ, attn·v, q·pᵀ
  flops += info.nLayers * perLayer;
  flops += info.hasTransducer ? 2 * T * D * info.jointHidden : 2 * T * D * (info.vocabSize + 1);
  return { frames: T, gflop: flops / 1e9 };
}
