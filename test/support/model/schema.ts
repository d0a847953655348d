// The parakeet.cpp GGUF tensor schema (spec 1.6): exact NeMo state_dict names,
// ggml shapes (ne, fastest first) and how each tensor is initialised in a random
// model. Order follows NeMo's state_dict (module registration order).
import { type ModelOptions, hasCausalDownsampling, isTdt, isTransducer, subsampledFeatures } from './options.js';
import { type JointOutputParams, jointOutputWeight } from './joint-output.js';
import { slaneyMelFilterbank, symmetricHann } from './mel.js';
import { Rng } from './rng.js';
import type { Init, TensorPlan } from './tensor-plan.js';

export type { Init, TensorPlan };

const sym = (bound: number): Init => ({ kind: 'uniform', lo: -bound, hi: bound });
/** Variance-preserving uniform bound for a fan-in (Var = gain²/fan_in). */
const vp = (fanIn: number, gain = 1): Init => sym(gain * Math.sqrt(3 / fanIn));
// Biases stay small: large random biases add the same vector to every frame and
// wash out the temporal variation the decoders need.
const smallBias = (): Init => sym(0.02);
const around = (center: number, spread: number): Init => ({ kind: 'uniform', lo: center - spread, hi: center + spread });

// Scales of the random weights. Tuned with the float64 reference on a
// speech-like signal (tiny and small presets over many seeds, shape110m once)
// so that activations stay O(1), encoder frames keep most of their energy in
// the part that varies over time (~80% after 2-3 layers, ~50% after 17), and
// greedy CTC/RNNT/TDT decoding emits a varied mix of tokens and blanks with
// varying TDT durations (see test/unit/gguf/model-decodes.test.ts).
/** Output heads: logits ≈ N(0, HEAD_GAIN²) for unit-RMS inputs. */
export const HEAD_GAIN = 2;
/** Blank bias = K·σ·sqrt(2 ln V), near the expected maximum of V token logits. */
export const CTC_BLANK_K = 0.8;
/** RNNT only leaves a frame on blank, TDT also on a token with duration > 0, so RNNT needs more blank. */
export const TDT_BLANK_K = 0.8;
export const RNNT_BLANK_K = 0.92;
/** Approximate RMS of the joint's ReLU hidden state, used to scale its blank bias. */
const JOINT_HIDDEN_RMS = 0.85;
/** Sharper attention and a damped linear_out: soft attention averages all frames
 * and would otherwise add the same vector to each of them in every layer. */
const QK_GAIN = 2.5;
const OUT_GAIN = 0.35;
/** Bias −1 before each subsampling ReLU (sparse ReLU, small constant part). */
const SUB_RELU_SHIFT = 1;
/** Pieces after which streaming decoders restart from SOS. */
const END_PIECES = ['<EOU>', '<EOB>'];
/** Gain of the zero-sum first subsampling kernels of NA models (log-mel contrasts are a few units). */
const NA_KERNEL_GAIN = 0.5;
/** joint.pred gain, so the prediction net moves the joint as much as the encoder. */
const PRED_GAIN = 3;
/** See joint-output.ts. */
const ANTI_REPEAT = 1;
const LSTM_IH0_GAIN = 1.5;
const LSTM_IH_GAIN = 4;
const LSTM_HH_GAIN = 1.5;

function blankBias(sigma: number, vocab: number, k: number): number {
  return k * sigma * Math.sqrt(2 * Math.log(vocab));
}

function layerNorm(prefix: string, d: number): TensorPlan[] {
  return [
    { name: `${prefix}.weight`, ne: [d], allowlisted: false, init: around(1, 0.1) },
    { name: `${prefix}.bias`, ne: [d], allowlisted: false, init: sym(0.05) },
  ];
}

function linear(prefix: string, fanIn: number, fanOut: number, bias: boolean, allowlisted: boolean, gain = 1): TensorPlan[] {
  const out: TensorPlan[] = [{ name: `${prefix}.weight`, ne: [fanIn, fanOut], allowlisted, init: vp(fanIn, gain) }];
  if (bias) out.push({ name: `${prefix}.bias`, ne: [fanOut], allowlisted: false, init: smallBias() });
  return out;
}

