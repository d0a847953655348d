// Voice-activity segmentation of a 16 kHz stream into speech segments.
// Pure (no engine, no clock), so its cut points are deterministic and
// testable on synthetic signals.
//
// Energy VAD on 20 ms windows against an adaptive noise floor (minimum
// statistics: the lowest smoothed window energy of the last few seconds,
// clamped to a plausible range), with hysteresis. A segment opens after
// `onsetMs` of speech and starts `preRollMs` before the onset (never before
// the previous segment's end, so segments never overlap); it closes after
// `pauseMs` without speech, `tailMs` after the last speech window. A segment
// reaching `maxSegmentSec` is cut at its quietest window and the next one
// continues from exactly there.
//
// With `detector: 'external'` a trained VAD decides instead of the energy threshold: push() only measures
// the windows (for the floor and the cap cut), and decide() takes one speech probability per window, in
// order, as they come back from the engine (Silero: 32 ms windows, windowMs 32). Speech opens at
// `speechThreshold` and holds down to its release level (speechThreshold − 0.15, at least 0.01: silero-vad's
// hysteresis, vad-segments.ts's releaseLevel); a segment opens only once a window of its onset reaches the
// confirm level (vad-segments.ts: noise Silero is unsure of never opens one, so it gets no final) and still
// starts at the onset's first window, less `speechPadMs` (Silero's speech pad), not the pre-roll: the
// pre-roll makes up for the energy threshold's late onsets, Silero's onset is the speech's (bench:vad: no
// first word clipped with 30 ms, and 300 ms of audio in front of the first word cost the digits model words,
// live as in files). With Silero a segment also opens only once its onset has lasted `minSpeechMs` (the
// files' minimum speech, measured as in files: dips shorter than `minSilenceMs` count, they do not restart it)
// and keeps SPEECH_TAIL_MS after its speech, as files do (trainedVadSegmenterOptions). fallBackToEnergy()
// decides the waiting windows and every later one by energy (the VAD stream was lost).

import { DEFAULT_VAD_SEGMENT_OPTIONS, SPEECH_TAIL_MS, confirmLevel, releaseLevel } from '../../shared/vad-segments.js';

export interface SegmenterOptions {
  sampleRate: number;
  pauseMs: number;
  maxSegmentSec: number;
  preRollMs: number;
  /** Speech when a window is this far above the noise floor. */
  thresholdDb: number;
  windowMs?: number;
  onsetMs?: number;
  tailMs?: number;
  /** Seconds of history for the noise floor. */
  floorWindowSec?: number;
  /** The floor never goes below / above these (dBFS): digital silence is not a floor, loud speech is never one. */
  minFloorDb?: number;
  maxFloorDb?: number;
  /** Speech stays speech down to threshold − hysteresis. */
  hysteresisDb?: number;
  /** 'energy' (default): this class decides; 'external': decide() gets a probability per window. */
  detector?: 'energy' | 'external';
  /** External detector: speech at this probability and above (0.5). */
  speechThreshold?: number;
  /** External detector: a segment starts this long before its onset (ms; default preRollMs). */
  speechPadMs?: number;
  /**
   * External detector: a segment opens only once its onset has lasted this long (ms; default onsetMs), from
   * its first window to the end of its last one at or above the release level, dips shorter than minSilenceMs
   * included, as vad-segments.ts measures a file's minimum speech. Shorter speech opens nothing, so it gets
   * no final.
   */
  minSpeechMs?: number;
  /**
   * External detector: an onset ends (its minimum speech counted again from the next speech) only after this
   * long below the release level (ms; default 100, silero-vad's), the silence that ends a file's segment.
   */
  minSilenceMs?: number;
}

/** Silero's chunk at 16 kHz (ms): the segmenter's window when Silero decides. */
export const SILERO_WINDOW_MS = 32;

/** The settings a trained VAD's live cut follows (Settings → Dictation segments). */
export interface TrainedVadSettings {
  vadSpeechThreshold: number;
  vadSpeechPadMs: number;
  vadMinSpeechMs: number;
  vadMinSilenceMs: number;
}

/**
 * The Segmenter options when Silero decides, from the settings: dictation, each meeting track and bench:vad's
 * live rows alike (the files' cut, vad-segments.ts, reads the same settings and keeps the same tail).
 */
