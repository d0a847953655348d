// One live dictation session: frames in (any rate, exact sample accounting),
// whole audio kept (AudioStore), speech segments found by the Segmenter, the
// open segment re-decoded on a cadence for partial text (skipped while the
// engine is busy, never queued), each closed segment decoded once for final
// text, finals emitted in segment order and never changed. During a pause the
// open segment is decoded early up to the exact end a pause-close will cut
// (Segmenter.tentativeEnd), so when the pause completes the final is usually
// ready: same samples, same text, no wait. Decoding happens in the engine
// process; this class only does cheap bookkeeping on the main thread.
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import path from 'node:path';
import type {
  DictationSettings, EventMap, EventName, IpcError, LatencyReport, SessionState, SessionSummary, StreamChunkCompute, TranscriptEvent,
} from '../../ipc/contract.js';
import type { DecoderName } from '../../../native/index.js';
import { joinSegments, type CompiledTransform } from '../../shared/text-transform.js';
import type { VocabularyPhrase } from '../../shared/vocabulary.js';
import type { DecodePriority } from '../engine/engine-host.js';
import type { EngineStreamOptions, EngineTranscribeOptions, EngineTranscript } from '../../engine-process/protocol.js';
import type { Logger } from '../log.js';
import { AudioInput, TIMELINE_RATE } from './audio-input.js';
import { AudioStore } from './audio-store.js';
import { guardedVocabulary, segmentNonSpeech } from '../../shared/non-speech.js';
import { RecentValues } from './recent-values.js';
import { SegmentStream, type StreamDecoder, type StreamText } from './segment-stream.js';
import { SILERO_WINDOW_MS, Segmenter, trainedVadSegmenterOptions, type SegmentEvent } from './segmenter.js';
import { onsetFade } from './onset-fade-option.js';
import { vadFallbackMessage, VadFeed, type SessionVad } from './vad-feed.js';
import { keepConfidentTranscript, type SilenceGuardCounts } from '../../shared/silence-guards.js';


/** How long stop() waits for audio frames still in flight. */
const DRAIN_TIMEOUT_MS = 1000;
/** Stream chunks the latency panel's chunk compute figures cover (the latest; 200 × 160 ms = 32 s of audio). */
const STREAM_CHUNK_WINDOW = 200;
export const SESSION_RATE = TIMELINE_RATE;

/** What a session needs from the engine (EngineHost provides it). */
export interface SessionDecoder {
  transcribe(
    pcm: Float32Array,
    options: EngineTranscribeOptions,
    how: { priority: DecodePriority; skipIfBusy?: boolean; signal?: AbortSignal },
  ): Promise<EngineTranscript | null>;
  /** What holds live decodes up now, in words (a model load, a check), or null (EngineHost.liveHeldBy). */
  liveHeldBy?(): string | null;
  /** What the silence guards took away, added to what Devices shows (EngineHost.noteSilenceGuards). */
  noteSilenceGuards?(counts: Partial<SilenceGuardCounts>): void;
}

/** A trained VAD's stream (vad-feed.ts; re-exported for the session's users). */
export type { SessionVad };

/** Silero's chunk at 16 kHz (ms; segmenter.ts's, re-exported for the session's users). */
export { SILERO_WINDOW_MS };

export type Emit = <E extends EventName>(event: E, data: EventMap[E]) => void;

export interface SessionOptions {
  id: string;
  owner: string;
  /** Rate of the frames the client sends. */
  sampleRate: number;
  dictation: DictationSettings;
  decoder: DecoderName | 'auto';
  /** Custom vocabulary the decoder favours (settings.text.vocabulary); empty: none. */
  vocabulary?: readonly VocabularyPhrase[];
  engine: SessionDecoder;
  emit: Emit;
  log: Logger;
  /** Spill audio older than the open segment to a file here once a session holds more than spillAfterSec. */
  spillDir?: string;
  spillAfterSec?: number;
  /** Keep the audio after stop (tests compare it with what they sent). */
  retainAudio?: boolean;
  /** Audio the client may send ahead of the clock (s; default REAL_TIME_SLACK_SEC). */
  realTimeSlackSec?: number;
  /** Shortest audio worth a partial decode (ms). */
  minPartialMs?: number;
  /**
   * Longest run of missing samples filled with silence (s); a larger jump is counted but not filled.
   * Fills are bounded by the wall time too (audio-input.ts, gapFillSamples).
   */
  maxGapFillSec?: number;
  /** The text options (settings.text) compiled at the session's start; applied to every partial and final. */
  transform?: CompiledTransform;
  /**
   * The resident model is a cache-aware streaming model: each segment is fed to an engine stream as its audio
   * arrives (partials are its committed tokens, an <EOU> ends the utterance, the end flushes the tail), instead
   * of being re-decoded on a cadence. A stream that fails (a dead engine) leaves its segment to an offline decode.
   */
  stream?: { decoder: StreamDecoder; options: EngineStreamOptions };
  /** The trained VAD that decides speech (Silero); absent or null: the energy VAD. */
  vad?: SessionVad | null;
  /** A new stream on the trained VAD when `vad` fails mid-session (null: none now; the energy VAD takes over). */
  reopenVad?: () => SessionVad | null;
}

