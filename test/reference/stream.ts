// Cache-aware streaming transcription, the float64 definition of "right" for the engine's stream
// API and the CLI's `--stream` contract (spec §5.2 with its Corrections 2–6): PCM in blocks of any
// size → frame-local mel → chunks of the preset's schedule (pre-encode cache, drop_extra_pre_encoded,
// the final partial chunk processed) → the cached encoder step → optional prompt kernel → RNNT greedy
// with the prediction state carried across chunks and reset to SOS after a chunk that emitted
// <EOU>/<EOB> (encoder caches kept). Special pieces stay in the token ids, leave the text and
// become events at their global encoder frame.
import type { AttentionContext } from './attention.js';
import { type DecisionStep, type DecodedToken, reliableTokenCount } from './decoding.js';
import { detokenize } from './detokenize.js';
import { type EncoderResult, runEncoder } from './encoder.js';
import { projectEncoder, transducerModel } from './joint.js';
import { computeMel } from './mel.js';
import type { PredictionState } from './prediction.js';
import {
  type PromptKernelWeights, type PromptParams, applyPromptKernel, languageTagIds, loadPromptKernel, readPromptParams, resolvePromptIndex,
} from './prompt.js';
import { type RnntCursor, rnntGreedyFrom, rnntStart } from './rnnt.js';
import { type EncoderCaches, initialCaches, streamEncoderStep } from './stream-encoder.js';
import { MelStream } from './stream-mel.js';
import { type AttPreset, type StreamSchedule, streamSchedule } from './stream-params.js';
import { type ReferenceModel, loadReferenceModel } from './transcribe.js';
import type { WeightSource } from './weights.js';

export type StreamEventType = 'eou' | 'eob' | 'lang';

export interface StreamEvent {
  type: StreamEventType;
  frame: number;
}

export interface StreamChunkTokens {
  tokenIds: number[];
  tokenFrames: number[];
}

/** The CLI contract's `stream` object (token_ids, token_frames, chunks, events) in camelCase. */
export interface StreamTranscript {
  /** Every emitted id in order, <EOU>/<EOB>/language tags included. */
  tokenIds: number[];
  /** Global encoder frame of each. */
  tokenFrames: number[];
  /** One entry per streaming step, also for steps that emitted nothing. */
  chunks: StreamChunkTokens[];
  events: StreamEvent[];
}

export interface StreamChunkDetail {
  index: number;
  /** New mel frames of this chunk and the first of them. */
  firstMelFrame: number;
  melFrames: number;
  /** Global index of the chunk's first encoder frame, and its frame count. */
  firstFrame: number;
  frames: number;
  /** Encoder output [frames][D] (before the prompt kernel). */
  encoder: Float64Array;
  /** Tokens and greedy decisions with global frames. */
  tokens: DecodedToken[];
  steps: DecisionStep[];
  /** Whether the decoder was reset to SOS after this chunk (it emitted <EOU> or <EOB>). */
  reset: boolean;
}

export interface StreamReferenceResult extends StreamTranscript {
  /** Text without special pieces (SentencePiece decode of tokenIds). */
  text: string;
  schedule: StreamSchedule;
  /** Prompt index fed to the prompt kernel (null: the model has no prompt). */
  promptIndex: number | null;
  /** Locale of the last language tag emitted, if any. */
  detectedLanguage: string | null;
  chunkDetails: StreamChunkDetail[];
  /** Every greedy decision in order, global frames. */
  steps: DecisionStep[];
  /** Emitted tokens decided before the first near-tie (margin ≤ 1e-3): an F32 engine must match these. */
  reliableTokens: number;
  /** Leading chunks before the chunk of the first near-tie decision. */
  reliableChunks: number;
  /** Mel frames fed (incl. the final zeroed one) and encoder frames produced. */
  melFrames: number;
  encoderFrames: number;
  dModel: number;
}

export interface StreamOptions {
  /** Attention preset (left, right); default the model's first. */
  attContext?: AttPreset;
  /** Prompt models: a dictionary locale or `auto` (default). Other models: must be absent or `auto`. */
  language?: string;
  /** Override parakeet.decoding.max_symbols. */
  maxSymbols?: number;
}

const NEAR_TIE = 1e-3;

const promptCache = new WeakMap<WeightSource, { params: PromptParams; kernel: PromptKernelWeights } | null>();