export function trainedVadSegmenterOptions(
  d: TrainedVadSettings,
): Pick<SegmenterOptions, 'detector' | 'windowMs' | 'speechThreshold' | 'speechPadMs' | 'minSpeechMs' | 'minSilenceMs' | 'tailMs'> {
  return {
    detector: 'external', windowMs: SILERO_WINDOW_MS, speechThreshold: d.vadSpeechThreshold, speechPadMs: d.vadSpeechPadMs,
    minSpeechMs: d.vadMinSpeechMs, minSilenceMs: d.vadMinSilenceMs, tailMs: SPEECH_TAIL_MS,
  };
}

/**
 * An unconfirmed onset older than this moves forward: the session keeps about a second of audio before a
 * segment. A confirmed one does not (earliestStart keeps its audio while the minimum speech is counted).
 */
const MAX_UNCONFIRMED_SEC = 1;

/** Why a segment closed: a pause, the length cap, the end of the session, or the model's end of utterance (<EOU>). */
export type CloseReason = 'pause' | 'cap' | 'stop' | 'eou';

export type SegmentEvent =
  /** `onset`: first sample of the speech that opened it (after a cap cut: the cut itself). */
  | { type: 'open'; start: number; onset: number }
  /**
   * `speechEnd`: the end of the last voiced window, where the person stopped speaking (`end` adds the tail
   * of silence kept after it). Latency "after end of speech" counts from here, not from the pause decision.
   */
  | { type: 'close'; start: number; end: number; reason: CloseReason; speechEnd: number };

interface WindowStat {
  start: number;
  db: number;
}

export function windowDb(samples: Float32Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += samples[i]! * samples[i]!;
  return 10 * Math.log10(sum / Math.max(1, to - from) + 1e-12);
}

export class Segmenter {
  private readonly win: number;
  private readonly onsetWindows: number;
  /** External detector: samples an onset must span before its segment opens (files compare the same length). */
  private readonly minSpeech: number;
  /** External detector: samples below the release level that end an onset. */
  private readonly minSilence: number;
  private readonly pause: number;
  private readonly cap: number;
  private readonly preRoll: number;
  private readonly speechPad: number;
  private readonly tail: number;
  private readonly floorLen: number;
  /** External detector: the release and confirm levels, and how far back an unconfirmed onset may start (samples). */
  private readonly release: number;
  private readonly confirm: number;
  private readonly maxUnconfirmed: number;
  private readonly opts: Required<SegmenterOptions>;

  private position = 0;
  /** Samples of the current, incomplete window. */
  private pendingWindow: Float32Array;
  private pendingFill = 0;
  /** Smoothed energies for the floor (ring). */
  private readonly history: number[] = [];
  private readonly raw: number[] = [];
  private state: 'silence' | 'onset' | 'speech' = 'silence';
  private onsetCount = 0;
  /** External detector: windows below the release level since the onset's last speech window. */
  private onsetGap = 0;
  private onsetStart = 0;
  /** External detector: the end of the onset's last window at or above the release level. */
  private onsetSpeechEnd = 0;
  /** The onset reached the confirm level (always, for the energy threshold). */
  private onsetConfirmed = false;
  /** Onsets long enough to open a segment that never reached the confirm level: not opened (Devices counts them). */
  unconfirmedOnsets = 0;
  private segStart = 0;
  private lastSpeechEnd = 0;
  private prevEnd = 0;
  /** Windows of the open segment (for the quietest-point cut). */
  private segWindows: WindowStat[] = [];
  private floor = 0;
  /** External detector: measured windows waiting for their probability. */
  private undecided: number[] = [];
  private external: boolean;
  /** A streaming model heard the open segment up to here: a cap cut falls no earlier (heardUpTo). */
  private heard = 0;