interface Segment {
  id: number;
  start: number;
  /** First sample of speech (partials wait for some speech after it, not just pre-roll). */
  onset: number;
  end: number | null;
  /** Wall time (performance.now) the onset's audio arrived. */
  onsetAt: number;
  closedAt: number | null;
  /** Wall time the last voiced sample arrived (the end of speech as the person lived it). */
  speechEndAt: number | null;
  /** The sample after the last voiced window (known once the segment closes). */
  speechEnd: number | null;
  lastPartial: string | null;
  final: TranscriptEvent | null;
  /** A decode of [start, end) finished early (the tentative end during the closing pause). */
  early: { end: number; result: EngineTranscript } | null;
  /** Streaming models: the segment's engine stream, and the store position fed to it so far. */
  stream: SegmentStream | null;
  fedTo: number;
}

/** What a transcript event is made of: an offline decode's result, or a stream's committed text. */
type Decoded = Pick<EngineTranscript, 'text' | 'words'> & { devicesRan?: string[]; language?: string | null; phrasesFired?: string[] };

/** The decode running for an open segment: partial text, or the early final of its tentative end. */
interface OpenDecode {
  controller: AbortController;
  segment: Segment;
  end: number;
  /** Decoding up to the tentative end (a final in waiting), not just partial text. */
  early: boolean;
  promise: Promise<EngineTranscript | null>;
}

const RETRYABLE = new Set(['ENGINE_CRASHED', 'BUSY', 'NO_MODEL']);

/**
 * Audio a client may send ahead of the wall clock since the session started (s): the pre-roll it captured
 * before the start (≤ 2 s) and a burst after its page or network stalled (a minute). A session takes audio at real
 * time; past this it refuses frames (told once), so a client sending hours in seconds can neither fill the
 * server's memory nor queue hours of decodes. Files are for recordings.
 */
export const REAL_TIME_SLACK_SEC = 60;

/** Event-loop sampling interval; the histogram's values include it, so it is subtracted in reports. */
const LOOP_RESOLUTION_MS = 10;

function loopDelay(h: IntervalHistogram | null, pick: (h: IntervalHistogram) => number): number | null {
  if (!h || h.count === 0) return null;
  return Math.max(0, pick(h) / 1e6 - LOOP_RESOLUTION_MS);
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'INTERNAL';
}

export class DictationSession {
  readonly id: string;
  readonly owner: string;
  readonly sampleRate: number;
  private state: SessionState = 'listening';
  private readonly store: AudioStore;
  private readonly segmenter: Segmenter;
  /** Frames in, 16 kHz out: sample accounting, gap fill, repeats, non-finite samples (audio-input.ts). */
  private readonly input: AudioInput;
  private readonly segments: Segment[] = [];
  private open: Segment | null = null;
  private nextFinal = 0;
  private readonly finals: TranscriptEvent[] = [];
  private readonly finalWork = new Set<Promise<void>>();
  private partial: OpenDecode | null = null;
  private lastPartialAt = Number.NEGATIVE_INFINITY;
  private readonly cancelController = new AbortController();
  private stopping: Promise<SessionSummary> | null = null;
  private readonly histogram: IntervalHistogram | null;
  /** (end sample, arrival time) of recent frames, to date an onset. */
  private arrivals: { end: number; at: number }[] = [];
  private readonly startedAt = performance.now();
  private firstPartialMs: number | null = null;
  /** Live text on a streaming model: the latest steady chunks' compute (ms) and the audio a chunk holds. */
  private readonly chunkCompute = new RecentValues(STREAM_CHUNK_WINDOW);
  private chunkAudioMs = 0;
  private readonly finalLatencies: number[] = [];
  /** Input-rate samples refused for arriving faster than real time (REAL_TIME_SLACK_SEC). */
  private refusedSamples = 0;
  /** The sender's sample number after the last refused frame. */
  private refusedUpTo = 0;
  /** While stop() waits for frames in flight: the sample count it waits for. */
  private drained: { target: number; resolve: () => void } | null = null;
  private partialDecodes = 0;
  private partialsSkipped = 0;
  /** Live text cannot be on time: what holds the engine, told to the client until a decode gets through. */
  private delayedBy: string | null = null;
  private finalDecodes = 0;
  private level = 0;
  private lastLevelAt = 0;
  private readonly minPartialSamples: number;
  private readonly preRollSamples: number;
  private readonly vadFeed: VadFeed;