function preprocessor(o: ModelOptions): TensorPlan[] {
  const fb = (): Float64Array => slaneyMelFilterbank({ sampleRate: 16000, nFft: 512, nMels: o.nMels });
  return [
    { name: 'preprocessor.featurizer.window', ne: [400], allowlisted: false, init: { kind: 'fixed', values: () => symmetricHann(400) } },
    { name: 'preprocessor.featurizer.fb', ne: [257, o.nMels, 1], allowlisted: false, init: { kind: 'fixed', values: fb } },
  ];
}

function subsampling(o: ModelOptions): TensorPlan[] {
  const C = o.subsamplingChannels;
  const p = 'encoder.pre_encode';
  const conv = (i: number, ne: number[], w: Init, b: Init): TensorPlan[] => [
    { name: `${p}.conv.${i}.weight`, ne, allowlisted: false, init: w },
    { name: `${p}.conv.${i}.bias`, ne: [C], allowlisted: false, init: b },
  ];
  // Each ReLU gets a pre-activation of unit variance and a bias of −1, i.e. a
  // sparse ReLU. A plain ReLU output is ~1/3 constant offset (its mean), and
  // that offset would be the same on every frame; the sparse one is ~1/10.
  // E[relu(z − 1)²] ≈ 0.075 for z ~ N(0, 1), so the layer after each ReLU gets a
  // gain of sqrt(1/0.075) to bring its output back to unit variance.
  const afterRelu = Math.sqrt(1 / 0.075);
  // Without normalization (NA, the streaming models) the log-mel keeps its level (about −5, silence
  // −16.6), which a random kernel would turn into a large offset shared by every frame, different for
  // every seed. Zero-sum first kernels see only local contrast, as after per-feature normalization.
  const firstKernel: Init = o.normalize === 'NA' ? { kind: 'zeroMeanRows', bound: NA_KERNEL_GAIN * Math.sqrt(3 / 9), rowLen: 9 } : vp(9);
  // Streaming models: some first-stage channels respond to a zero input (bias > 0), as trained ones
  // do, so a chunk whose pre-encode cache is zero-padded (right context 0) differs from the offline
  // pass, where the conv padding is applied after each stage.
  const firstBias = o.attContextStyle === 'regular' ? around(-SUB_RELU_SHIFT, 0.05) : around(-0.5, 0.8);
  return [
    ...conv(0, [3, 3, 1, C], firstKernel, firstBias),
    ...conv(2, [3, 3, 1, C], vp(9, afterRelu), sym(0.02)),
    ...conv(3, [1, 1, C, C], vp(C), around(-SUB_RELU_SHIFT, 0.05)),
    ...conv(5, [3, 3, 1, C], vp(9, afterRelu), sym(0.02)),
    ...conv(6, [1, 1, C, C], vp(C), around(-SUB_RELU_SHIFT, 0.05)),
    ...linear(`${p}.out`, C * subsampledFeatures(o.nMels, hasCausalDownsampling(o)), o.dModel, true, true, afterRelu),
  ];
}

function conformerLayer(o: ModelOptions, i: number): TensorPlan[] {
  const D = o.dModel;
  const p = `encoder.layers.${i}`;
  const b = o.useBias;
  const dk = D / o.nHeads;
  const opt = (t: TensorPlan): TensorPlan[] => (b ? [t] : []);
  const ffn = (n: 1 | 2): TensorPlan[] => [
    ...layerNorm(`${p}.norm_feed_forward${n}`, D),
    ...linear(`${p}.feed_forward${n}.linear1`, D, o.ffDim, b, true),
    ...linear(`${p}.feed_forward${n}.linear2`, o.ffDim, D, b, true),
  ];
  const convNorm: TensorPlan[] = [
    { name: `${p}.conv.batch_norm.weight`, ne: [D], allowlisted: false, init: around(1, 0.1) },
    { name: `${p}.conv.batch_norm.bias`, ne: [D], allowlisted: false, init: sym(0.05) },
    ...(o.convNormType === 'batch_norm'
      ? [
          { name: `${p}.conv.batch_norm.running_mean`, ne: [D], allowlisted: false, init: sym(0.1) },
          { name: `${p}.conv.batch_norm.running_var`, ne: [D], allowlisted: false, init: around(1, 0.5) },
        ]
      : []),
  ];
  return [
    ...ffn(1),
    ...layerNorm(`${p}.norm_conv`, D),
    { name: `${p}.conv.pointwise_conv1.weight`, ne: [1, D, 2 * D], allowlisted: false, init: vp(D) },
    ...opt({ name: `${p}.conv.pointwise_conv1.bias`, ne: [2 * D], allowlisted: false, init: smallBias() }),
    { name: `${p}.conv.depthwise_conv.weight`, ne: [o.convKernel, 1, D], allowlisted: false, init: vp(o.convKernel) },
    ...opt({ name: `${p}.conv.depthwise_conv.bias`, ne: [D], allowlisted: false, init: smallBias() }),
    ...convNorm,
    { name: `${p}.conv.pointwise_conv2.weight`, ne: [1, D, D], allowlisted: false, init: vp(D) },
    ...opt({ name: `${p}.conv.pointwise_conv2.bias`, ne: [D], allowlisted: false, init: smallBias() }),
    ...layerNorm(`${p}.norm_self_att`, D),
    // Own parameters come before submodules in a PyTorch state_dict.
    { name: `${p}.self_attn.pos_bias_u`, ne: [dk, o.nHeads], allowlisted: false, init: sym(0.1) },
    { name: `${p}.self_attn.pos_bias_v`, ne: [dk, o.nHeads], allowlisted: false, init: sym(0.1) },
    ...linear(`${p}.self_attn.linear_q`, D, D, b, true, QK_GAIN),
    ...linear(`${p}.self_attn.linear_k`, D, D, b, true, QK_GAIN),
    ...linear(`${p}.self_attn.linear_v`, D, D, b, true),
    ...linear(`${p}.self_attn.linear_out`, D, D, b, true, OUT_GAIN),
    ...linear(`${p}.self_attn.linear_pos`, D, D, false, true),
    ...ffn(2),
    ...layerNorm(`${p}.norm_out`, D),
  ];
}

