// FastConformer block, spec §3.5 — NeMo ConformerLayer.forward, ConformerFeedForward,
// ConformerConvolution (inference: dropouts are no-ops, batch norm uses running stats).
import { type AttentionContext, type AttentionWeights, loadAttention, relPositionAttention } from './attention.js';
import type { EncoderParams } from './hparams.js';
import { layerNorm, linear, optionalTensor, sigmoid, silu, tensor } from './linalg.js';
import type { WeightSource } from './weights.js';

export interface NormWeights {
  gamma: Float64Array;
  beta: Float64Array;
}

export interface FeedForwardWeights {
  w1: Float64Array; b1: Float64Array | null; // [FF][D]
  w2: Float64Array; b2: Float64Array | null; // [D][FF]
}

export interface ConvModuleWeights {
  pw1W: Float64Array; pw1B: Float64Array | null; // [2D][D]
  dwW: Float64Array; dwB: Float64Array | null; // [D][K]
  normType: 'batch_norm' | 'layer_norm';
  normGamma: Float64Array;
  normBeta: Float64Array;
  /** batch_norm only. */
  runningMean: Float64Array | null;
  runningVar: Float64Array | null;
  pw2W: Float64Array; pw2B: Float64Array | null; // [D][D]
  kernel: number;
  causal: boolean;
}

export interface ConformerLayerWeights {
  normFF1: NormWeights;
  ff1: FeedForwardWeights;
  normAtt: NormWeights;
  att: AttentionWeights;
  normConv: NormWeights;
  conv: ConvModuleWeights;
  normFF2: NormWeights;
  ff2: FeedForwardWeights;
  normOut: NormWeights;
}

function loadNorm(w: WeightSource, name: string, D: number): NormWeights {
  return { gamma: tensor(w, `${name}.weight`, [D]), beta: tensor(w, `${name}.bias`, [D]) };
}

function loadFF(w: WeightSource, name: string, D: number, FF: number): FeedForwardWeights {
  return {
    w1: tensor(w, `${name}.linear1.weight`, [D, FF]),
    b1: optionalTensor(w, `${name}.linear1.bias`, [FF]),
    w2: tensor(w, `${name}.linear2.weight`, [FF, D]),
    b2: optionalTensor(w, `${name}.linear2.bias`, [D]),
  };
}

export function loadConformerLayer(w: WeightSource, layer: number, enc: EncoderParams): ConformerLayerWeights {
  const D = enc.dModel;
  const K = enc.convKernel;
  const p = `encoder.layers.${layer}.`;
  const isBN = enc.convNormType === 'batch_norm';
  return {
    normFF1: loadNorm(w, p + 'norm_feed_forward1', D),
    ff1: loadFF(w, p + 'feed_forward1', D, enc.ffDim),
    normAtt: loadNorm(w, p + 'norm_self_att', D),
    att: loadAttention(w, p + 'self_attn.', D, enc.nHeads),
    normConv: loadNorm(w, p + 'norm_conv', D),
    conv: {
      pw1W: tensor(w, p + 'conv.pointwise_conv1.weight', [1, D, 2 * D]),
      pw1B: optionalTensor(w, p + 'conv.pointwise_conv1.bias', [2 * D]),
      dwW: tensor(w, p + 'conv.depthwise_conv.weight', [K, 1, D]),
      dwB: optionalTensor(w, p + 'conv.depthwise_conv.bias', [D]),
      normType: enc.convNormType,
      normGamma: tensor(w, p + 'conv.batch_norm.weight', [D]),
      normBeta: tensor(w, p + 'conv.batch_norm.bias', [D]),
      runningMean: isBN ? tensor(w, p + 'conv.batch_norm.running_mean', [D]) : null,
      runningVar: isBN ? tensor(w, p + 'conv.batch_norm.running_var', [D]) : null,
      pw2W: tensor(w, p + 'conv.pointwise_conv2.weight', [1, D, D]),
      pw2B: optionalTensor(w, p + 'conv.pointwise_conv2.bias', [D]),
      kernel: K,
      causal: enc.convCausal,
    },
    normFF2: loadNorm(w, p + 'norm_feed_forward2', D),
    ff2: loadFF(w, p + 'feed_forward2', D, enc.ffDim),
    normOut: loadNorm(w, p + 'norm_out', D),
  };
}

/** ConformerFeedForward: Linear D→FF, SiLU, Linear FF→D. */
export function feedForward(x: Float64Array, T: number, D: number, FF: number, fw: FeedForwardWeights): Float64Array {
  const h = linear(x, T, D, fw.w1, FF, fw.b1);
  for (let i = 0; i < h.length; i++) h[i] = silu(h[i]);
  return linear(h, T, FF, fw.w2, D, fw.b2);
}

/** ConformerConvolution up to the depthwise conv: pointwise_conv1 (D→2D), GLU (a·σ(b), a = channels [0,D)), rows t ≥ Tv zeroed. */
export function convGlu(x: Float64Array, T: number, Tv: number, D: number, cw: ConvModuleWeights): Float64Array {
  const h2 = linear(x, T, D, cw.pw1W, 2 * D, cw.pw1B);
  const g = new Float64Array(T * D);
  for (let t = 0; t < Tv && t < T; t++) {
    for (let c = 0; c < D; c++) g[t * D + c] = h2[t * 2 * D + c] * sigmoid(h2[t * 2 * D + D + c]);
  }
  // (rows t ≥ Tv of g stay zero: pad_mask fill.)
  return g;
}