  constructor(private readonly opts: SessionOptions) {
    this.id = opts.id;
    this.owner = opts.owner;
    this.sampleRate = opts.sampleRate;
    const d = opts.dictation;
    // Only a session whose whole audio is read back (retainAudio) keeps it, spilled to disk when long;
    // otherwise what no decode needs is dropped: a dictation keeps no audio.
    this.store = new AudioStore(opts.retainAudio && opts.spillDir
      ? { spill: { file: path.join(opts.spillDir, `${opts.id}-${process.pid}-${Date.now()}.f32`), afterSamples: SESSION_RATE * (opts.spillAfterSec ?? 300) } }
      : { dropReleased: !opts.retainAudio });
    this.segmenter = new Segmenter({
      sampleRate: SESSION_RATE,
      pauseMs: d.pauseMs,
      maxSegmentSec: d.maxSegmentSec,
      preRollMs: d.preRollMs,
      thresholdDb: d.vadThresholdDb,
      ...(opts.vad ? trainedVadSegmenterOptions(d) : {}),
    });
    this.vadFeed = new VadFeed(this.segmenter, opts.vad ?? null, (events) => {
      if (this.cancelController.signal.aborted) return;
      const now = performance.now();
      for (const event of events) this.onSegmentEvent(event, now);
      this.feedStream();
      this.maybePartial(now);
    }, (reason, fallback) => {
      this.opts.log.warn(`session ${this.id}: ${reason}`);
      // The energy VAD types words into noise that Silero kept out: the user hears of it, not only the log.
      if (fallback) this.notify({ code: 'VAD_FALLBACK', message: vadFallbackMessage('dictation', fallback.cause) });
    }, opts.reopenVad
      ? { open: opts.reopenVad, audio: (from, to) => this.store.read(from, to) }
      : undefined);
    this.input = new AudioInput({
      inputRate: opts.sampleRate, label: `session ${opts.id}`, log: opts.log, maxGapFillSec: opts.maxGapFillSec,
      sink: (pcm, now) => this.process(pcm, now),
    });
    this.minPartialSamples = Math.round((SESSION_RATE * (opts.minPartialMs ?? 240)) / 1000);
    this.preRollSamples = Math.round((SESSION_RATE * d.preRollMs) / 1000);
    let histogram: IntervalHistogram | null = null;
    try {
      histogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
      histogram.enable();
    } catch {
      histogram = null;
    }
    this.histogram = histogram;
    this.emitState(null);
  }

  /** Samples stored (16 kHz). */
  get storedSamples(): number {
    return this.store.length;
  }

  get audioMemoryBytes(): number {
    return this.store.memoryBytes;
  }

  /** Segments still holding a decode result or partial text (only those whose final is not out yet should). */
  get segmentsHoldingResults(): number {
    return this.segments.filter((s) => s.early !== null || s.lastPartial !== null).length;
  }

  /** The session audio at 16 kHz (needs retainAudio after stop). */
  audio(): Promise<Float32Array> {
    return this.store.readAll();
  }

  // ------------------------------------------------------------ audio in

  /** One frame from the client. Returns false when the session no longer takes audio. */
  pushAudio(frame: Float32Array, startSample?: number): boolean {
    if (this.state === 'finalizing' || this.state === 'stopped' || this.state === 'failed') return false;
    if (this.stopping && !this.drained) return false;  // stop() already decided where the audio ends
    const now = performance.now();
    if (this.aheadOfRealTime(frame.length, now)) {
      // Refused, but arrived: a stop waiting for the frames in flight does not wait for these.
      this.refusedUpTo = Math.max(this.refusedUpTo, (startSample ?? this.input.position) + frame.length);
      if (this.drained && this.refusedUpTo >= this.drained.target) this.drained.resolve();
      return false;
    }
    this.input.push(frame, startSample, now);
    if (this.drained && this.input.position >= this.drained.target) this.drained.resolve();
    return true;
  }

