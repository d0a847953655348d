// Options for random Parakeet models, the named size presets, and resolution of
// user input into a complete, validated option set.
import type { Arch, WeightType, CtcHeadLocation, PresetName, AttContext, PromptOptions, ModelOptions } from './option-types.js';
import { FAMILY_OPTIONS, STREAMING_FAMILIES, type StreamingFamily } from './streaming.js';

export type { Arch, WeightType, CtcHeadLocation, PresetName, AttContext, PromptOptions, ModelOptions };

export const ARCHS: readonly Arch[] = ['ctc', 'rnnt', 'tdt', 'hybrid_tdt_ctc', 'hybrid_rnnt_ctc'];

export const WEIGHT_TYPES: readonly WeightType[] = ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q5_0', 'q4_k', 'q5_k', 'q6_k'];

export const PRESET_NAMES: readonly PresetName[] = ['tiny', 'small', 'shape110m', 'shape600m', 'shapeEou120m'];

/** `preset` gives the size, `family` a streaming family's options (see streaming.ts); explicit fields win. */
export type ModelOptionsInput = Partial<ModelOptions> & { readonly preset?: PresetName; readonly family?: StreamingFamily };

type Dims = Pick<
  ModelOptions,
  | 'dModel' | 'nLayers' | 'nHeads' | 'ffDim' | 'convKernel' | 'subsamplingChannels' | 'nMels' | 'vocabSize'
  | 'useBias' | 'xscaling' | 'predHidden' | 'predLayers' | 'jointHidden' | 'arch'
>;

// Every quantizable contraction dim (D, FF, P, C·F') is a multiple of 32 in all presets.
export const PRESETS: Readonly<Record<PresetName, Dims & Partial<ModelOptions>>> = {
  // C·F' = 16·10 = 160.
  tiny: {
    arch: 'hybrid_tdt_ctc', dModel: 64, nLayers: 2, nHeads: 4, ffDim: 256, convKernel: 9,
    subsamplingChannels: 16, nMels: 80, vocabSize: 96, useBias: true, xscaling: false,
    predHidden: 64, predLayers: 1, jointHidden: 64,
  },
  // C·F' = 32·10 = 320; two LSTM layers to cover the stacked prediction net.
  small: {
    arch: 'hybrid_tdt_ctc', dModel: 128, nLayers: 3, nHeads: 4, ffDim: 512, convKernel: 9,
    subsamplingChannels: 32, nMels: 80, vocabSize: 256, useBias: true, xscaling: false,
    predHidden: 128, predLayers: 2, jointHidden: 128,
  },
  // parakeet-tdt_ctc-110m (spec 6.1).
  shape110m: {
    arch: 'hybrid_tdt_ctc', dModel: 512, nLayers: 17, nHeads: 8, ffDim: 2048, convKernel: 9,
    subsamplingChannels: 256, nMels: 80, vocabSize: 1024, useBias: true, xscaling: false,
    predHidden: 640, predLayers: 1, jointHidden: 640,
  },
  // parakeet_realtime_eou_120m-v1 (spec 5.2, 6.1): 128 mels, V 1026 incl. <EOU> <EOB>; P/J/Lp unconfirmed.
  shapeEou120m: {
    arch: 'rnnt', dModel: 512, nLayers: 17, nHeads: 8, ffDim: 2048, convKernel: 9,
    subsamplingChannels: 256, nMels: 128, vocabSize: 1026, useBias: true, xscaling: false,
    predHidden: 640, predLayers: 1, jointHidden: 640,
  },
  // parakeet-tdt-0.6b-v2: no encoder biases, two LSTM layers, no CTC tensors.
  shape600m: {
    arch: 'tdt', dModel: 1024, nLayers: 24, nHeads: 8, ffDim: 4096, convKernel: 9,
    subsamplingChannels: 256, nMels: 128, vocabSize: 1024, useBias: false, xscaling: false,
    predHidden: 640, predLayers: 2, jointHidden: 640,
  },
};

export function isTransducer(arch: Arch): boolean {
  return arch !== 'ctc';
}

export function isTdt(arch: Arch): boolean {
  return arch === 'tdt' || arch === 'hybrid_tdt_ctc';
}

function defaultCtcHead(arch: Arch): CtcHeadLocation {
  if (arch === 'ctc') return 'decoder';
  return arch.startsWith('hybrid_') ? 'ctc_decoder' : 'none';
}

function fail(message: string): never {
  throw new Error(`model options: ${message}`);
}

function positiveInt(name: string, v: number): void {
  if (!Number.isInteger(v) || v <= 0) fail(`${name} must be a positive integer, got ${v}`);
}

