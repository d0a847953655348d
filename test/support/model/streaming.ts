// The three cache-aware streaming families (spec §1.2 streaming/prompt keys, §5.2, issue 39) as
// option sets for the random-model generator, and the `parakeet.streaming.*` values a converter
// writes for a model's default attention preset.
import type { AttContext, ModelOptions, PromptOptions } from './option-types.js';

export type StreamingFamily = 'eou' | 'nemotron-en' | 'nemotron-3.5';
export const STREAMING_FAMILIES: readonly StreamingFamily[] = ['eou', 'nemotron-en', 'nemotron-3.5'];

/** Locales of the generated prompt models. Prompt indices are deliberately not the key order. */
const PROMPT_DICTIONARY: PromptOptions['dictionary'] = [
  ['auto', 0], ['en-US', 5], ['de-DE', 2], ['fr-FR', 7], ['es-ES', 3],
];

/** `<locale>` pieces of every dictionary key but `auto` (language tags the decoder may emit). */
export function languageTagPieces(prompt: PromptOptions): string[] {
  return prompt.dictionary.filter(([k]) => k !== 'auto').map(([k]) => `<${k}>`);
}

const NEMOTRON_35_PROMPT: PromptOptions = { numPrompts: 128, defaultLang: 'auto', dictionary: PROMPT_DICTIONARY };

/**
 * Joint bias of the special pieces. Random joints give each of V tokens a ~1/V share of the
 * emissions; this lifts `<EOU>`, `<EOB>` and the language tags to a few percent, so streaming
 * tests see resets and events on a few seconds of audio (tuned with the float64 reference).
 */
export const SPECIAL_PIECE_BIAS = 1.5;

/**
 * Blank bias (schema.ts's RNNT_BLANK_K is 0.92): these encoders (causal, chunked attention, no mel
 * normalization) vary less from frame to frame, and RNNT would mostly emit blank with the default.
 */
export const STREAMING_BLANK_K = 0.85;

type FamilyOptions = Partial<ModelOptions>;

const CACHE_AWARE: FamilyOptions = {
  arch: 'rnnt',
  nMels: 128,
  normalize: 'NA',
  convNormType: 'layer_norm',
  attContextStyle: 'chunked_limited',
  causalDownsampling: true,
  convCausal: true,
  specialBias: SPECIAL_PIECE_BIAS,
  blankBiasK: STREAMING_BLANK_K,
};

/** Options of each family; the size (D, layers, vocabulary, ...) comes from the size preset. */
export const FAMILY_OPTIONS: Readonly<Record<StreamingFamily, FamilyOptions>> = {
  // nvidia/parakeet_realtime_eou_120m-v1: biases on, 1 LSTM layer, <EOU> <EOB> as the last two ids.
  eou: { ...CACHE_AWARE, attContextPresets: [[70, 1]], specialPieces: ['<EOU>', '<EOB>'], useBias: true, predLayers: 1 },
  // nvidia/nemotron-speech-streaming-en-0.6b: no encoder biases, 2 LSTM layers, four presets.
  'nemotron-en': {
    ...CACHE_AWARE, attContextPresets: [[70, 1], [70, 0], [70, 6], [70, 13]], useBias: false, predLayers: 2,
  },
  // nvidia/nemotron-3.5-asr-streaming-0.6b: as nemotron-en with [56, R] presets and a language prompt.
  'nemotron-3.5': {
    ...CACHE_AWARE, attContextPresets: [[56, 3], [56, 0], [56, 6], [56, 13]], useBias: false, predLayers: 2,
    prompt: NEMOTRON_35_PROMPT, specialPieces: languageTagPieces(NEMOTRON_35_PROMPT),
  },
};

/**
 * Seeds whose tiny models decode a varied token sequence (and, per family, <EOU>/<EOB> or language
 * tags) on test/support/audio/signals.ts speech; random transducers are very seed-dependent, so tests
 * that need real decodes use these (test/unit/reference/stream-models.test.ts keeps them honest).
 */
export const FAMILY_TEST_SEEDS: Readonly<Record<StreamingFamily, number>> = { eou: 1, 'nemotron-en': 7, 'nemotron-3.5': 10 };

/** The `parakeet.streaming.*` values for one attention preset (what NeMo's setup_streaming_params derives). */
export interface StreamingKeyValues {
  readonly chunkSize: readonly [number, number];
  readonly shiftSize: readonly [number, number];
  readonly cacheDropSize: number;
  readonly lastChannelCacheSize: number;
  readonly validOutLen: number;
  readonly preEncodeCacheSize: readonly [number, number];
  readonly dropExtraPreEncoded: number;
}

/**
 * NeMo ConformerEncoder.setup_streaming_params for chunked_limited attention and causal dw_striding
 * subsampling (sampling frames [1, factor]): chunk = [1 + factor·R, factor·(R + 1)] mel frames,
 * shift = chunk, pre-encode cache [0, factor + 1], 1 + (cache − 1)/factor encoder frames dropped.
 */
export function streamingKeyValues([left, right]: AttContext, factor = 8): StreamingKeyValues {
  const chunk: [number, number] = [1 + factor * right, factor * (right + 1)];
  const preCache = factor + 1;
  return {
    chunkSize: chunk,
    shiftSize: chunk,
    cacheDropSize: 0,
    lastChannelCacheSize: left,
    validOutLen: right + 1,
    preEncodeCacheSize: [0, preCache],
    dropExtraPreEncoded: 1 + Math.floor((preCache - 1) / factor),
  };
}