  /** Would `samples` more put the audio received more than REAL_TIME_SLACK_SEC ahead of the clock? Then they are refused, and the client told once. */
  private aheadOfRealTime(samples: number, now: number): boolean {
    const slackSec = this.opts.realTimeSlackSec ?? REAL_TIME_SLACK_SEC;
    const allowed = this.sampleRate * ((now - this.startedAt) / 1000 + slackSec);
    const received = this.input.stats.samplesReceived;
    if (received + samples <= allowed) return false;
    if (this.refusedSamples === 0) {
      const message = `Audio arrives faster than real time (${(received / this.sampleRate).toFixed(0)} s of audio after ` +
        `${((now - this.startedAt) / 1000).toFixed(1)} s): a dictation takes the microphone as it is captured, at most ${slackSec} s ahead, ` +
        'and the rest was refused. To transcribe a recording, use Files.';
      this.opts.log.warn(`session ${this.id}: ${message}`);
      this.emitState({ code: 'AUDIO_TOO_FAST', message });
    }
    this.refusedSamples += samples;
    return true;
  }

  private process(pcm: Float32Array, now: number): void {
    if (pcm.length === 0) return;
    this.store.append(pcm);
    this.arrivals.push({ end: this.store.length, at: now });
    if (this.arrivals.length > 256) this.arrivals = this.arrivals.slice(-128);
    for (const event of this.segmenter.push(pcm)) this.onSegmentEvent(event, now);
    this.feedStream();
    this.vadFeed.push(pcm);
    this.updateLevel(pcm, now);
    this.maybePartial(now);
  }

  /**
   * Streaming models: the open segment's audio not yet fed goes to its stream, in order — only what the VAD
   * decided, and during a pause only up to where a pause-close would cut (Segmenter.streamLimit), so a stream
   * never hears audio past its segment's end (a stream cannot take back what it heard). Speech that resumes
   * releases the rest; a length-cap cut then falls no earlier than what the stream heard (heardUpTo).
   */
  private feedStream(): void {
    const segment = this.open;
    const limit = Math.min(this.store.length, this.segmenter.streamLimit);
    if (!segment?.stream || segment.fedTo >= limit) return;
    segment.stream.feed(this.store.read(segment.fedTo, limit));
    segment.fedTo = limit;
    this.segmenter.heardUpTo(limit);
  }

  private startStream(segment: Segment): void {
    const stream = this.opts.stream;
    if (!stream) return;
    // The settings' vocabulary boosts the stream's committed tokens as it boosts an offline decode.
    // The pre-roll before the onset is non-speech (the stream hears it first).
    const options = {
      ...stream.options,
      ...guardedVocabulary(this.opts.vocabulary ?? [], () => segmentNonSpeech(segment.start, segment.onset, null, segment.onset, SESSION_RATE)),
    };
    segment.stream = new SegmentStream(stream.decoder, options, {
      onText: (text) => this.onStreamText(segment, text),
      onUtteranceEnd: () => this.onUtteranceEnd(segment),
      onChunkCompute: (ms, chunkAudioMs) => {
        this.chunkCompute.push(ms);
        this.chunkAudioMs = chunkAudioMs;
      },
    });
  }

  /** Committed tokens only: the partial grows and never rewrites itself. */
  private onStreamText(segment: Segment, text: StreamText): void {
    if (segment.end !== null || this.state === 'stopped') return;
    const shown = text.text.trim();
    if (shown === segment.lastPartial || shown === '') return;
    segment.lastPartial = shown;
    this.partialDecodes += 1;
    if (this.firstPartialMs === null) this.firstPartialMs = performance.now() - segment.onsetAt;
    this.opts.emit('dictation:transcript', this.event(segment, 'partial', segment.fedTo, text));
  }

  /** The model said the utterance ended: the segment closes where its fed audio ends, without waiting for a pause. */
  private onUtteranceEnd(segment: Segment): void {
    if (this.open !== segment) return;
    const now = performance.now();
    for (const event of this.segmenter.endUtterance(segment.fedTo)) this.onSegmentEvent(event, now);
  }

  private updateLevel(pcm: Float32Array, now: number): void {
    let sum = 0;
    for (let i = 0; i < pcm.length; i += 1) sum += pcm[i]! * pcm[i]!;
    this.level = Math.min(1, Math.sqrt(sum / pcm.length));
    // The desktop overlay's meter (app/main/tray) needs ~10 updates a second, not one per frame.
    if (now - this.lastLevelAt >= 100) this.emitState(null);
  }

