// Hyper-parameters of a parakeet.cpp GGUF (spec §1.2 keys with the loader defaults, §1.3 head detection).
// A key that is absent falls back to what the tensors imply (where they imply it) and otherwise to the
// documented loader default; a key that is present but contradicts a tensor shape is an error.
import { trimShape } from './linalg.js';
import type { WeightSource } from './weights.js';

export type NormalizeType = 'per_feature' | 'NA';
export type ConvNormType = 'batch_norm' | 'layer_norm';
export type AttContextStyle = 'regular' | 'chunked_limited';
export type JointActivation = 'relu' | 'sigmoid' | 'tanh';

export interface PreprocessorParams {
  sampleRate: number;
  nMels: number;
  nFft: number;
  winLength: number;
  hopLength: number;
  /** Pre-emphasis coefficient as stored (float32 0.97 reads back as 0.97000003); 0 = off. */
  preemph: number;
  magPower: number;
  normalize: NormalizeType;
  logZeroGuard: number;
}

export interface EncoderParams {
  featIn: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  ffDim: number;
  convKernel: number;
  convNormType: ConvNormType;
  subsamplingFactor: number;
  subsamplingChannels: number;
  xscaling: boolean;
  /** `parakeet.encoder.use_bias` as written (default true). Biases are actually used iff the tensor exists. */
  useBias: boolean;
  posEmbMaxLen: number;
  /** -1 = unbounded. */
  attContextLeft: number;
  attContextRight: number;
  attContextStyle: AttContextStyle;
  causalDownsampling: boolean;
  convCausal: boolean;
}

export interface TransducerParams {
  predHidden: number;
  predLayers: number;
  jointHidden: number;
  jointActivation: JointActivation;
  maxSymbols: number;
  /** Empty for RNNT. */
  durations: number[];
  isTdt: boolean;
}

export interface ParakeetHParams {
  arch: string;
  pre: PreprocessorParams;
  enc: EncoderParams;
  vocabSize: number;
  blankId: number;
  pieces: string[];
  /** Tensor prefix of the CTC head (`ctc_decoder` for hybrids, `decoder` for standalone CTC) or null. */
  ctcPrefix: 'ctc_decoder' | 'decoder' | null;
  transducer: TransducerParams | null;
}

// ---- KV access (shared with the streaming and prompt readers) ---------------------------------

export function kvNumber(w: WeightSource, key: string): number | undefined {
  const v = w.kv.get(key);
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw new Error(`reference: KV ${key} is not numeric (${typeof v})`);
}

export function kvString(w: WeightSource, key: string): string | undefined {
  const v = w.kv.get(key);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new Error(`reference: KV ${key} is not a string`);
  return v;
}

export function kvBool(w: WeightSource, key: string): boolean | undefined {
  const v = w.kv.get(key);
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  throw new Error(`reference: KV ${key} is not a boolean`);
}

export function kvNumberArray(w: WeightSource, key: string): number[] | undefined {
  const v = w.kv.get(key);
  if (v === undefined) return undefined;
  let arr: unknown[];
  if (Array.isArray(v)) arr = v;
  else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) arr = Array.from(v as unknown as ArrayLike<number | bigint>);
  else throw new Error(`reference: KV ${key} is not an array`);
  return arr.map((x) => {
    if (typeof x === 'number') return x;
    if (typeof x === 'bigint') return Number(x);
    throw new Error(`reference: KV ${key} has a non-numeric element`);
  });
}