/** Fill defaults from the preset (tiny unless named) and validate. */
export function resolveModelOptions(input: ModelOptionsInput = {}): ModelOptions {
  const { preset = 'tiny', family, ...rest } = input;
  const base = PRESETS[preset];
  if (!base) fail(`unknown preset ${String(preset)}`);
  if (family !== undefined && !STREAMING_FAMILIES.includes(family)) fail(`unknown streaming family ${String(family)}`);
  const familyOptions = family === undefined ? {} : FAMILY_OPTIONS[family];
  const arch = rest.arch ?? familyOptions.arch ?? base.arch;
  const weightType = rest.weightType ?? 'f32';
  const o: ModelOptions = {
    archLabel: rest.archLabel ?? arch,
    convNormType: 'batch_norm',
    durations: [0, 1, 2, 3, 4],
    maxSymbols: 10,
    weightType,
    seed: 1234,
    ctcHeadLocation: defaultCtcHead(arch),
    preemph: 0.97,
    normalize: 'per_feature',
    attContextStyle: 'regular',
    attContextPresets: [],
    causalDownsampling: false,
    convCausal: false,
    specialPieces: [],
    specialBias: 0,
    prompt: null,
    blankBiasK: undefined,
    omitKeys: [],
    extraKv: [],
    alignment: undefined,
    label: `parakeet-random-${preset}-${family === undefined ? '' : `${family}-`}${arch}-${weightType}`,
    ...base,
    ...familyOptions,
    ...rest,
    arch,
  };
  if (!ARCHS.includes(o.arch)) fail(`unknown arch ${o.arch}`);
  if (!WEIGHT_TYPES.includes(o.weightType)) fail(`unknown weightType ${o.weightType}`);
  for (const k of ['dModel', 'nLayers', 'nHeads', 'ffDim', 'convKernel', 'subsamplingChannels', 'nMels', 'vocabSize',
    'predHidden', 'predLayers', 'jointHidden', 'maxSymbols'] as const) positiveInt(k, o[k]);
  if (o.dModel % o.nHeads !== 0) fail(`nHeads ${o.nHeads} does not divide dModel ${o.dModel}`);
  if (o.convKernel % 2 !== 1) fail(`convKernel must be odd, got ${o.convKernel}`);
  if (o.arch === 'ctc' && o.ctcHeadLocation === 'none') fail('a ctc model needs a CTC head');
  if (isTdt(o.arch) && o.durations.length === 0) fail('TDT needs at least one duration');
  validateStreaming(o);
  if (o.alignment !== undefined && (o.alignment <= 0 || (o.alignment & (o.alignment - 1)) !== 0)) {
    fail(`alignment must be a power of two, got ${o.alignment}`);
  }
  return o;
}

function validateStreaming(o: ModelOptions): void {
  const streaming = o.attContextStyle !== 'regular';
  if (streaming !== o.attContextPresets.length > 0) fail('a chunked_limited model needs attention presets, a regular one none');
  for (const [l, r] of o.attContextPresets) {
    if (!Number.isInteger(l) || !Number.isInteger(r) || l < 0 || r < 0) fail(`attention preset [${l},${r}] must be two integers >= 0`);
    // The cache holds whole chunks (NeMo's chunked_limited mask counts left context in chunks).
    if (l % (r + 1) !== 0) fail(`attention preset [${l},${r}]: left ${l} is not a multiple of the chunk ${r + 1}`);
  }
  if (o.specialPieces.length >= o.vocabSize) fail('special pieces leave no room for the vocabulary');
  const p = o.prompt;
  if (p === null) return;
  positiveInt('prompt.numPrompts', p.numPrompts);
  if (!p.dictionary.some(([k]) => k === p.defaultLang)) fail(`prompt default_lang ${p.defaultLang} is not a dictionary key`);
  for (const [k, i] of p.dictionary) {
    if (!Number.isInteger(i) || i < 0 || i >= p.numPrompts) fail(`prompt index ${i} of ${k} is outside [0, ${p.numPrompts})`);
  }
}

/**
 * Frequency bins left after the three stride-2 convolutions (80 → 10, 128 → 16);
 * causal subsampling pads 2+1 instead of 1+1 (128 → 17), NeMo calc_length.
 */
export function subsampledFeatures(nMels: number, causal = false): number {
  let f = nMels;
  for (let i = 0; i < 3; i++) f = causal ? Math.floor(f / 2) + 1 : Math.floor((f - 1) / 2) + 1;
  return f;
}

/** Whether the option or an extra KV turns on causal subsampling (the streaming checkpoints). */
export function hasCausalDownsampling(o: Pick<ModelOptions, 'extraKv' | 'causalDownsampling'>): boolean {
  return o.causalDownsampling || o.extraKv.some((kv) => kv.key === 'parakeet.encoder.causal_downsampling' && kv.value.value === true);
}
