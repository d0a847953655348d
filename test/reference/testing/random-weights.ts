// In-memory WeightSource with random weights, exact spec §1.6 tensor names and ggml shapes.
// For reference self-tests only: the filterbank is random non-negative (not slaney), the window is the
// real symmetric Hann, weights are scaled ~1/√fan_in so activations stay O(1).
import type { WeightSource } from '../weights.js';

export interface MemoryTensor {
  ne: number[];
  data: Float64Array;
}

export class MemoryWeightSource implements WeightSource {
  readonly kv: Map<string, unknown>;
  readonly tensors: Map<string, MemoryTensor>;

  constructor(kv: Map<string, unknown> = new Map(), tensors: Map<string, MemoryTensor> = new Map()) {
    this.kv = kv;
    this.tensors = tensors;
  }

  has(name: string): boolean {
    return this.tensors.has(name);
  }

  ne(name: string): number[] {
    return this.get(name).ne.slice();
  }

  f64(name: string): Float64Array {
    return Float64Array.from(this.get(name).data);
  }

  set(name: string, ne: number[], data: Float64Array): void {
    const n = ne.reduce((a, b) => a * b, 1);
    if (data.length !== n) throw new Error(`MemoryWeightSource: ${name} has ${data.length} values for ne [${ne.join(',')}]`);
    this.tensors.set(name, { ne: ne.slice(), data });
  }

  private get(name: string): MemoryTensor {
    const t = this.tensors.get(name);
    if (t === undefined) throw new Error(`MemoryWeightSource: no tensor ${name}`);
    return t;
  }
}

/** Deterministic PRNG (mulberry32). */
export function makeRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type RandomHead = 'ctc' | 'rnnt' | 'tdt' | 'hybrid_rnnt_ctc' | 'hybrid_tdt_ctc';

export interface RandomModelDims {
  seed?: number;
  /** Heads: 'ctc' → `decoder.*` (standalone); hybrids → `ctc_decoder.*` plus the transducer. */
  head?: RandomHead;
  nMels?: number;
  dModel?: number;
  nLayers?: number;
  nHeads?: number;
  ffDim?: number;
  convKernel?: number;
  subsamplingChannels?: number;
  subsamplingFactor?: number;
  vocabSize?: number;
  predHidden?: number;
  predLayers?: number;
  jointHidden?: number;
  durations?: number[];
  maxSymbols?: number;
  useBias?: boolean;
  convNormType?: 'batch_norm' | 'layer_norm';
  xscaling?: boolean;
  normalize?: 'per_feature' | 'NA';
  causalDownsampling?: boolean;
  convCausal?: boolean;
  sampleRate?: number;
  nFft?: number;
  winLength?: number;
  hopLength?: number;
  preemph?: number;
  /** Custom vocabulary (length must equal vocabSize). */
  pieces?: string[];
  /** Scale of every random weight relative to 1/√fan_in (default 1). */
  gain?: number;
}

/** A small vocabulary with '▁'-pieces, continuations, punctuation and <unk> at 0. */
export function makeTestPieces(V: number): string[] {
  const base = ['<unk>', '▁the', '▁a', 's', 'ing', ',', '.', '?', '▁I', "'", '▁well', 't', '▁don', 'ed', '▁to', 'e'];
  const out: string[] = [];
  for (let i = 0; i < V; i++) out.push(i < base.length ? base[i] : i % 3 === 0 ? `x${i}` : `▁w${i}`);
  return out;
}

function stageOut(n: number, causal: boolean): number {
  return causal ? Math.floor(n / 2) + 1 : Math.floor((n - 1) / 2) + 1;
}

