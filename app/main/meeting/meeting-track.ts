// One track of a meeting (the microphone, or the system audio): frames in
// with exact sample accounting, resampled to 16 kHz, journaled to its WAV as
// they arrive, segmented at pauses by the dictation's Segmenter (segments
// capped at the file jobs' window length), and each closed segment decoded
// once, in order, in the engine's lane at file priority: live dictation's
// finals and partials go first, a meeting decode never delays them by more
// than the one segment running (≤ FILE_WINDOW_SEC of audio, ~1 s of compute).
//
// Memory is bounded whatever the meeting's length: the audio store releases
// what no segment needs, the WAV writer holds at most its sync interval, and
// segments waiting for the engine are capped (MAX_QUEUED_SEC); a segment past
// the cap is not decoded (its audio is on disk; re-transcribe the entry).
import { performance } from 'node:perf_hooks';
import type { MeetingTrackName, MeetingTrackReport, Word } from '../../ipc/contract.js';
import type { DecoderName } from '../../../native/index.js';
import type { VocabularyPhrase } from '../../shared/vocabulary.js';
import type { EngineStreamOptions, EngineTranscribeOptions } from '../../engine-process/protocol.js';
import type { Logger } from '../log.js';
import { AudioInput, TIMELINE_RATE } from '../sessions/audio-input.js';
import { RecentAudio } from './recent-audio.js';
import { guardedVocabulary, segmentNonSpeech } from '../../shared/non-speech.js';
import { SegmentStream, type StreamDecoder, type StreamText } from '../sessions/segment-stream.js';
import { Segmenter, type SegmenterOptions, type SegmentEvent } from '../sessions/segmenter.js';
import type { SessionDecoder, SessionVad } from '../sessions/session.js';
import { onsetFade } from '../sessions/onset-fade-option.js';
import { vadFallbackMessage, VadFeed } from '../sessions/vad-feed.js';
import type { WavJournalWriter } from './wav-journal.js';
import { keepConfidentTranscript } from '../../shared/silence-guards.js';

export const TRACK_RATE = TIMELINE_RATE;
/** Audio of segments waiting for the engine, per track, before new ones are left undecoded (s). */
export const MAX_QUEUED_SEC = 300;
const RETRYABLE = new Set(['ENGINE_CRASHED', 'BUSY', 'NO_MODEL']);

/** Open segments longer than this get no more partial text (a decode that long would hold dictation up); the final follows. */
export const MAX_PARTIAL_SEC = 15;
/** Shortest open audio worth a partial decode (ms), as dictation's. */
const MIN_PARTIAL_MS = 240;

/** The open segment's text so far (track samples). */
export interface TrackPartial {
  track: MeetingTrackName;
  /** The segment the final will close (TrackFinal.segmentId). */
  segmentId: number;
  startSample: number;
  text: string;
}

/** A final of one track, times in track samples/seconds (the meeting adds the track's offset). */
export interface TrackFinal {
  track: MeetingTrackName;
  segmentId: number;
  startSample: number;
  endSample: number;
  text: string;
  /** Word times in track seconds. */
  words: Word[];
  devicesRan: string[];
  /** Wall time from the arrival of the segment's last sample to this final (ms). */
  lagMs: number;
  /** Custom-vocabulary phrases its decode (or stream) found; absent when none. */
  phrasesFired?: string[];
}

export interface MeetingTrackOptions {
  track: MeetingTrackName;
  /** Rate of the frames pushed. */
  inputRate: number;
  /** The track's WAV (null: not journaled, e.g. the history is off). */
  wav: WavJournalWriter | null;
  engine: SessionDecoder;
  decoder?: DecoderName;
  /** Custom vocabulary the decoder favours (settings.text.vocabulary); absent or empty: none. */
  vocabulary?: readonly VocabularyPhrase[];
  segmenter: Omit<SegmenterOptions, 'sampleRate'>;
  /** The trained VAD that decides speech (Silero; segmenter.detector 'external'); absent: the energy VAD. */
  vad?: SessionVad | null;
  /** A new stream on the trained VAD when `vad` fails mid-meeting (null: none now; the energy VAD takes over). */
  reopenVad?: () => SessionVad | null;
  /** Every sample placed on the track (16 kHz, in order): the speaker diarizer's input (meeting-speakers.ts). */
  onAudio?: (pcm: Float32Array) => void;
  onFinal: (final: TrackFinal) => void;
  /**
   * Partial text of the open segment, re-decoded every `partialIntervalMs` while it grows: at file priority
   * and only when the engine is idle (skipIfBusy), so live dictation and this track's own finals go first.
   * Absent: no partial decodes.
   */
  onPartial?: (partial: TrackPartial) => void;
  partialIntervalMs?: number;
  /** Silence guard: final words below this confidence are dropped (settings' minWordConfidence; 0 or absent: off). */
  minWordConfidence?: number;
  /** True while partials must not run (live dictation: a meeting decode in the lane cannot be preempted). */
  partialsPaused?: () => boolean;
  /** A segment could not be transcribed (after retries) or was left undecoded; once per cause is enough for the UI. */
  onProblem: (code: string, message: string) => void;
  log: Logger;
  /**
   * A streaming model is resident: each segment is fed to an engine stream as it arrives (partials are its
   * committed tokens, an <EOU> closes the segment), and its final is the stream's text; offline decode if it fails.
   */
  stream?: { decoder: StreamDecoder; options: EngineStreamOptions };
}