function ctcHead(o: ModelOptions): TensorPlan[] {
  if (o.ctcHeadLocation === 'none') return [];
  const V = o.vocabSize;
  const p = `${o.ctcHeadLocation}.decoder_layers.0`;
  const bias = blankBias(HEAD_GAIN, V, CTC_BLANK_K);
  return [
    // The blank row is zero, so the blank logit is its bias alone: a random
    // blank row would meet the encoder's time-constant component and shift
    // blank up or down for the whole clip, differently for every seed.
    { name: `${p}.weight`, ne: [1, o.dModel, V + 1], allowlisted: false,
      init: { kind: 'zeroRows', bound: HEAD_GAIN * Math.sqrt(3 / o.dModel), rowLen: o.dModel, rows: [V] } },
    { name: `${p}.bias`, ne: [V + 1], allowlisted: false, init: { kind: 'offsets', bound: 0.1, offsets: new Map([[V, bias]]) } },
  ];
}

function predictionNet(o: ModelOptions): TensorPlan[] {
  const P = o.predHidden;
  const V = o.vocabSize;
  const lstm: TensorPlan[] = [];
  // Stronger than PyTorch's ±1/sqrt(P) default: with it the LSTM output is
  // ~0.1 after one layer and ~0.02 after two, and the prediction net would
  // hardly influence the joint. Layer 0 sees the unit-variance embedding; upper
  // layers see h (rms ~0.3), hence the larger gain.
  for (let l = 0; l < o.predLayers; l++) {
    const p = 'decoder.prediction.dec_rnn.lstm';
    lstm.push(
      { name: `${p}.weight_ih_l${l}`, ne: [P, 4 * P], allowlisted: false, init: vp(P, l === 0 ? LSTM_IH0_GAIN : LSTM_IH_GAIN) },
      { name: `${p}.weight_hh_l${l}`, ne: [P, 4 * P], allowlisted: false, init: vp(P, LSTM_HH_GAIN) },
      { name: `${p}.bias_ih_l${l}`, ne: [4 * P], allowlisted: false, init: sym(0.2) },
      { name: `${p}.bias_hh_l${l}`, ne: [4 * P], allowlisted: false, init: sym(0.2) },
    );
  }
  return [
    // NeMo: padding_idx = blank, so row V is zero; other rows ~ unit variance.
    { name: 'decoder.prediction.embed.weight', ne: [P, V + 1], allowlisted: false, init: { kind: 'zeroRows', bound: Math.sqrt(3), rowLen: P, rows: [V] } },
    ...lstm,
  ];
}

