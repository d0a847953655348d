// Shared by the streaming tests: the generated models of the three cache-aware families, and the
// engine's stream run over a clip in blocks, collected in the reference's StreamTranscript shape.
import { join } from 'node:path';
import type { Model, StreamChunk, StreamOptions } from '../../../native/index.js';
import type { StreamTranscript } from '../../reference/stream.js';
import { generateModel, type ModelDescription } from '../../support/model/generate.js';
import type { WeightType } from '../../support/model/options.js';
import { FAMILY_TEST_SEEDS, STREAMING_FAMILIES, type StreamingFamily } from '../../support/model/streaming.js';

export { STREAMING_FAMILIES, type StreamingFamily };

/** A tiny model (D 64, 2 layers) of `family` with the seed its decodes are varied for, stored as `weightType`. */
export function familyModel(dir: string, family: StreamingFamily, weightType: WeightType = 'f32'): ModelDescription {
  return generateModel(join(dir, `${family}-${weightType}.gguf`), { preset: 'tiny', family, weightType, seed: FAMILY_TEST_SEEDS[family] });
}

export interface EngineStreamRun extends StreamTranscript {
  text: string;
  raw: StreamChunk[];
}

/** Streams `pcm` through a new stream of `model`, `block` samples per feed, and collects every chunk. */
export async function engineStream(model: Model, pcm: Float32Array, options: StreamOptions = {}, block = 1234): Promise<EngineStreamRun> {
  const stream = model.createStream(options);
  const raw: StreamChunk[] = [];
  try {
    for (let at = 0; at < pcm.length; at += block) raw.push(...await stream.feed(pcm.subarray(at, Math.min(pcm.length, at + block))));
    raw.push(...await stream.end());
  } finally {
    stream.dispose();
  }
  return {
    tokenIds: raw.flatMap((c) => c.tokenIds),
    tokenFrames: raw.flatMap((c) => c.tokenFrames),
    chunks: raw.map((c) => ({ tokenIds: c.tokenIds, tokenFrames: c.tokenFrames })),
    events: raw.flatMap((c) => c.events.map((e) => ({ type: e.type, frame: e.frame }))),
    text: raw.map((c) => c.text).join(''),
    raw,
  };
}