interface QueuedSegment {
  id: number;
  start: number;
  /** First sample of its speech, and the end of its last voiced window: around them the VAD heard no speech. */
  onset: number;
  speechEnd: number;
  end: number;
  pcm: Float32Array;
  /** Wall time its last sample arrived. */
  arrivedAt: number;
  /** Wall time the segmenter closed it (the pause decided, the cap hit or the model's <EOU>). */
  closedAt: number;
  /** Wall time its last voiced sample arrived: when the person stopped speaking. */
  speechEndAt: number;
  /**
   * Streaming models: the segment's stream, ended (its tail flushed) as soon as the segment closed, so a
   * backlog of segments holds finished texts, not open streams (each keeps its compute state until it ends).
   */
  ending: Promise<StreamText> | null;
}

function lagStats(lags: readonly number[]): MeetingTrackReport['finalLagMs'] {
  if (!lags.length) return null;
  const s = [...lags].sort((a, b) => a - b);
  const at = (q: number): number => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]!);
  return { p50: at(0.5), p95: at(0.95), max: Math.round(s.at(-1)!) };
}

/** Lags are kept for the report, bounded: the last 100 000. */
function keepLast(lags: number[], lag: number): void {
  if (lags.length >= 100_000) lags.shift();
  lags.push(lag);
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'INTERNAL';
}

export class MeetingTrack {
  readonly track: MeetingTrackName;
  private readonly store = new RecentAudio();
  private readonly segmenter: Segmenter;
  private readonly vadFeed: VadFeed;
  /** Frames in, 16 kHz out: sample accounting, gap fill, repeats, non-finite samples (sessions/audio-input.ts). */
  private readonly input: AudioInput;
  private readonly queue: QueuedSegment[] = [];
  private queuedSamples = 0;
  private decoding: Promise<void> | null = null;
  private readonly cancel = new AbortController();
  private openStart: number | null = null;
  private openOnset = 0;
  private nextSegment = 0;
  /** 16 kHz samples on the timeline (the store forgets its length once disposed). */
  private placed = 0;
  private undecoded = 0;
  private finished = false;
  /** (end sample, arrival time) of recent pushes, to date a segment's end. */
  private arrivals: { end: number; at: number }[] = [];
  private lastLevel = 0;
  private readonly lags: number[] = [];
  /** The same finals' lags from the close decision (what the engine adds) and from the end of speech (what a person waits). */
  private readonly closeLags: number[] = [];
  private readonly speechEndLags: number[] = [];
  private partialRunning = false;
  private lastPartialAt = Number.NEGATIVE_INFINITY;
  private lastPartialText: string | null = null;
  /** Streaming models: the open segment's stream and the store position fed to it. */
  private openStream: SegmentStream | null = null;
  private fedTo = 0;

  constructor(private readonly opts: MeetingTrackOptions) {
    this.track = opts.track;
    this.segmenter = new Segmenter({ sampleRate: TRACK_RATE, ...opts.segmenter });
    this.vadFeed = new VadFeed(this.segmenter, opts.vad ?? null, (events) => {
      for (const event of events) this.onSegment(event);
      this.feedStream(this.segmenter.streamLimit);
      if (this.finished) return;
      this.maybePartial(performance.now());
      this.releaseOld();
    }, (reason, fallback) => {
      this.opts.log.warn(`track ${this.track}: ${reason}`);
      if (fallback) this.opts.onProblem('VAD_FALLBACK', vadFallbackMessage('meeting track', fallback.cause));
    }, opts.reopenVad
      ? { open: opts.reopenVad, audio: (from, to) => this.store.read(from, to) }
      : undefined);
    this.input = new AudioInput({ inputRate: opts.inputRate, label: `track ${opts.track}`, log: opts.log, sink: (pcm, now) => this.append(pcm, now) });
  }