export function kvStringArray(w: WeightSource, key: string): string[] | undefined {
  const v = w.kv.get(key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new Error(`reference: KV ${key} is not an array`);
  return v.map((x) => {
    if (typeof x !== 'string') throw new Error(`reference: KV ${key} has a non-string element`);
    return x;
  });
}

/** ne[axis] of a tensor if it exists (trailing 1s kept: axis beyond the declared dims reads 1). */
function dim(w: WeightSource, name: string, axis: number): number | undefined {
  if (!w.has(name)) return undefined;
  const ne = w.ne(name);
  return axis < ne.length ? ne[axis] : 1;
}

/** Key value if present (checked against the tensor-implied value), else the tensor value, else the default. */
function resolve(key: string, fromKv: number | undefined, fromTensor: number | undefined, dflt: number | undefined): number {
  if (fromKv !== undefined && fromTensor !== undefined && fromKv !== fromTensor) {
    throw new Error(`reference: KV ${key} = ${fromKv} contradicts the tensors (${fromTensor})`);
  }
  const v = fromKv ?? fromTensor ?? dflt;
  if (v === undefined) throw new Error(`reference: cannot determine ${key} (no KV, no tensor)`);
  return v;
}

function countIndexed(w: WeightSource, make: (i: number) => string): number {
  let n = 0;
  while (w.has(make(n))) n++;
  return n;
}

// ---- Reader -----------------------------------------------------------------------------------

/** The front end's keys (parakeet.preprocessor.*, parakeet.encoder.*), shared with models that are not ASR (Sortformer). */
export function readFrontendParams(w: WeightSource): { pre: PreprocessorParams; enc: EncoderParams } {
  // Preprocessor (NeMo defaults where the file is silent).
  const fbBins = dim(w, 'preprocessor.featurizer.fb', 0);
  const fbMels = dim(w, 'preprocessor.featurizer.fb', 1);
  const winLen = dim(w, 'preprocessor.featurizer.window', 0);
  const nFft = resolve('parakeet.preprocessor.n_fft', kvNumber(w, 'parakeet.preprocessor.n_fft'),
    fbBins === undefined ? undefined : 2 * (fbBins - 1), 512);
  const normalizeRaw = kvString(w, 'parakeet.preprocessor.normalize') ?? 'per_feature';
  if (normalizeRaw !== 'per_feature' && normalizeRaw !== 'NA') {
    throw new Error(`reference: unsupported parakeet.preprocessor.normalize = ${normalizeRaw}`);
  }
  const pre: PreprocessorParams = {
    sampleRate: kvNumber(w, 'parakeet.preprocessor.sample_rate') ?? 16000,
    nMels: resolve('parakeet.preprocessor.n_mels', kvNumber(w, 'parakeet.preprocessor.n_mels'), fbMels, undefined),
    nFft,
    winLength: resolve('parakeet.preprocessor.win_length', kvNumber(w, 'parakeet.preprocessor.win_length'), winLen, 400),
    hopLength: kvNumber(w, 'parakeet.preprocessor.hop_length') ?? 160,
    preemph: kvNumber(w, 'parakeet.preprocessor.preemph') ?? 0.97,
    magPower: kvNumber(w, 'parakeet.preprocessor.mag_power') ?? 2.0,
    normalize: normalizeRaw,
    logZeroGuard: kvNumber(w, 'parakeet.preprocessor.log_zero_guard') ?? 2 ** -24,
  };

  // Encoder.
  const l0 = 'encoder.layers.0.';
  const posBiasU = l0 + 'self_attn.pos_bias_u';
  const nLayers = resolve('parakeet.encoder.n_layers', kvNumber(w, 'parakeet.encoder.n_layers'),
    countIndexed(w, (i) => `encoder.layers.${i}.norm_out.weight`) || undefined, undefined);
  const dModel = resolve('parakeet.encoder.d_model', kvNumber(w, 'parakeet.encoder.d_model'),
    dim(w, l0 + 'norm_out.weight', 0) ?? dim(w, 'encoder.pre_encode.out.weight', 1), undefined);
  const nHeads = resolve('parakeet.encoder.n_heads', kvNumber(w, 'parakeet.encoder.n_heads'), dim(w, posBiasU, 1), undefined);
  const convNormRaw = kvString(w, 'parakeet.encoder.conv_norm_type') ?? 'batch_norm';
  if (convNormRaw !== 'batch_norm' && convNormRaw !== 'layer_norm') {
    throw new Error(`reference: unsupported conv_norm_type ${convNormRaw}`);
  }
  const nStages = countIndexed(w, (i) => (i === 0 ? 'encoder.pre_encode.conv.0.weight' : `encoder.pre_encode.conv.${3 * i - 1}.weight`));
  let attLeft = kvNumber(w, 'parakeet.encoder.att_context_left');
  let attRight = kvNumber(w, 'parakeet.encoder.att_context_right');
  const presets = kvNumberArray(w, 'parakeet.encoder.att_context_presets');
  if (presets !== undefined && presets.length >= 2) {
    attLeft ??= presets[0];
    attRight ??= presets[1];
  }
  const styleRaw = kvString(w, 'parakeet.encoder.att_context_style') ?? 'regular';
  if (styleRaw !== 'regular' && styleRaw !== 'chunked_limited') throw new Error(`reference: unsupported att_context_style ${styleRaw}`);
  const enc: EncoderParams = {
    featIn: resolve('parakeet.encoder.feat_in', kvNumber(w, 'parakeet.encoder.feat_in'), pre.nMels, undefined),
    dModel,
    nLayers,
    nHeads,
    ffDim: resolve('parakeet.encoder.ff_dim', kvNumber(w, 'parakeet.encoder.ff_dim'),
      dim(w, l0 + 'feed_forward1.linear1.weight', 1), 4 * dModel),
    convKernel: resolve('parakeet.encoder.conv_kernel', kvNumber(w, 'parakeet.encoder.conv_kernel'),
      dim(w, l0 + 'conv.depthwise_conv.weight', 0), 9),
    convNormType: convNormRaw,
    subsamplingFactor: resolve('parakeet.encoder.subsampling_factor', kvNumber(w, 'parakeet.encoder.subsampling_factor'),
      nStages > 0 ? 2 ** nStages : undefined, 8),
    subsamplingChannels: resolve('parakeet.encoder.subsampling_conv_channels',
      kvNumber(w, 'parakeet.encoder.subsampling_conv_channels'), dim(w, 'encoder.pre_encode.conv.0.weight', 3), 256),
    xscaling: kvBool(w, 'parakeet.encoder.xscaling') ?? true,
    useBias: kvBool(w, 'parakeet.encoder.use_bias') ?? true,
    posEmbMaxLen: kvNumber(w, 'parakeet.encoder.pos_emb_max_len') ?? 5000,
    attContextLeft: attLeft ?? -1,
    attContextRight: attRight ?? -1,
    attContextStyle: styleRaw,
    causalDownsampling: kvBool(w, 'parakeet.encoder.causal_downsampling') ?? false,
    convCausal: kvBool(w, 'parakeet.encoder.conv_causal') ?? false,
  };
  if (enc.featIn !== pre.nMels) throw new Error(`reference: feat_in ${enc.featIn} != n_mels ${pre.nMels}`);
  if (dModel % nHeads !== 0) throw new Error(`reference: d_model ${dModel} not divisible by n_heads ${nHeads}`);
  return { pre, enc };
}

/** Read every `parakeet.*` key (spec §1.2) and detect the heads (spec §1.3). */
export function readHParams(w: WeightSource): ParakeetHParams {
  const generalArch = kvString(w, 'general.architecture');
  if (generalArch !== undefined && generalArch !== 'parakeet') {
    throw new Error(`reference: general.architecture = ${generalArch} is not an ASR parakeet model`);
  }
  const arch = kvString(w, 'parakeet.arch') ?? 'unknown';
  if (arch === 'diarization' || arch === 'vad') throw new Error(`reference: parakeet.arch = ${arch} is not ASR`);
  const { pre, enc } = readFrontendParams(w);
  // Vocabulary.
  const pieces = kvStringArray(w, 'parakeet.tokenizer.pieces') ?? [];
  const vocabSize = resolve('parakeet.vocab_size', kvNumber(w, 'parakeet.vocab_size'), pieces.length || undefined, undefined);
  if (pieces.length !== vocabSize) throw new Error(`reference: ${pieces.length} pieces but vocab_size ${vocabSize}`);
  const blankId = kvNumber(w, 'parakeet.blank_id') ?? vocabSize;
  if (blankId !== vocabSize) throw new Error(`reference: blank_id ${blankId} != vocab_size ${vocabSize}`);

  // CTC head (§1.3): hybrid name first, then standalone.
  let ctcPrefix: 'ctc_decoder' | 'decoder' | null = null;
  if (w.has('ctc_decoder.decoder_layers.0.weight')) ctcPrefix = 'ctc_decoder';
  else if (w.has('decoder.decoder_layers.0.weight')) ctcPrefix = 'decoder';
  if (ctcPrefix !== null) {
    const classes = trimShape(w.ne(`${ctcPrefix}.decoder_layers.0.weight`));
    if (classes[classes.length - 1] !== vocabSize + 1) {
      throw new Error(`reference: CTC head has ${classes[classes.length - 1]} classes, expected ${vocabSize + 1}`);
    }
  }

  // Transducer head: joint.* and decoder.prediction.* present.
  let transducer: TransducerParams | null = null;
  if (w.has('joint.enc.weight') && w.has('decoder.prediction.embed.weight')) {
    const durations = kvNumberArray(w, 'parakeet.tdt.durations') ?? [];
    const act = kvString(w, 'parakeet.joint.activation') ?? 'relu';
    if (act !== 'relu' && act !== 'sigmoid' && act !== 'tanh') throw new Error(`reference: unsupported joint activation ${act}`);
    const layersKv = kvNumber(w, 'parakeet.decoder.pred_rnn_layers');
    const layersT = countIndexed(w, (l) => `decoder.prediction.dec_rnn.lstm.weight_ih_l${l}`);
    const maxSymbolsKv = kvNumber(w, 'parakeet.decoding.max_symbols');
    transducer = {
      predHidden: resolve('parakeet.decoder.pred_hidden', kvNumber(w, 'parakeet.decoder.pred_hidden'),
        dim(w, 'decoder.prediction.embed.weight', 0), undefined),
      // The loader treats 0 as 1.
      predLayers: resolve('parakeet.decoder.pred_rnn_layers', layersKv === 0 ? 1 : layersKv, layersT || undefined, 1),
      jointHidden: resolve('parakeet.joint.joint_hidden', kvNumber(w, 'parakeet.joint.joint_hidden'), dim(w, 'joint.enc.weight', 1), undefined),
      jointActivation: act,
      // Loader default 10; a stored 0 is treated as the default too (0 would never emit).
      maxSymbols: maxSymbolsKv === undefined || maxSymbolsKv <= 0 ? 10 : maxSymbolsKv,
      durations,
      isTdt: durations.length > 0,
    };
  }

  return { arch, pre, enc, vocabSize, blankId, pieces, ctcPrefix, transducer };
}

/** Seconds per encoder frame: hop · subsampling / sample_rate (spec §4.6). */
export function frameSeconds(hp: ParakeetHParams): number {
  return (hp.pre.hopLength * hp.enc.subsamplingFactor) / hp.pre.sampleRate;
}