  constructor(options: SegmenterOptions) {
    this.opts = {
      windowMs: 20,
      onsetMs: 60,
      tailMs: 200,
      floorWindowSec: 5,
      minFloorDb: -70,
      maxFloorDb: -35,
      hysteresisDb: 3,
      detector: 'energy',
      speechThreshold: 0.5,
      speechPadMs: options.preRollMs,
      minSpeechMs: options.onsetMs ?? 60,
      minSilenceMs: DEFAULT_VAD_SEGMENT_OPTIONS.minSilenceMs,
      ...options,
    };
    this.external = this.opts.detector === 'external';
    const sr = this.opts.sampleRate;
    this.win = Math.round((sr * this.opts.windowMs) / 1000);
    this.onsetWindows = Math.max(1, Math.round(this.opts.onsetMs / this.opts.windowMs));
    // In samples, as vad-segments.ts compares a file's segment (rounding to windows kept 160–191 ms of speech at 170).
    this.minSpeech = Math.max(this.onsetWindows * this.win, (sr * this.opts.minSpeechMs) / 1000);
    this.minSilence = Math.round((sr * this.opts.minSilenceMs) / 1000);
    this.pause = Math.round((sr * this.opts.pauseMs) / 1000);
    this.cap = Math.round(sr * this.opts.maxSegmentSec);
    this.preRoll = Math.round((sr * this.opts.preRollMs) / 1000);
    this.speechPad = Math.round((sr * this.opts.speechPadMs) / 1000);
    this.tail = Math.min(Math.round((sr * this.opts.tailMs) / 1000), this.pause);
    this.floorLen = Math.max(1, Math.round((this.opts.floorWindowSec * 1000) / this.opts.windowMs));
    this.pendingWindow = new Float32Array(this.win);
    this.floor = this.opts.maxFloorDb;
    this.release = releaseLevel(this.opts.speechThreshold);
    this.confirm = confirmLevel(this.opts.speechThreshold);
    this.maxUnconfirmed = Math.round(sr * MAX_UNCONFIRMED_SEC);
  }


  /** Samples consumed so far (measured, decided or not). */
  get samples(): number {
    return this.position + (this.undecided.length * this.win) + this.pendingFill;
  }

  /** Samples decided so far (an external detector's verdicts lag the audio). */
  get decidedSamples(): number {
    return this.position;
  }

  /**
   * The first sample a segment may still need: the open segment's start, else the earliest start one opening
   * later can get — an onset in progress (a trained VAD's may be a second old when it is confirmed, and older
   * while a minimum speech over a second is still being counted after that) or the first undecided window,
   * less the pad in front of it (speechPadMs or the pre-roll: either, after a fallback), never before the last
   * segment's end. Audio before it may be released.
   */
  get earliestStart(): number {
    if (this.state === 'speech') return this.segStart;
    const onset = this.state === 'onset' ? this.onsetStart : this.position;
    return Math.max(0, this.prevEnd, onset - Math.max(this.preRoll, this.speechPad));
  }

  /** Samples per window: an external detector gives one probability per this many samples. */
  get windowSamples(): number {
    return this.win;
  }

  /**
   * Where the open segment will end if the silence now running lasts until pauseMs: once the silence
   * is longer than the tail, a pause-close cuts exactly here. Decoding the open segment up to here early
   * therefore yields the final text before the pause is over. null while speech goes on.
   */
  get tentativeEnd(): number | null {
    if (this.state !== 'speech') return null;
    const end = this.lastSpeechEnd + this.tail;
    return this.position >= end ? end : null;
  }

  /**
   * How far the open segment's audio may be fed to a streaming model, which cannot take back what it heard:
   * what is decided (an external detector's verdicts lag the audio: undecided audio may be after a close),
   * and during speech never past where a pause-close would cut (lastSpeechEnd + tail; the tentative end).
   */
  get streamLimit(): number {
    const decided = this.external ? this.position : this.samples;
    return this.state === 'speech' ? Math.min(decided, this.lastSpeechEnd + this.tail) : decided;
  }

  /**
   * A streaming model heard the open segment up to `sample`: a length-cap cut falls no earlier (cut before it,
   * the audio between would be in this segment's stream and again in the next one's: its words in two finals).
   */
  heardUpTo(sample: number): void {
    this.heard = Math.max(this.heard, sample);
  }

  /** With a tentativeEnd: the end of the last voiced window before it (a pause-close's speechEnd). */
  get tentativeSpeechEnd(): number | null {
    return this.tentativeEnd === null ? null : this.lastSpeechEnd;
  }

  /** Feeds samples (in stream order); returns the segment boundaries they produced. */
  push(samples: Float32Array): SegmentEvent[] {
    const events: SegmentEvent[] = [];
    let offset = 0;
    while (offset < samples.length) {
      const n = Math.min(this.win - this.pendingFill, samples.length - offset);
      this.pendingWindow.set(samples.subarray(offset, offset + n), this.pendingFill);
      this.pendingFill += n;
      offset += n;
      if (this.pendingFill === this.win) {
        const db = windowDb(this.pendingWindow, 0, this.win);
        this.pendingFill = 0;
        if (this.external) this.undecided.push(db);
        else this.stepAndAdvance(db, null, events);
      }
    }
    return events;
  }