  /** Samples on the track's timeline (16 kHz). */
  get samples(): number {
    return this.placed;
  }

  /** Samples of the track's audio on disk (all it placed when it is not journaled); final after finish(), or once its WAV failed. */
  get keptSamples(): number {
    return this.opts.wav ? this.opts.wav.durableSamples : this.placed;
  }

  /** Rate of the frames pushed. */
  get inputRate(): number {
    return this.opts.inputRate;
  }

  /** Input-rate samples placed so far from the current sender (its next startSample when nothing was lost). */
  get receivedSamples(): number {
    return this.input.receivedFromSender;
  }

  /**
   * Silence for the time the sender was gone (mic-gap.ts), counted apart from samples lost in transit; the
   * sender that comes back numbers its frames from 0 (restartStream).
   */
  padSilence(inputSamples: number): void {
    if (this.finished || inputSamples <= 0) return;
    this.input.padSilence(inputSamples, performance.now());
  }

  /** A new sender (the page reloaded): its startSample 0 is the track's current input position. */
  restartStream(): void {
    this.input.restartSender();
  }

  /** RMS of the last frame, 0–1. */
  get level(): number {
    return this.lastLevel;
  }

  /** Bytes this track holds in memory: open-segment audio, segments waiting for the engine, the WAV's pending samples. */
  get memoryBytes(): number {
    return this.store.memoryBytes + this.queuedSamples * 4 + (this.opts.wav?.pendingMemoryBytes ?? 0);
  }

  /** Final lags so far (ms), in emission order (bounded: the last 100 000). */
  get finalLags(): readonly number[] {
    return this.lags;
  }

  /**
   * One frame. `startSample` (input rate): where the sender says it starts; a gap is filled with silence
   * (bounded) and counted, a repeat is dropped and counted, so every sample keeps its time.
   */
  push(frame: Float32Array, startSample?: number): void {
    if (this.finished) return;
    this.input.push(frame, startSample, performance.now());
  }

  /** A decode of [start, end) of a segment: the vocabulary buys nothing where the VAD heard no speech (as dictation's). */
  private decodeOptions(start: number, onset: number, speechEnd: number | null, end: number): EngineTranscribeOptions {
    return {
      sampleRate: TRACK_RATE, decoder: this.opts.decoder,
      ...onsetFade(this.segmenter.usesExternalDetector, start, onset),
      ...guardedVocabulary(this.opts.vocabulary ?? [], () => segmentNonSpeech(start, onset, speechEnd, end, TRACK_RATE)),
    };
  }

  private append(pcm: Float32Array, now: number): void {
    this.store.append(pcm);
    this.placed += pcm.length;
    this.opts.wav?.append(pcm);
    this.opts.onAudio?.(pcm);
    this.arrivals.push({ end: this.store.length, at: now });
    if (this.arrivals.length > 512) this.arrivals = this.arrivals.slice(-256);
    let sum = 0;
    for (let i = 0; i < pcm.length; i += 1) sum += pcm[i]! * pcm[i]!;
    this.lastLevel = Math.min(1, Math.sqrt(sum / pcm.length));
    for (const event of this.segmenter.push(pcm)) this.onSegment(event);
    // Only what the VAD decided (Silero's verdicts lag the audio), and during a pause only up to where a
    // pause-close would cut: a stream never hears past its segment's end.
    this.feedStream(this.segmenter.streamLimit);
    this.vadFeed.push(pcm);
    this.maybePartial(now);
    this.releaseOld();
  }

  /**
   * What no segment can need any more: before the open one, or — between segments — all but the pre-roll a
   * next one may take and a second for its onset to be confirmed, counted from the last decided sample, and
   * never where the segmenter says one may still start (Silero's speech pad may exceed the pre-roll, its
   * onset be older than the decided sample less that second).
   */
  private releaseOld(): void {
    const preRoll = Math.round((TRACK_RATE * this.opts.segmenter.preRollMs) / 1000);
    this.store.release(Math.max(0, this.openStart ?? Math.min(this.segmenter.earliestStart, this.segmenter.decidedSamples - preRoll - TRACK_RATE)));
  }

  private arrivalOf(sample: number): number {
    for (const a of this.arrivals) if (a.end >= sample) return a.at;
    return performance.now();
  }

  /** The open segment's stream hears the audio up to `end` (in order, each sample once). */
  private feedStream(end: number): void {
    if (!this.openStream || end <= this.fedTo) return;
    this.openStream.feed(this.store.read(this.fedTo, end));
    this.fedTo = end;
    // A length-cap cut before it would leave the audio between in this stream and the next one's.
    this.segmenter.heardUpTo(end);
  }

