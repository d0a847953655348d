// Random-weight Streaming Sortformer diarizers in the parakeet.cpp diarization schema: a generated
// FastConformer (the ASR generator's preprocessor and encoder tensors), parakeet.arch = diarization,
// the parakeet.diar.* keys, and sortformer_modules.* / transformer_encoder.* under their NeMo names.
import { GgmlType } from '../gguf/types.js';
import { gv } from '../gguf/values.js';
import { type GgufKv, type GgufLayout, writeGguf } from '../gguf/writer.js';
import { quantize } from '../gguf/quantize.js';
import { buildModelSpec } from './generate.js';
import { tensorValues } from './init.js';
import type { ModelOptionsInput } from './options.js';
import type { TensorPlan } from './schema.js';

/** The streaming geometry (NeMo SortformerModules arguments, in 80 ms encoder frames) and the head's sizes. */
export interface SortformerOptions {
  readonly encoder: ModelOptionsInput;
  readonly nSpeakers: number;
  readonly tfDModel: number;
  readonly tfLayers: number;
  readonly tfHeads: number;
  readonly tfInner: number;
  readonly streamingMode: boolean;
  readonly chunkLen: number;
  readonly chunkLeftContext: number;
  readonly chunkRightContext: number;
  readonly spkcacheLen: number;
  readonly fifoLen: number;
  readonly spkcacheUpdatePeriod: number;
  readonly spkcacheSilFramesPerSpk: number;
  readonly silThreshold: number;
  readonly predScoreThreshold: number;
  readonly scoresBoostLatest: number;
  readonly strongBoostRate: number;
  readonly weakBoostRate: number;
  readonly minPosScoresRate: number;
  readonly seed: number;
  readonly label: string;
  /** Adds sortformer_modules.subpixel_upsample.* (Nemotron-3-Diarization's 10 ms head), for the refusal test. */
  readonly subpixelUpsample?: boolean;
  /** parakeet.diar.onset_threshold / offset_threshold (parakeet.cpp's converter writes NeMo's 0.5 unless the config says otherwise). */
  readonly onsetThreshold?: number;
  readonly offsetThreshold?: number;
}

/**
 * Small enough for the float64 reference, with a geometry that fills, pops and compresses the speaker
 * cache within seconds of audio (the published model's: chunk 188, cache 188, FIFO 0 … see 4spk-v2.yaml).
 */
export const TINY_SORTFORMER: SortformerOptions = {
  encoder: { preset: 'tiny', arch: 'ctc', normalize: 'NA', xscaling: true, weightType: 'f32' },
  nSpeakers: 4, tfDModel: 32, tfLayers: 2, tfHeads: 4, tfInner: 64,
  streamingMode: true, chunkLen: 6, chunkLeftContext: 1, chunkRightContext: 2,
  spkcacheLen: 16, fifoLen: 4, spkcacheUpdatePeriod: 5, spkcacheSilFramesPerSpk: 1,
  silThreshold: 0.2, predScoreThreshold: 0.25, scoresBoostLatest: 0.05, strongBoostRate: 0.75, weakBoostRate: 1.5, minPosScoresRate: 0.5,
  seed: 47, label: 'test/sortformer-tiny',
};

/** diar_streaming_sortformer_4spk-v2's shapes (17 × 512 FastConformer, 18 × 192 transformer) and geometry, for speed and memory runs. */
export const SHAPE_SORTFORMER_4SPK_V2: SortformerOptions = {
  ...TINY_SORTFORMER,
  encoder: { preset: 'shape110m', arch: 'ctc', nMels: 128, normalize: 'NA', xscaling: true, weightType: 'f32' },
  tfDModel: 192, tfLayers: 18, tfHeads: 8, tfInner: 768,
  chunkLen: 188, chunkLeftContext: 1, chunkRightContext: 1, spkcacheLen: 188, fifoLen: 0, spkcacheUpdatePeriod: 188, spkcacheSilFramesPerSpk: 3,
  label: 'test/sortformer-4spk-v2-shape',
};

const uniform = (bound: number): TensorPlan['init'] => ({ kind: 'uniform', lo: -bound, hi: bound });

function linear(prefix: string, fanIn: number, fanOut: number, gain = 1): TensorPlan[] {
  return [
    { name: `${prefix}.weight`, ne: [fanIn, fanOut], allowlisted: false, init: uniform(gain * Math.sqrt(3 / fanIn)) },
    { name: `${prefix}.bias`, ne: [fanOut], allowlisted: false, init: uniform(0.02) },
  ];
}

function norm(prefix: string, d: number): TensorPlan[] {
  return [
    { name: `${prefix}.weight`, ne: [d], allowlisted: false, init: { kind: 'uniform', lo: 0.9, hi: 1.1 } },
    { name: `${prefix}.bias`, ne: [d], allowlisted: false, init: uniform(0.05) },
  ];
}

// Sharper attention than the variance-preserving scale (soft attention would average all frames alike),
// and a speaker head whose logits spread over a few units, so activities cross 0.5 both ways and the
// speaker cache's scoring sees speech, silence and overlap.
const QK_GAIN = 2;
const SPEAKER_GAIN = 3;