  /** Wall time at which sample `s` arrived. */
  private arrivalOf(s: number): number {
    for (const a of this.arrivals) if (a.end > s) return a.at;
    return performance.now();
  }

  // ------------------------------------------------------------ segments

  private onSegmentEvent(event: SegmentEvent, now: number): void {
    if (event.type === 'open') {
      const segment: Segment = {
        id: this.segments.length,
        start: event.start,
        onset: event.onset,
        end: null,
        onsetAt: this.arrivalOf(event.onset),
        closedAt: null,
        speechEndAt: null,
        speechEnd: null,
        lastPartial: null,
        final: null,
        early: null,
        stream: null,
        fedTo: event.start,
      };
      this.segments.push(segment);
      this.open = segment;
      this.startStream(segment);
      this.lastPartialAt = Number.NEGATIVE_INFINITY; // first partial as soon as there is enough audio
      this.setState('speech');
      return;
    }
    const segment = this.open;
    if (!segment) return;
    segment.end = event.end;
    segment.closedAt = now;
    // The sample just before speechEnd is the last voiced one: when it arrived is when speech ended.
    segment.speechEndAt = Math.min(now, this.arrivalOf(Math.max(0, event.speechEnd - 1)));
    segment.speechEnd = event.speechEnd;
    this.open = null;
    // A decode of other samples than the final's would only delay it.
    if (this.partial?.segment === segment && this.partial.end !== segment.end) this.partial.controller.abort();
    if (this.state === 'speech') this.setState('listening');
    // A stream hears its segment up to the cut (never past it: feedStream stops at Segmenter.streamLimit).
    if (segment.stream && event.end > segment.fedTo) {
      segment.stream.feed(this.store.read(segment.fedTo, event.end));
      segment.fedTo = event.end;
    }
    this.startFinal(segment);
  }

  /** A decode of [segment.start, end): the vocabulary, which buys nothing where the VAD heard no speech. */
  private decodeOptions(segment: Segment, end: number, speechEnd = segment.speechEnd): EngineTranscribeOptions {
    return {
      sampleRate: SESSION_RATE, decoder: this.opts.decoder === 'auto' ? undefined : this.opts.decoder,
      ...onsetFade(this.segmenter.usesExternalDetector, segment.start, segment.onset),
      ...guardedVocabulary(this.opts.vocabulary ?? [], () => segmentNonSpeech(segment.start, segment.onset, speechEnd, end, SESSION_RATE)),
    };
  }

