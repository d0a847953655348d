// Cache-aware streaming parameters, spec §1.2 streaming keys, §5.2 and Corrections 2 — NeMo
// ConformerEncoder.setup_streaming_params for chunked_limited attention with causal dw_striding
// subsampling. The file's `parakeet.streaming.*` keys describe its default preset; the schedule of
// every other preset is derived the same way NeMo derives it from att_context_size.
import { type ParakeetHParams, kvNumber, kvNumberArray } from './hparams.js';
import type { WeightSource } from './weights.js';

/** (left, right) attention context in encoder frames. */
export type AttPreset = readonly [left: number, right: number];

export interface StreamSchedule {
  preset: AttPreset;
  /** Encoder frames per full chunk: right + 1 (= valid_out_len). */
  chunkFrames: number;
  /** New mel frames per chunk [first, later]: [1 + f·R, f·(R + 1)]; shift = chunk. */
  chunkMel: readonly [number, number];
  /** Mel frames of left context re-fed before a chunk [first, later] (zeros where the stream has fewer). */
  preEncodeCache: readonly [number, number];
  /** Encoder frames dropped after subsampling, from the second chunk on (the first drops nothing). */
  dropExtra: number;
  /** Attention cache length per layer (encoder frames) = left. */
  cacheFrames: number;
}

function fail(message: string): never {
  throw new Error(`reference streaming: ${message}`);
}

/** The model's presets, first = default (att_context_presets, else the single att_context_left/right). */
export function streamingPresets(w: WeightSource, hp: ParakeetHParams): AttPreset[] {
  if (hp.enc.attContextStyle === 'regular') {
    fail('the model is not a cache-aware streaming model (att_context_style is regular); use offline transcription');
  }
  if (!hp.enc.causalDownsampling || !hp.enc.convCausal) {
    fail('cache-aware streaming needs causal_downsampling and conv_causal (the chunk-local convolutions are only exact then)');
  }
  if (hp.pre.normalize !== 'NA') fail(`streaming needs frame-local mel (normalize NA), the model has ${hp.pre.normalize}`);
  const flat = kvNumberArray(w, 'parakeet.encoder.att_context_presets');
  let presets: AttPreset[];
  if (flat !== undefined) {
    if (flat.length < 2 || flat.length % 2 !== 0) fail(`att_context_presets has ${flat.length} values, expected pairs [l,r,l,r,...]`);
    presets = [];
    for (let i = 0; i < flat.length; i += 2) presets.push([flat[i], flat[i + 1]]);
  } else {
    presets = [[hp.enc.attContextLeft, hp.enc.attContextRight]];
  }
  const [l0, r0] = presets[0];
  if (l0 !== hp.enc.attContextLeft || r0 !== hp.enc.attContextRight) {
    fail(`the first preset [${l0},${r0}] is not att_context_left/right [${hp.enc.attContextLeft},${hp.enc.attContextRight}]`);
  }
  for (const [l, r] of presets) {
    if (!Number.isInteger(l) || !Number.isInteger(r) || l < 0 || r < 0) fail(`preset [${l},${r}] needs a bounded context`);
    // Chunk boundaries of the cache and the offline mask line up only when the cache holds whole chunks.
    if (l % (r + 1) !== 0) fail(`preset [${l},${r}]: left context is not a whole number of ${r + 1}-frame chunks`);
  }
  return presets;
}

/** The schedule of one preset (NeMo setup_streaming_params with sampling_frames [1, factor]). */
export function deriveSchedule(preset: AttPreset, subsamplingFactor: number): StreamSchedule {
  const [left, right] = preset;
  const f = subsamplingFactor;
  const preCache = f + 1;
  return {
    preset,
    chunkFrames: right + 1,
    chunkMel: [1 + f * right, f * (right + 1)],
    preEncodeCache: [0, preCache],
    dropExtra: 1 + Math.floor((preCache - 1) / f),
    cacheFrames: left,
  };
}

function sameArray(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** A file key (if present) must agree with the derived default schedule: Corrections 2. */
function checkKeys(w: WeightSource, s: StreamSchedule): void {
  const arrays: [string, readonly number[]][] = [
    ['chunk_size', s.chunkMel], ['shift_size', s.chunkMel], ['pre_encode_cache_size', s.preEncodeCache],
  ];
  for (const [key, want] of arrays) {
    const got = kvNumberArray(w, `parakeet.streaming.${key}`);
    if (got !== undefined && !sameArray(got, want)) fail(`parakeet.streaming.${key} = [${got.join(',')}], the preset implies [${want.join(',')}]`);
  }
  const scalars: [string, number][] = [
    ['cache_drop_size', 0], ['last_channel_cache_size', s.cacheFrames], ['valid_out_len', s.chunkFrames],
    ['drop_extra_pre_encoded', s.dropExtra],
  ];
  for (const [key, want] of scalars) {
    const got = kvNumber(w, `parakeet.streaming.${key}`);
    if (got !== undefined && got !== want) fail(`parakeet.streaming.${key} = ${got}, the preset implies ${want}`);
  }
}

/** The schedule for `preset` (default: the model's first); it must be one of the model's presets. */
export function streamSchedule(w: WeightSource, hp: ParakeetHParams, preset?: AttPreset): StreamSchedule {
  const presets = streamingPresets(w, hp);
  const chosen = preset ?? presets[0];
  if (!presets.some(([l, r]) => l === chosen[0] && r === chosen[1])) {
    fail(`attention context [${chosen.join(',')}] is not one of the model's presets ${presets.map((p) => `[${p.join(',')}]`).join(' ')}`);
  }
  checkKeys(w, deriveSchedule(presets[0], hp.enc.subsamplingFactor));
  return deriveSchedule(chosen, hp.enc.subsamplingFactor);
}