  private startStream(start: number, onset: number): void {
    const stream = this.opts.stream;
    if (!stream) return;
    const segmentId = this.nextSegment;
    this.fedTo = start;
    // The vocabulary boosts the stream's committed tokens; the pre-roll before the onset is non-speech.
    const options = { ...stream.options, ...guardedVocabulary(this.opts.vocabulary ?? [], () => segmentNonSpeech(start, onset, null, onset, TRACK_RATE)) };
    const segmentStream = new SegmentStream(stream.decoder, options, {
      onText: ({ text }) => {
        if (this.openStream !== segmentStream || this.finished) return;
        const shown = text.trim();
        if (shown === '' || shown === this.lastPartialText) return;
        this.lastPartialText = shown;
        this.opts.onPartial?.({ track: this.track, segmentId, startSample: start, text: shown });
      },
      // The model ended the utterance: close the segment where its fed audio ends.
      onUtteranceEnd: () => {
        if (this.openStream !== segmentStream || this.finished) return;
        for (const event of this.segmenter.endUtterance(this.fedTo)) this.onSegment(event);
      },
    });
    this.openStream = segmentStream;
  }

  private onSegment(event: SegmentEvent): void {
    if (event.type === 'open') {
      this.openStart = event.start;
      this.openOnset = event.onset;
      this.lastPartialText = null;
      this.lastPartialAt = Number.NEGATIVE_INFINITY;
      this.startStream(event.start, event.onset);
      return;
    }
    this.openStart = null;
    this.feedStream(event.end);
    const stream = this.openStream;
    this.openStream = null;
    const segment: QueuedSegment = {
      id: this.nextSegment++,
      start: event.start,
      onset: this.openOnset,
      speechEnd: event.speechEnd,
      end: event.end,
      pcm: this.store.read(event.start, event.end),
      arrivedAt: this.arrivalOf(event.end),
      closedAt: performance.now(),
      speechEndAt: Math.min(performance.now(), this.arrivalOf(Math.max(0, event.speechEnd - 1))),
      ending: stream ? stream.end() : null,
    };
    segment.ending?.catch(() => undefined);  // handled in decode(); never an unhandled rejection meanwhile
    if ((this.queuedSamples + segment.pcm.length) / TRACK_RATE > MAX_QUEUED_SEC) {
      this.undecoded += 1;
      this.opts.log.warn(`${this.track}: segment ${segment.id} left undecoded (the engine is ${MAX_QUEUED_SEC} s of audio behind)`);
      // Its stream is ending anyway; the text is dropped with the segment.
      this.opts.onProblem('MEETING_BEHIND', 'The engine cannot keep up with this meeting: some segments are not transcribed live. Their audio is kept.');
      return;
    }
    this.queue.push(segment);
    this.queuedSamples += segment.pcm.length;
    this.decoding ??= this.drain().finally(() => {
      this.decoding = null;
    });
  }