function loadPrompt(w: WeightSource, dModel: number): { params: PromptParams; kernel: PromptKernelWeights } | null {
  if (promptCache.has(w)) return promptCache.get(w) ?? null;
  const params = readPromptParams(w);
  const loaded = params === null ? null : { params, kernel: loadPromptKernel(w, dModel, params) };
  promptCache.set(w, loaded);
  return loaded;
}

/** A stream: feed PCM blocks of any size, then end(); chunks are processed as soon as their mel frames are final. */
export class ReferenceStream {
  readonly schedule: StreamSchedule;
  readonly promptIndex: number | null;
  private readonly model: ReferenceModel;
  private readonly prompt: { params: PromptParams; kernel: PromptKernelWeights } | null;
  private readonly mel: MelStream;
  private readonly caches: EncoderCaches;
  private readonly maxSymbols: number;
  private readonly eouId: number;
  private readonly eobId: number;
  private readonly langIds: Set<number>;
  private cursor: RnntCursor<PredictionState> | null = null;
  private nextMelFrame = 0;
  private nextEncoderFrame = 0;
  private readonly details: StreamChunkDetail[] = [];
  private ended = false;

  constructor(weights: WeightSource, opts: StreamOptions = {}) {
    this.model = loadReferenceModel(weights);
    const hp = this.model.hparams;
    if (hp.transducer === null || this.model.prediction === null || this.model.joint === null) {
      throw new Error('reference streaming: the model has no transducer head');
    }
    if (hp.transducer.isTdt) throw new Error('reference streaming: cache-aware streaming decodes RNNT models (this one is TDT)');
    this.schedule = streamSchedule(weights, hp, opts.attContext);
    this.prompt = loadPrompt(weights, hp.enc.dModel);
    if (this.prompt === null) {
      if (opts.language !== undefined && opts.language !== 'auto') {
        throw new Error(`reference streaming: language ${JSON.stringify(opts.language)} given, but the model has no language prompt`);
      }
      this.promptIndex = null;
    } else {
      this.promptIndex = resolvePromptIndex(this.prompt.params, opts.language);
    }
    this.mel = new MelStream(hp.pre, this.model.melWeights);
    this.caches = initialCaches(this.model.encoder, this.schedule);
    this.maxSymbols = opts.maxSymbols ?? hp.transducer.maxSymbols;
    this.eouId = hp.pieces.indexOf('<EOU>');
    this.eobId = hp.pieces.indexOf('<EOB>');
    this.langIds = languageTagIds(hp.pieces, this.prompt?.params ?? null);
  }

  /** Append PCM (model sample rate, mono); returns the chunks this block completed. */
  feed(pcm: Float32Array | Float64Array): StreamChunkDetail[] {
    if (this.ended) throw new Error('reference streaming: feed after end');
    this.mel.push(pcm);
    return this.drain(false);
  }

  /** End of audio: the remaining mel frames (incl. the final zeroed one) as full chunks and one partial chunk. */
  end(): StreamChunkDetail[] {
    if (this.ended) return [];
    this.ended = true;
    this.mel.end();
    return this.drain(true);
  }

  result(): StreamReferenceResult {
    if (!this.ended) throw new Error('reference streaming: result() before end()');
    const tokens = this.details.flatMap((c) => c.tokens);
    const steps = this.details.flatMap((c) => c.steps);
    const events: StreamEvent[] = [];
    let detectedLanguage: string | null = null;
    const pieces = this.model.hparams.pieces;
    for (const t of tokens) {
      const type = this.eventType(t.id);
      if (type === null) continue;
      events.push({ type, frame: t.frame });
      if (type === 'lang') detectedLanguage = pieces[t.id].slice(1, -1);
    }
    const firstTie = this.details.findIndex((c) => c.steps.some((s) => !(s.margin > NEAR_TIE)));
    return {
      tokenIds: tokens.map((t) => t.id),
      tokenFrames: tokens.map((t) => t.frame),
      chunks: this.details.map((c) => ({ tokenIds: c.tokens.map((t) => t.id), tokenFrames: c.tokens.map((t) => t.frame) })),
      events,
      text: detokenize(pieces, tokens.map((t) => t.id)),
      schedule: this.schedule,
      promptIndex: this.promptIndex,
      detectedLanguage,
      chunkDetails: this.details,
      steps,
      reliableTokens: reliableTokenCount(steps, NEAR_TIE),
      reliableChunks: firstTie < 0 ? this.details.length : firstTie,
      melFrames: this.mel.frames,
      encoderFrames: this.nextEncoderFrame,
      dModel: this.model.hparams.enc.dModel,
    };
  }