/**
 * Depthwise Conv1d (kernel K, groups D): out[t] = b + Σ_k w[k]·g[t + k − padLeft] over `outRows`
 * outputs, input rows outside [0, inRows) read as zero. Offline: padLeft (K−1)/2 or K−1 (causal);
 * streaming: g = [conv cache | chunk] with padLeft 0 (NeMo CausalConv1D.update_cache).
 */
export function depthwiseConv(g: Float64Array, inRows: number, outRows: number, D: number, cw: ConvModuleWeights, padLeft: number): Float64Array {
  const K = cw.kernel;
  const dw = new Float64Array(outRows * D);
  for (let t = 0; t < outRows; t++) {
    for (let c = 0; c < D; c++) {
      let s = cw.dwB === null ? 0 : cw.dwB[c];
      for (let k = 0; k < K; k++) {
        const ti = t + k - padLeft;
        if (ti < 0 || ti >= inRows) continue;
        s += cw.dwW[c * K + k] * g[ti * D + c];
      }
      dw[t * D + c] = s;
    }
  }
  return dw;
}

/** ConformerConvolution after the depthwise conv: batch/layer norm (eps 1e-5) → SiLU → pointwise_conv2. */
export function convTail(dw: Float64Array, T: number, D: number, cw: ConvModuleWeights): Float64Array {
  let n: Float64Array;
  if (cw.normType === 'batch_norm') {
    n = new Float64Array(T * D);
    const rm = cw.runningMean as Float64Array;
    const rv = cw.runningVar as Float64Array;
    for (let t = 0; t < T; t++) {
      for (let c = 0; c < D; c++) {
        n[t * D + c] = ((dw[t * D + c] - rm[c]) / Math.sqrt(rv[c] + 1e-5)) * cw.normGamma[c] + cw.normBeta[c];
      }
    }
  } else {
    n = layerNorm(dw, T, D, cw.normGamma, cw.normBeta, 1e-5);
  }
  for (let i = 0; i < n.length; i++) n[i] = silu(n[i]);
  return linear(n, T, D, cw.pw2W, D, cw.pw2B);
}

/**
 * ConformerConvolution offline: GLU → zero frames t ≥ Tv → depthwise conv K (symmetric pad
 * (K−1)/2, or causal left pad K−1) → norm → SiLU → pointwise_conv2. x [T][D] → [T][D].
 */
export function convModule(x: Float64Array, T: number, Tv: number, D: number, cw: ConvModuleWeights): Float64Array {
  const g = convGlu(x, T, Tv, D, cw);
  const padLeft = cw.causal ? cw.kernel - 1 : Math.floor((cw.kernel - 1) / 2);
  return convTail(depthwiseConv(g, T, T, D, cw, padLeft), T, D, cw);
}

export interface ConformerLayerCapture {
  ff1?: Float64Array;
  att?: Float64Array;
  conv?: Float64Array;
  ff2?: Float64Array;
}

/**
 * The two sequence-mixing modules of a layer, given their normalised input [T][D]. Offline they see
 * the whole clip; streaming they also read and update the layer's attention and conv caches.
 */
export interface LayerMixers {
  attend(xh: Float64Array): Float64Array;
  convolve(xh: Float64Array): Float64Array;
}

/**
 * One ConformerLayer (NeMo ConformerLayer.forward):
 *   r = x + ½·FFN1(LN(x)); r += MHSA(LN(r)); r += Conv(LN(r)); r += ½·FFN2(LN(r)); y = LN_out(r).
 * If `capture` is given, the raw sub-module outputs (before the residual add) are stored in it.
 */
export function conformerBlock(
  x: Float64Array,
  T: number,
  lw: ConformerLayerWeights,
  enc: EncoderParams,
  mixers: LayerMixers,
  capture?: ConformerLayerCapture,
): Float64Array {
  const D = enc.dModel;
  const FF = enc.ffDim;
  const r = Float64Array.from(x);
  const f1 = feedForward(layerNorm(r, T, D, lw.normFF1.gamma, lw.normFF1.beta), T, D, FF, lw.ff1);
  for (let i = 0; i < r.length; i++) r[i] += 0.5 * f1[i];
  const a = mixers.attend(layerNorm(r, T, D, lw.normAtt.gamma, lw.normAtt.beta));
  for (let i = 0; i < r.length; i++) r[i] += a[i];
  const c = mixers.convolve(layerNorm(r, T, D, lw.normConv.gamma, lw.normConv.beta));
  for (let i = 0; i < r.length; i++) r[i] += c[i];
  const f2 = feedForward(layerNorm(r, T, D, lw.normFF2.gamma, lw.normFF2.beta), T, D, FF, lw.ff2);
  for (let i = 0; i < r.length; i++) r[i] += 0.5 * f2[i];
  if (capture) {
    capture.ff1 = f1;
    capture.att = a;
    capture.conv = c;
    capture.ff2 = f2;
  }
  return layerNorm(r, T, D, lw.normOut.gamma, lw.normOut.beta);
}

/** One ConformerLayer offline over a clip of T frames (Tv valid), positional table pe [2T−1][D]. */
export function conformerLayer(
  x: Float64Array,
  T: number,
  Tv: number,
  pe: Float64Array,
  lw: ConformerLayerWeights,
  enc: EncoderParams,
  ctx: AttentionContext,
  capture?: ConformerLayerCapture,
): Float64Array {
  const D = enc.dModel;
  return conformerBlock(x, T, lw, enc, {
    attend: (xh) => relPositionAttention(xh, T, Tv, pe, lw.att, D, enc.nHeads, ctx),
    convolve: (xh) => convModule(xh, T, Tv, D, lw.conv),
  }, capture);
}
