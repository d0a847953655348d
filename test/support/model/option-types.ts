// The option types of the random-model generator, apart from the code that resolves them (options.ts),
// so the streaming families (streaming.ts) can use them without importing options.ts, which imports them.
import type { GgufKv } from '../gguf/writer.js';

export type Arch = 'ctc' | 'rnnt' | 'tdt' | 'hybrid_tdt_ctc' | 'hybrid_rnnt_ctc';

/**
 * Storage type for the quantizable allowlist (spec 1.7). Brief types: f32 f16 q8_0
 * q4_0; the others are extras for loader coverage (K-quants use a simple encoder).
 */
export type WeightType = 'f32' | 'f16' | 'bf16' | 'q8_0' | 'q4_0' | 'q5_0' | 'q4_k' | 'q5_k' | 'q6_k';

/** Where the CTC head lives: hybrids use `ctc_decoder.*`, standalone CTC `decoder.*`. */
export type CtcHeadLocation = 'ctc_decoder' | 'decoder' | 'none';

export type PresetName = 'tiny' | 'small' | 'shape110m' | 'shape600m' | 'shapeEou120m';

/** Attention context presets (left, right) in encoder frames; the first is the model's default. */
export type AttContext = readonly [left: number, right: number];

/**
 * Language prompt of a prompt-conditioned model (Nemotron-3.5): `parakeet.prompt.*` keys, the
 * `prompt_kernel.*` tensors and a `<locale>` tag piece for every locale key except `auto`.
 */
export interface PromptOptions {
  readonly numPrompts: number;
  readonly defaultLang: string;
  /** Dictionary key → prompt index (parakeet.prompt.dictionary.keys/values, in this order). */
  readonly dictionary: readonly (readonly [key: string, index: number])[];
}

export interface ModelOptions {
  readonly arch: Arch;
  /** Value written to parakeet.arch (defaults to `arch`; e.g. 0.6B files may say hybrid_tdt_ctc without a CTC head). */
  readonly archLabel: string;
  readonly dModel: number;
  readonly nLayers: number;
  readonly nHeads: number;
  readonly ffDim: number;
  readonly convKernel: number;
  readonly subsamplingChannels: number;
  readonly nMels: number;
  readonly vocabSize: number;
  readonly useBias: boolean;
  readonly xscaling: boolean;
  readonly convNormType: 'batch_norm' | 'layer_norm';
  readonly predHidden: number;
  readonly predLayers: number;
  readonly jointHidden: number;
  /** TDT duration bins; ignored (and not written) for non-TDT archs. */
  readonly durations: readonly number[];
  readonly maxSymbols: number;
  readonly weightType: WeightType;
  readonly seed: number;
  readonly ctcHeadLocation: CtcHeadLocation;
  readonly preemph: number;
  readonly normalize: 'per_feature' | 'NA';
  /** 'regular' = offline model; 'chunked_limited' = cache-aware streaming model (writes the streaming keys). */
  readonly attContextStyle: 'regular' | 'chunked_limited';
  /** Streaming models: the attention presets, first = default (empty for offline models). */
  readonly attContextPresets: readonly AttContext[];
  /** Causal subsampling (pads 2 + 1 on time and frequency, 128 mels → 17 bins). */
  readonly causalDownsampling: boolean;
  /** Causal (left-only) depthwise conv. */
  readonly convCausal: boolean;
  /** Special pieces that take the last vocabulary ids, in order (e.g. `<EOU>`, `<EOB>`). */
  readonly specialPieces: readonly string[];
  /** Joint output bias added to each special piece's logit (so random models emit them now and then). */
  readonly specialBias: number;
  /** Prompt-conditioned models only. */
  readonly prompt: PromptOptions | null;
  /** Blank bias of the transducer joint in units of the expected top token logit (undefined: the arch's default, schema.ts). */
  readonly blankBiasK: number | undefined;
  /** KV keys to leave out (to exercise loader defaults). */
  readonly omitKeys: readonly string[];
  /** KVs appended, or replacing a key of the same name in place. */
  readonly extraKv: readonly GgufKv[];
  /** general.alignment to write (omitted when undefined → 32). */
  readonly alignment: number | undefined;
  /** general.name */
  readonly label: string;
}