  private eventType(id: number): StreamEventType | null {
    if (id === this.eouId) return 'eou';
    if (id === this.eobId) return 'eob';
    return this.langIds.has(id) ? 'lang' : null;
  }

  /** Process every chunk whose mel frames are final; at the end also the partial tail. */
  private drain(atEnd: boolean): StreamChunkDetail[] {
    const done: StreamChunkDetail[] = [];
    for (;;) {
      const first = this.details.length === 0;
      const size = this.schedule.chunkMel[first ? 0 : 1];
      const remaining = this.mel.frames - this.nextMelFrame;
      if (remaining <= 0 || (remaining < size && !atEnd)) break;
      done.push(this.processChunk(Math.min(size, remaining)));
    }
    return done;
  }

  private processChunk(newFrames: number): StreamChunkDetail {
    const s = this.schedule;
    const first = this.details.length === 0;
    const start = this.nextMelFrame;
    // CacheAwareStreamingAudioBuffer: [pre-encode cache (zeros where the stream is shorter) | new frames].
    const cacheFrames = s.preEncodeCache[first ? 0 : 1];
    const width = cacheFrames + newFrames;
    const M = this.mel.nMels;
    const window = new Float64Array(M * width);
    for (let c = 0; c < width; c++) {
      const t = start - cacheFrames + c;
      if (t < 0) continue;
      const f = this.mel.frame(t);
      for (let m = 0; m < M; m++) window[m * width + c] = f[m];
    }
    const enc = streamEncoderStep(this.model.encoder, this.caches, s, window, width, first ? 0 : s.dropExtra);
    const detail = this.decode(enc.out, enc.frames);
    const chunk: StreamChunkDetail = {
      index: this.details.length, firstMelFrame: start, melFrames: newFrames,
      firstFrame: this.nextEncoderFrame, frames: enc.frames, encoder: enc.out, ...detail,
    };
    this.details.push(chunk);
    this.nextMelFrame += newFrames;
    this.nextEncoderFrame += enc.frames;
    return chunk;
  }

  private decode(encoder: Float64Array, frames: number): Pick<StreamChunkDetail, 'tokens' | 'steps' | 'reset'> {
    const model = this.model;
    const joint = model.joint;
    const prediction = model.prediction;
    if (joint === null || prediction === null) throw new Error('reference streaming: no transducer head');
    const input = this.prompt !== null && this.promptIndex !== null
      ? applyPromptKernel(encoder, frames, this.prompt.kernel, this.promptIndex)
      : encoder;
    const tm = transducerModel(prediction, joint, projectEncoder(joint, input, frames), model.hparams.blankId);
    this.cursor ??= rnntStart(tm);
    const r = rnntGreedyFrom(tm, frames, this.maxSymbols, this.cursor);
    const offset = this.nextEncoderFrame;
    const tokens = r.tokens.map((t) => ({ ...t, frame: t.frame + offset }));
    const steps = r.steps.map((st) => ({ ...st, frame: st.frame + offset }));
    // parakeet.cpp / NeMo's voice agent: after the chunk that emitted <EOU> or <EOB>, the decoder restarts from SOS.
    const reset = tokens.some((t) => t.id === this.eouId || t.id === this.eobId);
    this.cursor = reset ? rnntStart(tm) : r.end;
    return { tokens, steps, reset };
  }
}

/** Stream a whole clip, fed in blocks of `blockSamples` (default: all at once). */
export function referenceStream(
  weights: WeightSource,
  pcm: Float32Array | Float64Array,
  opts: StreamOptions & { blockSamples?: number } = {},
): StreamReferenceResult {
  const stream = new ReferenceStream(weights, opts);
  const block = opts.blockSamples ?? Math.max(1, pcm.length);
  for (let i = 0; i < pcm.length; i += block) stream.feed(pcm.subarray(i, Math.min(pcm.length, i + block)));
  stream.end();
  return stream.result();
}

/**
 * The offline limited-context encoder over every mel frame of the clip (incl. the final zeroed one,
 * all counted as valid), with a preset's attention context: what the streamed frames equal for
 * right context ≥ 1 (Corrections 5).
 */
export function referenceOfflineAllFrames(weights: WeightSource, pcm: Float32Array | Float64Array, preset: AttPreset): EncoderResult {
  const model = loadReferenceModel(weights);
  const hp = model.hparams;
  const mel = computeMel(pcm, hp.pre, model.melWeights);
  const context: AttentionContext = { left: preset[0], right: preset[1], style: hp.enc.attContextStyle };
  return runEncoder({ ...mel, validFrames: mel.nFrames }, model.encoder, { context });
}