function joint(o: ModelOptions, plans: ReadonlyMap<string, TensorPlan>): TensorPlan[] {
  const V = o.vocabSize;
  const J = o.jointHidden;
  const nd = isTdt(o.arch) ? o.durations.length : 0;
  const sigma = HEAD_GAIN * JOINT_HIDDEN_RMS;
  const offsets = new Map<number, number>([[V, blankBias(sigma, V, o.blankBiasK ?? (nd > 0 ? TDT_BLANK_K : RNNT_BLANK_K))]]);
  // Nudge durations 1 and 2 so frames advance at a speech-like pace; the random
  // weights still make the argmax duration vary from frame to frame.
  o.durations.forEach((d, k) => {
    if (nd > 0 && (d === 1 || d === 2)) offsets.set(V + 1 + k, 0.5 * sigma);
  });
  // Special pieces (<EOU>, <EOB>, language tags) hold the last ids; see SPECIAL_PIECE_BIAS.
  for (let id = V - o.specialPieces.length; id < V; id++) offsets.set(id, o.specialBias);
  const params: JointOutputParams = {
    predHidden: o.predHidden, predLayers: o.predLayers, jointHidden: J, vocabSize: V, outputs: V + 1 + nd,
    seed: o.seed, bound: HEAD_GAIN * Math.sqrt(3 / J), antiRepeat: ANTI_REPEAT,
    antiStartRows: o.specialPieces.flatMap((piece, i) => (END_PIECES.includes(piece) ? [V - o.specialPieces.length + i] : [])),
  };
  return [
    ...linear('joint.pred', o.predHidden, J, true, true, PRED_GAIN),
    ...linear('joint.enc', o.dModel, J, true, true),
    { name: 'joint.joint_net.2.weight', ne: [J, V + 1 + nd], allowlisted: false, init: { kind: 'fixed', values: () => jointOutputWeight(params, plans, 'joint.joint_net.2.weight') } },
    { name: 'joint.joint_net.2.bias', ne: [V + 1 + nd], allowlisted: false, init: { kind: 'offsets', bound: 0.1, offsets } },
  ];
}

/**
 * Nemotron-3.5's prompt kernel: Linear(D + P → 2D) → ReLU → Linear(2D → D) on [encoder frame |
 * one-hot prompt]. The one-hot columns of the first weight are drawn as large as a whole frame's
 * contribution (±√3 instead of ±√(3/(D+P))), so the language visibly changes the decoder's input.
 */
function promptKernel(o: ModelOptions): TensorPlan[] {
  if (o.prompt === null) return [];
  const D = o.dModel;
  const inDim = D + o.prompt.numPrompts;
  const name = 'prompt_kernel.0.weight';
  const firstWeight = (): Float64Array => {
    const rng = new Rng(o.seed, name);
    const w = new Float64Array(inDim * 2 * D);
    const frameBound = Math.sqrt(3 / D);
    for (let r = 0; r < 2 * D; r++) {
      for (let c = 0; c < inDim; c++) w[r * inDim + c] = c < D ? rng.uniform(-frameBound, frameBound) : rng.uniform(-Math.sqrt(3), Math.sqrt(3));
    }
    return w;
  };
  return [
    { name, ne: [inDim, 2 * D], allowlisted: false, init: { kind: 'fixed', values: firstWeight } },
    { name: 'prompt_kernel.0.bias', ne: [2 * D], allowlisted: false, init: smallBias() },
    // The first layer's pre-activations have variance 2 (frame 1 + prompt 1), E[ReLU²] = 1, so a
    // plain variance-preserving second layer gives the joint unit-variance input like the encoder's.
    { name: 'prompt_kernel.2.weight', ne: [2 * D, D], allowlisted: false, init: vp(2 * D) },
    { name: 'prompt_kernel.2.bias', ne: [D], allowlisted: false, init: smallBias() },
  ];
}

/** Every tensor of a model with these options, in file order. */
export function tensorPlan(o: ModelOptions): TensorPlan[] {
  const layers: TensorPlan[] = [];
  for (let i = 0; i < o.nLayers; i++) layers.push(...conformerLayer(o, i));
  const plans = new Map<string, TensorPlan>();
  const transducer: TensorPlan[] = [];
  if (isTransducer(o.arch)) {
    const pred = predictionNet(o);
    const jointPlans = joint(o, plans);
    // jointOutputWeight reads the prediction net and joint.pred by name, lazily.
    for (const t of [...pred, ...jointPlans]) plans.set(t.name, t);
    transducer.push(...pred, ...jointPlans);
  }
  return [...preprocessor(o), ...subsampling(o), ...layers, ...transducer, ...ctcHead(o), ...promptKernel(o)];
}