function sortformerTensors(o: SortformerOptions, fcDModel: number): TensorPlan[] {
  const tf = o.tfDModel;
  const out: TensorPlan[] = [];
  for (let i = 0; i < o.tfLayers; i++) {
    const p = `transformer_encoder.layers.${i}.`;
    out.push(
      ...linear(`${p}first_sub_layer.query_net`, tf, tf, QK_GAIN),
      ...linear(`${p}first_sub_layer.key_net`, tf, tf, QK_GAIN),
      ...linear(`${p}first_sub_layer.value_net`, tf, tf),
      ...linear(`${p}first_sub_layer.out_proj`, tf, tf),
      ...norm(`${p}layer_norm_1`, tf),
      ...linear(`${p}second_sub_layer.dense_in`, tf, o.tfInner),
      ...linear(`${p}second_sub_layer.dense_out`, o.tfInner, tf),
      ...norm(`${p}layer_norm_2`, tf),
    );
  }
  out.push(
    ...linear('sortformer_modules.encoder_proj', fcDModel, tf),
    ...linear('sortformer_modules.first_hidden_to_hidden', tf, tf, 1.5),
    ...linear('sortformer_modules.single_hidden_to_spks', tf, o.nSpeakers, SPEAKER_GAIN),
  );
  if (o.subpixelUpsample) {
    // nn.Conv1d(tf, tf·8, 3): ggml [3, tf, tf·8].
    out.push({ name: 'sortformer_modules.subpixel_upsample.weight', ne: [3, tf, tf * 8], allowlisted: false, init: uniform(0.1) },
      { name: 'sortformer_modules.subpixel_upsample.bias', ne: [tf * 8], allowlisted: false, init: uniform(0.02) });
  }
  return out;
}

function diarizationKv(o: SortformerOptions): GgufKv[] {
  const u = (key: string, v: number): GgufKv => ({ key: `parakeet.diar.${key}`, value: gv.u32(v) });
  const f = (key: string, v: number): GgufKv => ({ key: `parakeet.diar.${key}`, value: gv.f32(v) });
  return [
    // What parakeet.cpp's converter (scripts/convert_parakeet_to_gguf.py) writes for every diarization file:
    // upsample_factor (= the encoder's subsampling factor) and frame_resolution_sec describe its
    // Nemotron-3-Diarization 10 ms head, so the engine ignores them (a 4spk-v2 frame is 80 ms); the onset and
    // offset thresholds (the config's diarizer.onset / offset, else 0.5) cut the segments.
    u('n_speakers', o.nSpeakers), u('tf_d_model', o.tfDModel), u('upsample_factor', 8), f('frame_resolution_sec', 0.01),
    f('onset_threshold', o.onsetThreshold ?? 0.5), f('offset_threshold', o.offsetThreshold ?? 0.5),
    // The streaming keys parakeet.cpp's loader reads (with Nemotron-3-Diarization defaults; its converter does not
    // write them), and tf_n_heads / chunk_left_context / chunk_right_context, which only this engine reads (4spk-v2
    // defaults when absent).
    u('tf_n_heads', o.tfHeads),
    { key: 'parakeet.diar.streaming_mode', value: gv.bool(o.streamingMode) },
    u('chunk_len', o.chunkLen), u('chunk_left_context', o.chunkLeftContext), u('chunk_right_context', o.chunkRightContext),
    u('spkcache_len', o.spkcacheLen), u('fifo_len', o.fifoLen), u('spkcache_update_period', o.spkcacheUpdatePeriod),
    u('spkcache_sil_frames_per_spk', o.spkcacheSilFramesPerSpk),
    f('sil_threshold', o.silThreshold), f('pred_score_threshold', o.predScoreThreshold), f('scores_boost_latest', o.scoresBoostLatest),
    f('strong_boost_rate', o.strongBoostRate), f('weak_boost_rate', o.weakBoostRate), f('min_pos_scores_rate', o.minPosScoresRate),
    { key: 'parakeet.diar.use_learnable_sil_emb', value: gv.bool(false) },
  ];
}

/** Writes a Sortformer GGUF; the ASR generator's encoder with the ASR keys and heads left out. */
export function generateSortformer(path: string, options: Partial<SortformerOptions> = {}): GgufLayout {
  const o: SortformerOptions = { ...TINY_SORTFORMER, ...options };
  const asr = buildModelSpec({ ...o.encoder, seed: o.seed, label: o.label });
  const asrOnly = new Set(['parakeet.vocab_size', 'parakeet.blank_id', 'parakeet.tokenizer.pieces']);
  const kv = asr.kv
    .filter((e) => !asrOnly.has(e.key))
    .map((e) => (e.key === 'parakeet.arch' ? { key: e.key, value: gv.str('diarization') } : e));
  kv.push(...diarizationKv(o));
  const frontEnd = asr.tensors.filter((t) => t.name.startsWith('encoder.') || t.name.startsWith('preprocessor.'));
  const head = sortformerTensors(o, asr.options.dModel).map((t) => ({ ...t, type: GgmlType.F32 }));
  return writeGguf(path, kv, [...frontEnd, ...head].map((t) => ({
    name: t.name,
    ne: t.ne,
    type: t.type,
    data: () => quantize(t.type, tensorValues(t, o.seed)),
  })));
}
