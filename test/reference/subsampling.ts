// dw_striding subsampling, spec §3.1–3.2 — NeMo ConvSubsampling('dw_striding') run through
// MaskedConvSequential (NeMo 2.x): rows t ≥ the current valid length are zeroed before every layer
// and after the last one.
//
// Feature maps are [channels][time][freq] (freq fastest). Layers (tensor indices):
//   stage 0: conv.0 (Conv2d 1→C, 3×3, stride 2) + ReLU(1)
//   stage s ≥ 1: conv.(3s−1) depthwise 3×3 stride 2, conv.(3s) pointwise 1×1, ReLU(3s+1)
// then flatten channel-major (c·F' + f) and `out` Linear C·F' → D, optional ×√D (xscaling).
import type { ParakeetHParams } from './hparams.js';
import { linear, tensor } from './linalg.js';
import type { WeightSource } from './weights.js';

export interface SubsamplingStage {
  /** stage 0: conv.0 [C][3][3]; later stages: depthwise [C][3][3]. */
  convW: Float64Array;
  convB: Float64Array;
  /** later stages only: pointwise [C_out][C_in]. */
  pwW: Float64Array | null;
  pwB: Float64Array | null;
}

export interface SubsamplingWeights {
  stages: SubsamplingStage[];
  channels: number;
  /** Frequency bins after the last stage (F'). */
  freqOut: number;
  outW: Float64Array;
  outB: Float64Array;
  dModel: number;
  causal: boolean;
  xscaling: boolean;
}

/**
 * Output length of one k=3, stride-2 stage (NeMo calc_length / calculate_conv_output_size):
 * symmetric pad 1+1: floor((n + 2 − 3)/2) + 1 = floor((n − 1)/2) + 1;
 * causal pad 2+1:    floor((n + 3 − 3)/2) + 1 = floor(n/2) + 1.
 */
export function stageOutLength(n: number, causal: boolean): number {
  return causal ? Math.floor(n / 2) + 1 : Math.floor((n - 1) / 2) + 1;
}

/** Spatial and valid lengths per stage, index 0 = input. */
export function subsamplingLengths(
  spatial: number,
  valid: number,
  nStages: number,
  causal = false,
): { spatial: number[]; valid: number[] } {
  const s = [spatial];
  const v = [valid];
  for (let i = 0; i < nStages; i++) {
    s.push(stageOutLength(s[i], causal));
    v.push(stageOutLength(v[i], causal));
  }
  return { spatial: s, valid: v };
}

export function loadSubsampling(w: WeightSource, hp: ParakeetHParams): SubsamplingWeights {
  const C = hp.enc.subsamplingChannels;
  const nStages = Math.round(Math.log2(hp.enc.subsamplingFactor));
  if (2 ** nStages !== hp.enc.subsamplingFactor) throw new Error('subsampling: factor must be a power of two');
  const causal = hp.enc.causalDownsampling;
  const p = 'encoder.pre_encode.';
  const stages: SubsamplingStage[] = [];
  stages.push({
    convW: tensor(w, p + 'conv.0.weight', [3, 3, 1, C]),
    convB: tensor(w, p + 'conv.0.bias', [C]),
    pwW: null,
    pwB: null,
  });
  for (let s = 1; s < nStages; s++) {
    const dw = 3 * s - 1;
    const pw = 3 * s;
    stages.push({
      convW: tensor(w, `${p}conv.${dw}.weight`, [3, 3, 1, C]),
      convB: tensor(w, `${p}conv.${dw}.bias`, [C]),
      pwW: tensor(w, `${p}conv.${pw}.weight`, [1, 1, C, C]),
      pwB: tensor(w, `${p}conv.${pw}.bias`, [C]),
    });
  }
  let freq = hp.enc.featIn;
  for (let s = 0; s < nStages; s++) freq = stageOutLength(freq, causal);
  const D = hp.enc.dModel;
  return {
    stages,
    channels: C,
    freqOut: freq,
    outW: tensor(w, p + 'out.weight', [C * freq, D]),
    outB: tensor(w, p + 'out.bias', [D]),
    dModel: D,
    causal,
    xscaling: hp.enc.xscaling,
  };
}

/** Zero time rows t ≥ valid of a [ch][H][W] map (NeMo apply_channel_mask). */
export function maskRows(x: Float64Array, ch: number, H: number, W: number, valid: number): void {
  const v = Math.max(0, Math.min(H, valid));
  for (let c = 0; c < ch; c++) x.fill(0, c * H * W + v * W, (c + 1) * H * W);
}

function reluInPlace(x: Float64Array): void {
  for (let i = 0; i < x.length; i++) if (x[i] < 0) x[i] = 0;
}

/**
 * 3×3 stride-2 convolution. groups = 1 with one input channel (conv.0, `inCh` = 1) or depthwise
 * (`inCh` = C, channel c reads only input channel c). Weight [C][kh][kw] = w[c*9 + kh*3 + kw]
 * (torch (C,1,3,3)). Output row o reads input rows 2o + kh − padLo (zero outside), same for columns.
 */
