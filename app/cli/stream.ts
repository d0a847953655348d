// `parakeet transcribe --stream`: the clip fed through a cache-aware stream block by block, as live
// audio would arrive, and the JSON contract of issue 39 (the usual fields plus `stream`).
import { joinStreamWords, type Model, type ModelInfo, type StreamChunk, type TranscribeResult, type VocabularyPhrase } from '../../native/index.js';

/** A command-line mistake (exit status 2), as main.ts reports its own. */
export class StreamUsageError extends Error {}

/** The `stream` object of `transcribe --stream --json` (snake_case: the contract a checker reads). */
export interface StreamJson {
  token_ids: number[];
  token_frames: number[];
  chunks: { token_ids: number[]; token_frames: number[] }[];
  events: { type: 'eou' | 'eob' | 'lang'; frame: number }[];
}

export interface StreamFlags {
  attContext: string | undefined;
  language: string | undefined;
}

export interface StreamRequest {
  attContext: [number, number] | undefined;
  language: string | undefined;
}

/** Checks --stream's flags against the model (usage errors name what the model offers). */
export function streamRequest(info: ModelInfo, flags: StreamFlags): StreamRequest {
  if (!info.streaming) {
    throw new StreamUsageError(
      `--stream needs a cache-aware streaming model; ${info.path} is an offline model ` +
        `(attention ${info.attContextStyle}${info.normalize === 'NA' ? '' : `, features normalized ${info.normalize}`}): transcribe it without --stream`,
    );
  }
  const presets = info.attContextPresets.map(([l, r]) => `${l},${r}`).join(' ');
  let attContext: [number, number] | undefined;
  if (flags.attContext !== undefined) {
    const match = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(flags.attContext);
    const wanted = match ? info.attContextPresets.find(([l, r]) => l === Number(match[1]) && r === Number(match[2])) : undefined;
    if (!wanted) throw new StreamUsageError(`--att-context must name one of this model's presets (LEFT,RIGHT): ${presets}; got '${flags.attContext}'`);
    attContext = [wanted[0], wanted[1]];
  }
  if (flags.language !== undefined) {
    if (!info.hasPrompt) throw new StreamUsageError(`--language needs a model with a language prompt; ${info.path} has none`);
    if (flags.language !== 'auto' && !info.languages.includes(flags.language)) {
      throw new StreamUsageError(`--language must be 'auto' or one of this model's locales: ${info.languages.join(' ')}; got '${flags.language}'`);
    }
  }
  return { attContext, language: flags.language };
}

/** The contract's `stream` object from the chunks in order. */
export function streamJson(chunks: readonly StreamChunk[]): StreamJson {
  return {
    token_ids: chunks.flatMap((c) => c.tokenIds),
    token_frames: chunks.flatMap((c) => c.tokenFrames),
    chunks: chunks.map((c) => ({ token_ids: [...c.tokenIds], token_frames: [...c.tokenFrames] })),
    events: chunks.flatMap((c) => c.events.map((e) => ({ type: e.type, frame: e.frame }))),
  };
}

// Live audio arrives in blocks of a few tens of ms; the result does not depend on the size.
const BLOCK_SECONDS = 0.1;

/** Streams `samples` through `model` and returns the usual result fields and the chunks. */
export async function transcribeStreamed(
  model: Model, samples: Float32Array, request: StreamRequest,
  vocabulary: { vocabulary?: readonly VocabularyPhrase[]; neverBoost?: readonly string[] } = {},
): Promise<{ result: TranscribeResult; chunks: StreamChunk[] }> {
  const info = model.info();
  const started = performance.now();
  const stream = model.createStream({ attContext: request.attContext, language: request.language, ...vocabulary });
  const chunks: StreamChunk[] = [];
  const { phrasesRejected } = stream.info();
  try {
    const block = Math.max(1, Math.round(info.sampleRate * BLOCK_SECONDS));
    for (let at = 0; at < samples.length; at += block) chunks.push(...await stream.feed(samples.subarray(at, Math.min(samples.length, at + block))));
    chunks.push(...await stream.end());
  } finally {
    stream.dispose();
  }
  const totalMs = performance.now() - started;
  const durationSec = samples.length / info.sampleRate;
  const result: TranscribeResult = {
    text: chunks.map((c) => c.text).join(''),
    words: joinStreamWords(chunks),
    tokens: chunks.flatMap((c) => c.tokens),
    durationSec,
    decoder: 'rnnt',
    device: info.device.device.name,
    devicesRan: [info.device.device.name],
    timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs },
    windows: [{ start: 0, end: durationSec }],
    threadsUsed: info.threads,
    phrasesFired: [...new Set(chunks.flatMap((c) => c.phrasesFired))],
    phrasesRejected,
  };
  return { result, chunks };
}