  private event(segment: Segment, kind: 'partial' | 'final', end: number, result: Decoded | null): TranscriptEvent {
    const offset = segment.start / SESSION_RATE;
    // The confidence floor (a silence guard, off by default) as a file job applies it, to partials too, so
    // live text never shows a word its final will drop.
    const spoken = keepConfidentTranscript({ text: result?.text.trim() ?? '', words: result?.words ?? [] }, this.opts.dictation.minWordConfidence);
    const dropped = (result?.words.length ?? 0) - spoken.words.length;
    if (kind === 'final' && dropped > 0) this.opts.engine.noteSilenceGuards?.({ wordsDropped: dropped });
    // The text options rewrite text and words together (a removed command word takes no time with it); the
    // engine's text is kept as spokenText, and startSample/endSample still give exactly the audio it came from.
    const shown = this.opts.transform?.active ? this.opts.transform.apply(spoken) : { ...spoken, changed: false };
    return {
      sessionId: this.id,
      segmentId: segment.id,
      kind,
      text: shown.text,
      ...(shown.changed ? { spokenText: spoken.text } : {}),
      words: shown.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })),
      start: offset,
      end: end / SESSION_RATE,
      devicesRan: result?.devicesRan ?? [],
      startSample: segment.start,
      endSample: end,
      ...(result?.language ? { language: result.language } : {}),
      ...(result?.phrasesFired?.length ? { phrasesFired: [...result.phrasesFired] } : {}),
    };
  }

  /**
   * Partial text: re-decode the open segment every partialIntervalMs. Once the closing pause is longer
   * than the tail, the decode covers exactly the samples a pause-close will keep (the tentative end), at
   * final priority: if the pause completes, that result is the final, ready when the pause ends.
   */
  private maybePartial(now: number): void {
    const segment = this.open;
    if (!segment || segment.stream) return;  // a stream's chunks give the partials
    const tentative = this.segmenter.tentativeEnd;
    // One decode per session at a time. A partial still running when the pause starts would delay the
    // early final: it is cancelled. (An early final whose pause turns out too short still gives partial text.)
    if (this.partial) {
      if (tentative !== null && !this.partial.early) this.partial.controller.abort();
      return;
    }
    if (tentative !== null) {
      if (segment.early?.end === tentative) return; // already decoded
      this.startOpenDecode(segment, tentative, now, 'final');
      return;
    }
    if (now - this.lastPartialAt < this.opts.dictation.partialIntervalMs) return;
    const end = this.store.length;
    if (end - segment.onset < this.minPartialSamples) return;
    this.startOpenDecode(segment, end, now, 'partial');
  }

  private startOpenDecode(segment: Segment, end: number, now: number, priority: 'partial' | 'final'): void {
    this.lastPartialAt = now;
    const controller = new AbortController();
    const pcm = this.store.read(segment.start, end);
    // An early final decodes up to the tentative end: the speech before it ended where a pause-close will say.
    const speechEnd = priority === 'final' ? this.segmenter.tentativeSpeechEnd : null;
    const promise = this.opts.engine.transcribe(pcm, this.decodeOptions(segment, end, speechEnd), {
      priority,
      skipIfBusy: priority === 'partial',
      signal: controller.signal,
    });
    const decode: OpenDecode = { controller, segment, end, early: priority === 'final', promise };
    this.partial = decode;
    if (priority === 'final') segment.early = null;
    promise
      .then(
        (result) => {
          if (result === null) {
            this.partialsSkipped += 1;
            const held = this.opts.engine.liveHeldBy?.() ?? null;
            if (held !== this.delayedBy && held !== null) {
              this.delayedBy = held;
              this.emitState(null);
            }
            // Try again shortly rather than a whole interval later.
            this.lastPartialAt = now - this.opts.dictation.partialIntervalMs + 50;
            return;
          }
          this.partialDecodes += 1;
          if (this.delayedBy !== null) {
            this.delayedBy = null;
            this.emitState(null);
          }
          // Kept only until the segment's final is out (a late result would otherwise be held forever).
          if (priority === 'final' && segment.id >= this.nextFinal) segment.early = { end, result };
          if (segment.end !== null || this.state === 'stopped') return; // closed meanwhile: the final decides
          const text = result.text.trim();
          if (text === segment.lastPartial || (segment.lastPartial === null && text === '')) return;
          segment.lastPartial = text;
          if (this.firstPartialMs === null) this.firstPartialMs = performance.now() - segment.onsetAt;
          this.opts.emit('dictation:transcript', this.event(segment, 'partial', end, result));
        },
        (error: unknown) => {
          if (codeOf(error) !== 'ABORTED') this.opts.log.debug(`partial decode failed: ${(error as Error).message}`);
        },
      )
      .finally(() => {
        if (this.partial === decode) this.partial = null;
      });
  }

  private startFinal(segment: Segment): void {
    // Copied now: the store may release this audio once the segment is closed.
    const pcm = this.store.read(segment.start, segment.end!);
    const running = this.partial?.segment === segment && this.partial.end === segment.end ? this.partial.promise : null;
    const work = this.decodeFinal(segment, pcm, running).then(() => this.flushFinals());
    this.finalWork.add(work);
    void work.finally(() => this.finalWork.delete(work));
  }

  private async decodeFinal(segment: Segment, pcm: Float32Array, running: Promise<EngineTranscript | null> | null): Promise<void> {
    const end = segment.end!;
    if (pcm.length === 0) {
      segment.stream?.close();
      segment.final = this.event(segment, 'final', end, null);
      return;
    }
    if (segment.stream) {
      // The stream's committed text, its tail flushed: the final. (It may have heard a little past `end`,
      // the pause's tail; the store keeps [start, end) as for any final.)
      try {
        const text = await segment.stream.end();
        this.finalDecodes += 1;
        segment.final = this.event(segment, 'final', end, text);
        return;
      } catch (error) {
        if (this.cancelController.signal.aborted) return;
        this.opts.log.warn(`session ${this.id}: segment ${segment.id}'s stream failed (${(error as Error).message}); decoding it offline`);
      }
    }
    // The same samples were decoded (or are being decoded) during the pause: that is the final.
    const early = segment.early?.end === end ? segment.early.result : await running?.catch(() => null);
    if (early) {
      this.finalDecodes += 1;
      segment.final = this.event(segment, 'final', end, early);
      return;
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await this.opts.engine.transcribe(pcm, this.decodeOptions(segment, end), {
          priority: 'final',
          signal: this.cancelController.signal,
        });
        this.finalDecodes += 1;
        segment.final = this.event(segment, 'final', end, result);
        return;
      } catch (error) {
        if (this.cancelController.signal.aborted) return;
        const code = codeOf(error);
        // The engine restarted (or is restarting): the audio is here, decode it again.
        if (RETRYABLE.has(code) && attempt < 4) {
          await new Promise((r) => setTimeout(r, 300 * attempt));
          continue;
        }
        this.opts.log.error(`session ${this.id}: segment ${segment.id} could not be transcribed`, error);
        segment.final = this.event(segment, 'final', end, null);
        this.notify({
          code,
          message: `Segment ${segment.id + 1} could not be transcribed (${(error as Error).message}); its audio is kept.`,
        });
        return;
      }
    }
  }

  /** Emits every final that is ready, strictly in segment order. */
  private flushFinals(): void {
    const now = performance.now();
    let emitted = false;
    while (this.nextFinal < this.segments.length) {
      const segment = this.segments[this.nextFinal]!;
      if (!segment.final) break;
      if (!this.cancelController.signal.aborted) {
        this.finals.push(segment.final);
        // From the end of speech (the last voiced frame), as the user experiences it, not from the pause
        // decision, which comes pauseMs later (issue 44 item 6).
        const from = segment.speechEndAt ?? segment.closedAt;
        if (from !== null) this.finalLatencies.push(now - from);
        this.opts.emit('dictation:transcript', segment.final);
        emitted = true;
      }
      // The final is out and the summary keeps it (this.finals): what led to it (the early decode with its
      // words and tokens, the last partial text) would only pile up over a long session.
      segment.early = null;
      segment.lastPartial = null;
      this.nextFinal += 1;
    }
    if (emitted) {
      this.opts.emit('dictation:latency', this.latency());
      // Audio before the open segment (minus the pre-roll the next one may take) is no longer needed in memory;
      // nor before where the segmenter says the next may start (Silero's verdicts lag the audio, its onset may
      // be a second old when confirmed and its speech pad exceed the pre-roll).
      const keepFrom = this.open ? this.open.start : Math.min(this.segmenter.earliestStart, this.store.length - this.preRollSamples - SESSION_RATE);
      this.store.release(Math.max(0, keepFrom));
    }
  }

  // ------------------------------------------------------------ state & reports

  private setState(state: SessionState, notice: IpcError | null = null): void {
    this.state = state;
    this.emitState(notice);
  }

  private emitState(notice: IpcError | null): void {
    this.lastLevelAt = performance.now();
    this.opts.emit('dictation:state', { sessionId: this.id, state: this.state, level: this.level, notice, delayedBy: this.delayedBy });
  }

  /** Tells the client something degraded (engine restarted, a segment failed) without changing the state. */
  notify(notice: IpcError): void {
    if (this.state === 'stopped') return;
    this.emitState(notice);
  }

  latency(): LatencyReport {
    const mean = this.finalLatencies.length ? this.finalLatencies.reduce((a, b) => a + b, 0) / this.finalLatencies.length : null;
    const h = this.histogram;
    const input = this.input;
    return {
      sessionId: this.id,
      micStartMs: input.firstArrival === null ? null : input.firstArrival - this.startedAt,
      firstPartialMs: this.firstPartialMs,
      finalMs: this.finalLatencies.at(-1) ?? null,
      meanFinalMs: mean,
      framesReceived: input.stats.framesReceived,
      samplesReceived: input.stats.samplesReceived,
      sampleGaps: input.stats.samplesMissing + input.stats.samplesRepeated,
      nonFiniteSamples: input.stats.nonFiniteSamples,
      eventLoopP99Ms: loopDelay(h, (x) => x.percentile(99)),
      eventLoopMaxMs: loopDelay(h, (x) => x.max),
      partialDecodes: this.partialDecodes,
      partialsSkipped: this.partialsSkipped,
      finalDecodes: this.finalDecodes,
      ...(this.chunkCompute.count > 0 ? { streamChunk: this.streamChunk() } : {}),
    };
  }

  private streamChunk(): StreamChunkCompute {
    const p50Ms = this.chunkCompute.percentile(0.5);
    return {
      chunks: this.chunkCompute.kept, p50Ms, p95Ms: this.chunkCompute.percentile(0.95), chunkAudioMs: this.chunkAudioMs,
      percent: (100 * p50Ms) / this.chunkAudioMs,
    };
  }

  /** The finals so far, or — once stop() was called — the final summary when it is ready. */
  current(): Promise<SessionSummary> {
    return this.stopping ?? Promise.resolve(this.summary());
  }

  private summary(): SessionSummary {
    return {
      sessionId: this.id,
      text: joinSegments(this.finals.map((f) => f.text)),
      segments: [...this.finals],
      audioSeconds: this.store.length / SESSION_RATE,
      latency: this.latency(),
    };
  }

  // ------------------------------------------------------------ end

  /**
   * Finalizes what was spoken (an open segment is closed at the last sample) and
   * reports. With `sentSamples`, frames still in flight on the audio channel are
   * awaited first (at most DRAIN_TIMEOUT_MS), so a stop never cuts the last word.
   */
  stop(sentSamples?: number): Promise<SessionSummary> {
    if (this.cancelController.signal.aborted) return Promise.reject(this.cancelledError());
    this.stopping ??= this.drain(sentSamples).then(() => this.finish());
    return this.stopping;
  }

  /** True once stop() was called: the session is draining or finalizing and no longer cancellable. */
  get isStopping(): boolean {
    return this.stopping !== null;
  }

  private cancelledError(): Error {
    return Object.assign(new Error(`session ${this.id} was cancelled`), { code: 'ABORTED' });
  }

  private async drain(sentSamples: number | undefined): Promise<void> {
    if (sentSamples === undefined || Math.max(this.input.position, this.refusedUpTo) >= sentSamples) return;
    const deadline = performance.now() + DRAIN_TIMEOUT_MS;
    await new Promise<void>((resolve) => {
      this.drained = { target: sentSamples, resolve };
      setTimeout(resolve, DRAIN_TIMEOUT_MS).unref?.();
    });
    this.drained = null;
    if (Math.max(this.input.position, this.refusedUpTo) < sentSamples) {
      this.opts.log.warn(`session ${this.id}: stopped with ${sentSamples - this.input.position} sent samples not received after ${DRAIN_TIMEOUT_MS} ms`);
    } else if (performance.now() > deadline) {
      this.opts.log.warn(`session ${this.id}: audio drained late`);
    }
  }

  private async finish(): Promise<SessionSummary> {
    // Aborted while draining (shutdown): the store is gone, there is nothing left to finalize.
    if (this.cancelController.signal.aborted) throw this.cancelledError();
    this.setState('finalizing');
    const now = performance.now();
    this.input.flush(now);
    await this.vadFeed.drained();  // every pushed chunk decided before the stream's end closes what is open
    if (this.cancelController.signal.aborted) throw this.cancelledError();
    this.vadFeed.close();
    const closedAt = performance.now();
    for (const event of this.segmenter.finish()) this.onSegmentEvent(event, closedAt);
    if (this.segmenter.unconfirmedOnsets > 0) this.opts.engine.noteSilenceGuards?.({ unconfirmed: this.segmenter.unconfirmedOnsets });
    while (this.finalWork.size) await Promise.all([...this.finalWork]);
    // Aborted while the last finals were decoded: abort() already ended the session and freed its audio.
    if (this.cancelController.signal.aborted) throw this.cancelledError();
    this.flushFinals();
    this.histogram?.disable();
    const summary = this.summary();
    this.setState('stopped');
    this.opts.emit('dictation:latency', summary.latency);
    if (!this.opts.retainAudio) await this.store.dispose();
    return summary;
  }

  /**
   * Discards the session: decodes are aborted, nothing more is emitted. Once stop() was called the
   * session is being finalized and this waits for that instead (its audio is still being read, and
   * the text is about to be delivered): a cancel then is a no-op for the session.
   */
  async cancel(): Promise<void> {
    if (this.stopping) {
      await this.stopping.catch(() => undefined);
      return;
    }
    await this.abort();
  }

  /**
   * Ends the session now, a stop in progress included (shutdown): decodes are aborted, the audio is freed,
   * and a pending stop() rejects with ABORTED instead of reading audio that is gone.
   */
  async abort(): Promise<void> {
    if (this.state === 'stopped' || this.cancelController.signal.aborted) return;
    this.cancelController.abort();
    this.partial?.controller.abort();
    for (const segment of this.segments) if (segment.final === null) segment.stream?.close();
    this.drained?.resolve(); // a stop waiting for audio in flight goes on (to finish(), which bails out)
    this.vadFeed.close();
    this.histogram?.disable();
    this.setState('stopped');
    await this.store.dispose();
  }
}