export function conv3x3s2(
  x: Float64Array,
  inCh: number,
  H: number,
  W: number,
  w: Float64Array,
  b: Float64Array,
  outCh: number,
  causal: boolean,
): { y: Float64Array; H: number; W: number } {
  const padLo = causal ? 2 : 1;
  const Ho = stageOutLength(H, causal);
  const Wo = stageOutLength(W, causal);
  const y = new Float64Array(outCh * Ho * Wo);
  // Accumulate tap by tap (bias first, then taps in (kh, kw) order) over the in-range output span.
  for (let c = 0; c < outCh; c++) {
    const src = inCh === 1 ? 0 : c * H * W;
    const dst = c * Ho * Wo;
    y.fill(b[c], dst, dst + Ho * Wo);
    for (let kh = 0; kh < 3; kh++) {
      for (let kw = 0; kw < 3; kw++) {
        const a = w[c * 9 + kh * 3 + kw];
        // columns: iw = 2·ow + kw − padLo must lie in [0, W).
        const owLo = Math.max(0, Math.ceil((padLo - kw) / 2));
        const owHi = Math.min(Wo - 1, Math.floor((W - 1 - kw + padLo) / 2));
        for (let oh = 0; oh < Ho; oh++) {
          const ih = 2 * oh + kh - padLo;
          if (ih < 0 || ih >= H) continue;
          const xr = src + ih * W + kw - padLo;
          const yr = dst + oh * Wo;
          for (let ow = owLo; ow <= owHi; ow++) y[yr + ow] += a * x[xr + 2 * ow];
        }
      }
    }
  }
  return { y, H: Ho, W: Wo };
}

/** 1×1 convolution C→C: y[co] = b[co] + Σ_ci W[co, ci]·x[ci] (torch (C,C,1,1): w[co*C + ci]). */
export function pointwise(x: Float64Array, C: number, plane: number, w: Float64Array, b: Float64Array): Float64Array {
  const y = new Float64Array(C * plane);
  for (let co = 0; co < C; co++) {
    const yo = co * plane;
    y.fill(b[co], yo, yo + plane);
    for (let ci = 0; ci < C; ci++) {
      const a = w[co * C + ci];
      if (a === 0) continue;
      const xo = ci * plane;
      for (let i = 0; i < plane; i++) y[yo + i] += a * x[xo + i];
    }
  }
  return y;
}

export interface SubsamplingResult {
  /** [T'][D], row per encoder frame. */
  out: Float64Array;
  frames: number;
  validFrames: number;
}

/**
 * Run subsampling on mel [M][T] (time fastest) with valid length L_0 = mel valid frames.
 * NeMo order: mask(L0) conv.0 → L1 → mask ReLU mask | dw → L2 → mask pw mask ReLU mask | … final mask.
 */
export function runSubsampling(
  mel: Float64Array,
  nMels: number,
  nFrames: number,
  validFrames: number,
  sw: SubsamplingWeights,
): SubsamplingResult {
  const C = sw.channels;
  // Image [1][T][M]: x[t*M + m] = mel[m*T + t].
  let H = nFrames;
  let W = nMels;
  let x: Float64Array = new Float64Array(H * W);
  for (let m = 0; m < nMels; m++) for (let t = 0; t < nFrames; t++) x[t * W + m] = mel[m * nFrames + t];
  let L = validFrames;
  let ch = 1;
  for (let s = 0; s < sw.stages.length; s++) {
    const st = sw.stages[s];
    maskRows(x, ch, H, W, L);
    const r = conv3x3s2(x, ch, H, W, st.convW, st.convB, C, sw.causal);
    x = r.y;
    H = r.H;
    W = r.W;
    ch = C;
    L = stageOutLength(L, sw.causal);
    maskRows(x, C, H, W, L);
    if (st.pwW !== null && st.pwB !== null) {
      x = pointwise(x, C, H * W, st.pwW, st.pwB);
      maskRows(x, C, H, W, L);
    }
    reluInPlace(x);
    maskRows(x, C, H, W, L);
  }
  if (W !== sw.freqOut) throw new Error('subsampling: frequency size mismatch');
  // Flatten channel-major: v[t][c*F' + f] = x[c][t][f].
  const F = W;
  const flat = new Float64Array(H * C * F);
  for (let t = 0; t < H; t++) {
    for (let c = 0; c < C; c++) {
      const src = c * H * F + t * F;
      const dst = t * C * F + c * F;
      for (let f = 0; f < F; f++) flat[dst + f] = x[src + f];
    }
  }
  const out = linear(flat, H, C * F, sw.outW, sw.dModel, sw.outB);
  if (sw.xscaling) {
    const k = Math.sqrt(sw.dModel);
    for (let i = 0; i < out.length; i++) out[i] *= k;
  }
  return { out, frames: H, validFrames: Math.max(0, Math.min(L, H)) };
}