  /**
   * A streaming model ended the utterance (<EOU>) with the audio up to `at` heard: the open segment closes
   * there (clamped to what was pushed) without waiting for a pause; speech after it opens a new segment.
   */
  endUtterance(at: number): SegmentEvent[] {
    const events: SegmentEvent[] = [];
    // The model heard speech up to where it said the utterance ended.
    if (this.state === 'speech' && at > this.segStart) this.close(at, 'eou', events, at);
    return events;
  }

  /** External detector: the speech probabilities of the next windows pushed (extra ones are ignored). */
  decide(probabilities: ArrayLike<number>): SegmentEvent[] {
    const events: SegmentEvent[] = [];
    for (let i = 0; i < probabilities.length && this.undecided.length > 0; i += 1) {
      const p = probabilities[i]!;
      // Speech holds down to the release level, in an onset as in a segment (vad-segments.ts's rule).
      const threshold = this.state === 'silence' ? this.opts.speechThreshold : this.release;
      this.stepAndAdvance(this.undecided.shift()!, p >= threshold, events, p >= this.confirm);
    }
    return events;
  }

  /** The external detector is gone: waiting and later windows are decided by energy. */
  fallBackToEnergy(): SegmentEvent[] {
    this.external = false;
    const events: SegmentEvent[] = [];
    for (const db of this.undecided.splice(0)) this.stepAndAdvance(db, null, events);
    return events;
  }

  get usesExternalDetector(): boolean {
    return this.external;
  }

  /**
   * The onset has lasted long enough to open a segment: the energy threshold's onset windows of speech; the
   * trained VAD's minimum speech from its first window to the end of its last, short dips included (a file's
   * segment is measured so: live and files keep the same speech).
   */
  private get onsetLongEnough(): boolean {
    return this.external ? this.onsetSpeechEnd - this.onsetStart >= this.minSpeech : this.onsetCount >= this.onsetWindows;
  }

  private stepAndAdvance(db: number, speech: boolean | null, events: SegmentEvent[], sure = true): void {
    this.step(db, speech, events, sure);
    this.position += this.win;
  }

  /** End of stream (stop): whatever is open, or was about to open, is closed at the last sample. */
  finish(): SegmentEvent[] {
    const end = this.samples;
    // Windows whose probability never came (the VAD failed at the very end) are decided by energy.
    const events: SegmentEvent[] = this.undecided.length > 0 ? this.fallBackToEnergy() : [];
    if (this.state === 'onset' && this.onsetConfirmed) this.open(this.onsetStart, events);
    else if (this.state === 'onset' && this.onsetCount >= this.onsetWindows) this.unconfirmedOnsets += 1;
    if (this.state === 'speech' && end > this.segStart) this.close(end, 'stop', events, Math.min(end, this.lastSpeechEnd));
    this.state = 'silence';
    return events;
  }

  private updateFloor(db: number): void {
    this.raw.push(db);
    if (this.raw.length > 3) this.raw.shift();
    // A 3-window mean, so one dip between two syllables does not drag the floor down.
    const smoothed = this.raw.reduce((a, b) => a + b, 0) / this.raw.length;
    this.history.push(smoothed);
    if (this.history.length > this.floorLen) this.history.shift();
    let min = Number.POSITIVE_INFINITY;
    for (const v of this.history) if (v < min) min = v;
    this.floor = Math.min(this.opts.maxFloorDb, Math.max(this.opts.minFloorDb, min));
  }