  /**
   * The open segment re-decoded for its text so far: one decode at a time, none while this track's finals
   * wait (they come first), none past MAX_PARTIAL_SEC, and skipped (null) whenever the engine has other work.
   */
  private maybePartial(now: number): void {
    const onPartial = this.opts.onPartial;
    const start = this.openStart;
    if (!onPartial || start === null || this.openStream || this.partialRunning || this.queue.length || this.finished) return;
    if (now - this.lastPartialAt < (this.opts.partialIntervalMs ?? 300) || this.opts.partialsPaused?.()) return;
    const end = this.store.length;
    const length = end - start;
    if (length < (TRACK_RATE * MIN_PARTIAL_MS) / 1000 || length > MAX_PARTIAL_SEC * TRACK_RATE) return;
    const segmentId = this.nextSegment;
    this.lastPartialAt = now;
    this.partialRunning = true;
    this.opts.engine
      .transcribe(this.store.read(start, end), this.decodeOptions(start, this.openOnset, null, end), { priority: 'file', skipIfBusy: true, signal: this.cancel.signal })
      .then(
        (result) => {
          if (result === null) {
            this.lastPartialAt = now - (this.opts.partialIntervalMs ?? 300) + 50; // busy: try again soon
            return;
          }
          // Closed meanwhile: its final decides (a partial never follows its own final).
          if (this.openStart !== start || this.nextSegment !== segmentId || this.finished) return;
          const text = result.text.trim();
          if (text === this.lastPartialText || (this.lastPartialText === null && text === '')) return;
          this.lastPartialText = text;
          onPartial({ track: this.track, segmentId, startSample: start, text });
        },
        (error: unknown) => {
          if (codeOf(error) !== 'ABORTED') this.opts.log.debug(`${this.track}: partial decode failed: ${(error as Error).message}`);
        },
      )
      .finally(() => {
        this.partialRunning = false;
      });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const segment = this.queue[0]!;
      const result = await this.decode(segment);
      this.queue.shift();
      this.queuedSamples -= segment.pcm.length;
      if (this.cancel.signal.aborted) return;
      const offset = segment.start / TRACK_RATE;
      const now = performance.now();
      const lagMs = now - segment.arrivedAt;
      keepLast(this.lags, lagMs);
      keepLast(this.closeLags, now - segment.closedAt);
      keepLast(this.speechEndLags, now - segment.speechEndAt);
      // The confidence floor (a silence guard, off by default), as for files and dictation.
      const kept = keepConfidentTranscript({ text: result?.text.trim() ?? '', words: result?.words ?? [] }, this.opts.minWordConfidence ?? 0);
      const dropped = (result?.words.length ?? 0) - kept.words.length;
      if (dropped > 0) this.opts.engine.noteSilenceGuards?.({ wordsDropped: dropped });
      this.opts.onFinal({
        track: this.track,
        segmentId: segment.id,
        startSample: segment.start,
        endSample: segment.end,
        text: kept.text,
        words: kept.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })),
        devicesRan: result?.devicesRan ?? [],
        lagMs,
        ...(result?.phrasesFired?.length ? { phrasesFired: [...result.phrasesFired] } : {}),
      });
    }
  }

  private async decode(segment: QueuedSegment): Promise<{ text: string; words: Word[]; devicesRan: string[]; phrasesFired?: string[] } | null> {
    if (segment.ending) {
      try {
        const { text, words, phrasesFired } = await segment.ending;
        return { text, words, devicesRan: [], phrasesFired };
      } catch (error) {
        if (this.cancel.signal.aborted) return null;
        this.opts.log.warn(`${this.track}: segment ${segment.id}'s stream failed (${(error as Error).message}); decoding it offline`);
      }
    }
    for (let attempt = 1; ; attempt += 1) {
      if (this.cancel.signal.aborted) return null;
      try {
        return await this.opts.engine.transcribe(
          segment.pcm,
          this.decodeOptions(segment.start, segment.onset, segment.speechEnd, segment.end),
          { priority: 'file', signal: this.cancel.signal },
        );
      } catch (error) {
        if (this.cancel.signal.aborted) return null;
        const code = codeOf(error);
        if (RETRYABLE.has(code) && attempt < 4) {
          await new Promise((r) => setTimeout(r, 300 * attempt));
          continue;
        }
        this.opts.log.error(`${this.track}: segment ${segment.id} could not be transcribed`, error);
        this.opts.onProblem(code, `A segment of the meeting could not be transcribed (${(error as Error).message}); its audio is kept.`);
        return null;
      }
    }
  }

  /** The end: the resampler's tail and the open segment are closed, every segment decoded, the WAV closed. */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.input.flush(performance.now());
    this.finished = true;
    await this.vadFeed.drained();
    this.vadFeed.close();
    for (const event of this.segmenter.finish()) this.onSegment(event);
    if (this.segmenter.unconfirmedOnsets > 0) this.opts.engine.noteSilenceGuards?.({ unconfirmed: this.segmenter.unconfirmedOnsets });
    while (this.decoding) await this.decoding;
    await this.opts.wav?.close();
    this.store.clear();
  }

  /** Ends now (the entry was deleted, shutdown): decodes are abandoned, the WAV closed. */
  async abort(): Promise<void> {
    this.finished = true;
    this.vadFeed.close();
    this.cancel.abort();
    this.openStream?.close();
    this.queue.length = 0;
    this.queuedSamples = 0;
    await this.decoding?.catch(() => undefined);
    await this.opts.wav?.close();
    this.store.clear();
  }

  report(): MeetingTrackReport {
    return {
      track: this.track,
      samples: this.placed,
      samplesMissing: this.input.stats.samplesMissing,
      samplesRepeated: this.input.stats.samplesRepeated,
      journalDropped: this.opts.wav?.droppedSamples ?? 0,
      samplesInterrupted: this.input.stats.samplesInterrupted,
      segments: this.nextSegment - this.undecoded,
      finalLagMs: lagStats(this.lags),
      closeToFinalMs: lagStats(this.closeLags),
      speechEndToFinalMs: lagStats(this.speechEndLags),
    };
  }

  /** True while a segment is open (speech going on). */
  get speaking(): boolean {
    return this.openStart !== null;
  }
}