export function makeRandomWeightSource(dims: RandomModelDims = {}): MemoryWeightSource {
  const rng = makeRng(dims.seed ?? 1234);
  const gain = dims.gain ?? 1;
  const head = dims.head ?? 'tdt';
  const M = dims.nMels ?? 80;
  const D = dims.dModel ?? 64;
  const L = dims.nLayers ?? 2;
  const H = dims.nHeads ?? 4;
  const FF = dims.ffDim ?? 4 * D;
  const K = dims.convKernel ?? 9;
  const C = dims.subsamplingChannels ?? 32;
  const factor = dims.subsamplingFactor ?? 8;
  const V = dims.vocabSize ?? 32;
  const P = dims.predHidden ?? 32;
  const Lp = dims.predLayers ?? 1;
  const J = dims.jointHidden ?? 32;
  const useBias = dims.useBias ?? true;
  const convNorm = dims.convNormType ?? 'batch_norm';
  const nFft = dims.nFft ?? 512;
  const win = dims.winLength ?? 400;
  const causal = dims.causalDownsampling ?? false;
  const hasCtc = head === 'ctc' || head === 'hybrid_rnnt_ctc' || head === 'hybrid_tdt_ctc';
  const hasTransducer = head !== 'ctc';
  const isTdt = head === 'tdt' || head === 'hybrid_tdt_ctc';
  const durations = isTdt ? dims.durations ?? [0, 1, 2, 3, 4] : [];
  const pieces = dims.pieces ?? makeTestPieces(V);
  if (pieces.length !== V) throw new Error('makeRandomWeightSource: pieces.length != vocabSize');
  const nStages = Math.round(Math.log2(factor));
  let F = M;
  for (let s = 0; s < nStages; s++) F = stageOut(F, causal);

  const src = new MemoryWeightSource();
  const kv = src.kv;
  kv.set('general.architecture', 'parakeet');
  kv.set('general.name', 'random-test-model');
  kv.set('parakeet.arch', head);
  kv.set('parakeet.encoder.feat_in', M);
  kv.set('parakeet.encoder.d_model', D);
  kv.set('parakeet.encoder.n_layers', L);
  kv.set('parakeet.encoder.n_heads', H);
  kv.set('parakeet.encoder.ff_dim', FF);
  kv.set('parakeet.encoder.conv_kernel', K);
  kv.set('parakeet.encoder.conv_norm_type', convNorm);
  kv.set('parakeet.encoder.subsampling_factor', factor);
  kv.set('parakeet.encoder.subsampling_conv_channels', C);
  kv.set('parakeet.encoder.xscaling', dims.xscaling ?? false);
  kv.set('parakeet.encoder.pos_emb_max_len', 5000);
  kv.set('parakeet.encoder.use_bias', useBias);
  if (causal || dims.convCausal) {
    kv.set('parakeet.encoder.causal_downsampling', causal);
    kv.set('parakeet.encoder.conv_causal', dims.convCausal ?? false);
  }
  kv.set('parakeet.preprocessor.sample_rate', dims.sampleRate ?? 16000);
  kv.set('parakeet.preprocessor.n_mels', M);
  kv.set('parakeet.preprocessor.n_fft', nFft);
  kv.set('parakeet.preprocessor.win_length', win);
  kv.set('parakeet.preprocessor.hop_length', dims.hopLength ?? 160);
  kv.set('parakeet.preprocessor.preemph', dims.preemph ?? Math.fround(0.97));
  kv.set('parakeet.preprocessor.mag_power', 2.0);
  kv.set('parakeet.preprocessor.normalize', dims.normalize ?? 'per_feature');
  kv.set('parakeet.preprocessor.log_zero_guard', Math.fround(5.96e-8));
  kv.set('parakeet.vocab_size', V);
  kv.set('parakeet.blank_id', V);
  kv.set('parakeet.tokenizer.pieces', pieces.slice());
  if (hasTransducer) {
    kv.set('parakeet.decoder.pred_hidden', P);
    kv.set('parakeet.decoder.pred_rnn_layers', Lp);
    kv.set('parakeet.joint.joint_hidden', J);
    kv.set('parakeet.joint.activation', 'relu');
    kv.set('parakeet.decoding.max_symbols', dims.maxSymbols ?? 10);
    if (isTdt) kv.set('parakeet.tdt.durations', durations.slice());
  }

  const uniform = (n: number, scale: number): Float64Array => {
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (2 * rng() - 1) * scale;
    return a;
  };
  const weight = (name: string, ne: number[], fanIn: number): void =>
    src.set(name, ne, uniform(ne.reduce((a, b) => a * b, 1), (gain * Math.sqrt(3)) / Math.sqrt(fanIn)));
  const bias = (name: string, n: number, always = false): void => {
    if (useBias || always) src.set(name, [n], uniform(n, 0.1));
  };
  const norm = (name: string, n: number): void => {
    const g = new Float64Array(n);
    for (let i = 0; i < n; i++) g[i] = 1 + 0.2 * (2 * rng() - 1);
    src.set(`${name}.weight`, [n], g);
    src.set(`${name}.bias`, [n], uniform(n, 0.1));
  };

  // Preprocessor buffers.
  const nBins = nFft / 2 + 1;
  const fb = new Float64Array(M * nBins);
  for (let i = 0; i < fb.length; i++) fb[i] = rng() < 0.2 ? rng() * 0.05 : 0;
  for (let m = 0; m < M; m++) fb[m * nBins + Math.min(nBins - 1, 1 + 3 * m)] += 0.01; // every filter non-empty
  src.set('preprocessor.featurizer.fb', [nBins, M, 1], fb);
  const window = new Float64Array(win);
  for (let n = 0; n < win; n++) window[n] = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / (win - 1));
  src.set('preprocessor.featurizer.window', [win], window);

  // Subsampling (dw_striding). Conv biases are always present in NeMo's subsampling.
  const pe = 'encoder.pre_encode.';
  weight(pe + 'conv.0.weight', [3, 3, 1, C], 9);
  bias(pe + 'conv.0.bias', C, true);
  for (let s = 1; s < nStages; s++) {
    weight(`${pe}conv.${3 * s - 1}.weight`, [3, 3, 1, C], 9);
    bias(`${pe}conv.${3 * s - 1}.bias`, C, true);
    weight(`${pe}conv.${3 * s}.weight`, [1, 1, C, C], C);
    bias(`${pe}conv.${3 * s}.bias`, C, true);
  }
  weight(pe + 'out.weight', [C * F, D], C * F);
  bias(pe + 'out.bias', D, true);

  // Conformer layers.
  const dk = D / H;
  for (let l = 0; l < L; l++) {
    const p = `encoder.layers.${l}.`;
    for (const ff of ['feed_forward1', 'feed_forward2']) {
      norm(`${p}norm_${ff}`, D);
      weight(`${p}${ff}.linear1.weight`, [D, FF], D);
      bias(`${p}${ff}.linear1.bias`, FF);
      weight(`${p}${ff}.linear2.weight`, [FF, D], FF);
      bias(`${p}${ff}.linear2.bias`, D);
    }
    norm(`${p}norm_self_att`, D);
    for (const lin of ['linear_q', 'linear_k', 'linear_v', 'linear_out']) {
      weight(`${p}self_attn.${lin}.weight`, [D, D], D);
      bias(`${p}self_attn.${lin}.bias`, D);
    }
    weight(`${p}self_attn.linear_pos.weight`, [D, D], D);
    src.set(`${p}self_attn.pos_bias_u`, [dk, H], uniform(dk * H, 0.2));
    src.set(`${p}self_attn.pos_bias_v`, [dk, H], uniform(dk * H, 0.2));
    norm(`${p}norm_conv`, D);
    weight(`${p}conv.pointwise_conv1.weight`, [1, D, 2 * D], D);
    bias(`${p}conv.pointwise_conv1.bias`, 2 * D);
    weight(`${p}conv.depthwise_conv.weight`, [K, 1, D], K);
    bias(`${p}conv.depthwise_conv.bias`, D);
    norm(`${p}conv.batch_norm`, D);
    if (convNorm === 'batch_norm') {
      src.set(`${p}conv.batch_norm.running_mean`, [D], uniform(D, 0.1));
      const rv = new Float64Array(D);
      for (let i = 0; i < D; i++) rv[i] = 0.5 + rng();
      src.set(`${p}conv.batch_norm.running_var`, [D], rv);
    }
    weight(`${p}conv.pointwise_conv2.weight`, [1, D, D], D);
    bias(`${p}conv.pointwise_conv2.bias`, D);
    norm(`${p}norm_out`, D);
  }

  // CTC head.
  if (hasCtc) {
    const prefix = head === 'ctc' ? 'decoder' : 'ctc_decoder';
    weight(`${prefix}.decoder_layers.0.weight`, [1, D, V + 1], D);
    src.set(`${prefix}.decoder_layers.0.bias`, [V + 1], uniform(V + 1, 0.1));
  }

  // Prediction network + joint.
  if (hasTransducer) {
    const embed = uniform(P * (V + 1), 1);
    embed.fill(0, V * P); // row V (blank) is zero (padding_idx)
    src.set('decoder.prediction.embed.weight', [P, V + 1], embed);
    for (let l = 0; l < Lp; l++) {
      const pre = 'decoder.prediction.dec_rnn.lstm.';
      weight(`${pre}weight_ih_l${l}`, [P, 4 * P], P);
      weight(`${pre}weight_hh_l${l}`, [P, 4 * P], P);
      src.set(`${pre}bias_ih_l${l}`, [4 * P], uniform(4 * P, 0.1));
      src.set(`${pre}bias_hh_l${l}`, [4 * P], uniform(4 * P, 0.1));
    }
    weight('joint.enc.weight', [D, J], D);
    src.set('joint.enc.bias', [J], uniform(J, 0.1));
    weight('joint.pred.weight', [P, J], P);
    src.set('joint.pred.bias', [J], uniform(J, 0.1));
    const nOut = V + 1 + durations.length;
    weight('joint.joint_net.2.weight', [J, nOut], J);
    src.set('joint.joint_net.2.bias', [nOut], uniform(nOut, 0.1));
  }
  return src;
}

/** A deterministic test signal: a few tones with a slow envelope plus noise, in [-1, 1]. */
export function makeTestSignal(nSamples: number, sampleRate = 16000, seed = 7): Float32Array {
  const rng = makeRng(seed);
  const x = new Float32Array(nSamples);
  for (let n = 0; n < nSamples; n++) {
    const t = n / sampleRate;
    const env = 0.5 + 0.5 * Math.sin(2 * Math.PI * 1.3 * t);
    x[n] =
      0.3 * env * Math.sin(2 * Math.PI * 440 * t) +
      0.2 * Math.sin(2 * Math.PI * 1234.5 * t + 0.3) * (1 - env) +
      0.05 * (2 * rng() - 1);
  }
  return x;
}