  /**
   * One window: `decided` is the external detector's verdict, null for the energy threshold's; `sure`: the
   * window reached the confirm level (true for the energy threshold's).
   */
  private step(db: number, decided: boolean | null, events: SegmentEvent[], sure: boolean): void {
    const start = this.position;
    const end = start + this.win;
    const threshold = this.floor + this.opts.thresholdDb - (this.state === 'speech' ? this.opts.hysteresisDb : 0);
    const speech = decided ?? db > threshold;
    this.updateFloor(db);

    switch (this.state) {
      case 'silence':
        if (speech) {
          this.state = 'onset';
          this.onsetCount = 1;
          this.onsetGap = 0;
          this.onsetStart = start;
          this.onsetSpeechEnd = end;
          this.onsetConfirmed = sure;
          if (this.onsetLongEnough && this.onsetConfirmed) this.open(start, events, end);
        }
        break;
      case 'onset':
        if (speech) {
          this.onsetGap = 0;
          this.onsetCount += 1;
          this.onsetSpeechEnd = end;
          // Only while Silero is unsure of the onset (up to the window that confirms it): once confirmed it is
          // the speech's start and stays there while the minimum speech is counted, however long that is.
          if (!this.onsetConfirmed && end - this.onsetStart > this.maxUnconfirmed) this.onsetStart = end - this.maxUnconfirmed;
          this.onsetConfirmed ||= sure;
          if (this.onsetLongEnough && this.onsetConfirmed) this.open(this.onsetStart, events, end);
        } else if (this.external && ++this.onsetGap * this.win < this.minSilence) {
          // A dip shorter than the minimum silence (a stop's closure in "eight", a breath between phrases) does
          // not end the onset: in a file only that much silence ends speech, and ending it on shorter dips (96 ms
          // did) dropped whole phrases live that a file kept, or — an onset Silero was not yet sure of — started
          // the segment at the sure speech after the dip, without the soft words before it. A lone click still
          // opens nothing: its onset ends after the minimum silence, short of the minimum speech and unconfirmed.
        } else {
          if (this.onsetLongEnough) this.unconfirmedOnsets += 1;
          this.state = 'silence';
        }
        break;
      case 'speech':
        break;
    }
    if (this.state !== 'speech') return;

    this.segWindows.push({ start, db });
    if (speech) this.lastSpeechEnd = end;
    if (end - this.lastSpeechEnd >= this.pause) {
      this.close(this.lastSpeechEnd + this.tail, 'pause', events, this.lastSpeechEnd);
      return;
    }
    if (end - this.segStart >= this.cap) this.cutAtCap(end, events);
  }

  private open(onset: number, events: SegmentEvent[], lastSpeechEnd = onset + this.win): void {
    this.state = 'speech';
    this.segStart = Math.max(0, this.prevEnd, onset - (this.external ? this.speechPad : this.preRoll));
    this.lastSpeechEnd = lastSpeechEnd;
    this.segWindows = [];
    events.push({ type: 'open', start: this.segStart, onset });
  }

  private close(end: number, reason: CloseReason, events: SegmentEvent[], speechEnd: number): void {
    const clamped = Math.min(Math.max(end, this.segStart), this.samples);
    events.push({ type: 'close', start: this.segStart, end: clamped, reason, speechEnd: Math.min(Math.max(speechEnd, this.segStart), clamped) });
    this.prevEnd = clamped;
    this.state = 'silence';
    this.segWindows = [];
  }

  private cutAtCap(now: number, events: SegmentEvent[]): void {
    // Silent right now (a pause shorter than pauseMs): end the segment after its speech, open none.
    if (now - this.lastSpeechEnd >= this.win * 2) {
      this.close(this.lastSpeechEnd + Math.min(this.tail, now - this.lastSpeechEnd), 'cap', events, this.lastSpeechEnd);
      return;
    }
    // Mid-speech: cut at the quietest window of the segment's second half (before the current speech), not
    // before what a streaming model already heard of it; none left: at the end of this window.
    const earliest = this.segStart + Math.floor(this.cap / 2);
    const half = Math.floor(this.win / 2);
    let best: WindowStat | null = null;
    for (const w of this.segWindows) {
      if (w.start < earliest || w.start + half < this.heard || w.start + this.win > now - this.win) continue;
      if (!best || w.db < best.db) best = w;
    }
    const cut = best ? best.start + half : now;
    const lastSpeechEnd = this.lastSpeechEnd;
    const carried = this.segWindows.filter((w) => w.start >= cut);
    // Cut mid-speech: the speech goes on past the cut, so its "end" is the cut itself.
    this.close(cut, 'cap', events, cut);
    // The next segment continues from exactly the cut: no gap, no overlap, no pre-roll.
    this.state = 'speech';
    this.segStart = cut;
    this.lastSpeechEnd = Math.max(lastSpeechEnd, cut);
    this.segWindows = carried;
    events.push({ type: 'open', start: cut, onset: cut });
  }
}
