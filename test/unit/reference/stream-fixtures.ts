// Shared fixtures of the streaming reference tests: one generated tiny model per streaming family
// (written once per test file into a scratch directory) and a speech-like clip with a pause whose
// length leaves a final partial chunk under every preset.
import { join } from 'node:path';
import type { WeightSource } from '../../reference/index.js';
import { concat, quiet, speechLike } from '../../support/audio/signals.js';
import { generateModel } from '../../support/model/generate.js';
import type { ModelOptionsInput } from '../../support/model/options.js';
import { FAMILY_TEST_SEEDS, type StreamingFamily } from '../../support/model/streaming.js';
import { openWeightSource } from '../../support/model/weights-source.js';
import { scratchDir } from '../gguf/tmp.js';

const dir = scratchDir('stream-reference');
const models = new Map<string, WeightSource>();

/** A tiny model of the family (its test seed unless overridden), generated on first use. */
export function familyModel(family: StreamingFamily, extra: Omit<ModelOptionsInput, 'family'> = {}): WeightSource {
  const key = `${family}-${JSON.stringify(extra)}`;
  let w = models.get(key);
  if (w === undefined) {
    const path = join(dir, `${family}-${models.size}.gguf`);
    generateModel(path, { family, seed: FAMILY_TEST_SEEDS[family], ...extra });
    w = openWeightSource(path);
    models.set(key, w);
  }
  return w;
}

/** 6.3 s: speech, a pause, speech (631 mel frames: a partial last chunk for every preset). */
export const CLIP = concat(speechLike(2.5, 3), quiet(0.7, 4), speechLike(3.1, 5));

export function maxAbsDiff(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** The streamed encoder frames of every chunk, concatenated [T][D]. */
export function streamedFrames(chunks: readonly { encoder: Float64Array }[]): Float64Array {
  const out = new Float64Array(chunks.reduce((n, c) => n + c.encoder.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c.encoder, o);
    o += c.encoder.length;
  }
  return out;
}
