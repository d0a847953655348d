// The one audio input pipeline: frames as a sender numbers them (any rate) in, a 16 kHz timeline out, with
// exact sample accounting. A dictation (sessions/session.ts) and each meeting track (meeting/meeting-track.ts)
// take their audio through it, so both follow the same rules, defined here once:
//  - a frame that starts past the input position: the missing samples are counted and filled with silence,
//    as much as gapFillSamples() allows, so every later sample keeps its time;
//  - a frame that starts before it: the samples received twice are counted and dropped;
//  - NaN or ±Infinity on the input frame become 0 *before* the resampler (scrubNonFinite): inside the filter one
//    such sample would spread to its neighbours and stay in the filter's history; they are counted, logged once;
//  - the resampler's tail comes out at flush().
// What happens to the 16 kHz audio (store, segmenter, WAV) is the owner's: it gets each piece through `sink`.
import { StreamingResampler } from '../../shared/resample.js';
import type { Logger } from '../log.js';

/** The rate of the timeline every session and track works at. */
export const TIMELINE_RATE = 16_000;

/** Longest run of missing samples filled with silence (s); past it the rest of the gap is counted, not filled. */
export const MAX_GAP_FILL_SEC = 30;

/**
 * Slack of the wall-time bounds on gap fill (s). Samples lost on the way were captured in real time, so a gap can
 * be no longer than the time since the previous frame, and all gaps together no longer than the input's wall
 * time; frames arrive in bursts (timers, a busy event loop), hence the slack. Without these bounds a sender
 * claiming far-ahead sample numbers makes the server store hours of silence.
 */
export const GAP_FILL_SLACK_SEC = 2;

/** Wall times a gap-fill decision depends on (performance.now() milliseconds). */
export interface GapClock {
  now: number;
  /** Arrival of the frame before this one. */
  previousFrameAt: number;
  /** Arrival of the input's first frame. */
  firstFrameAt: number;
}

/**
 * How many of `missing` samples (at `rate`) are filled with silence: at most MAX_GAP_FILL_SEC (or `maxSec`),
 * at most the wall time since the previous frame, and — with `alreadyFilled` — at most the input's wall time
 * in all, each time bound with GAP_FILL_SLACK_SEC of slack.
 */
export function gapFillSamples(missing: number, rate: number, clock: GapClock, alreadyFilled: number, maxSec = MAX_GAP_FILL_SEC): number {
  const perGapSec = Math.min(maxSec, (clock.now - clock.previousFrameAt) / 1000 + GAP_FILL_SLACK_SEC);
  const totalSec = (clock.now - clock.firstFrameAt) / 1000 + GAP_FILL_SLACK_SEC - alreadyFilled / rate;
  return Math.max(0, Math.min(missing, Math.floor(rate * Math.min(perGapSec, totalSec))));
}

/** The frame with NaN and ±Infinity replaced by 0, and how many were; the caller's frame is never modified. */
export function scrubNonFinite(frame: Float32Array): { samples: Float32Array; nonFinite: number } {
  let first = -1;
  for (let i = 0; i < frame.length; i += 1) {
    if (!Number.isFinite(frame[i]!)) {
      first = i;
      break;
    }
  }
  if (first < 0) return { samples: frame, nonFinite: 0 };
  const clean = frame.slice();
  let nonFinite = 0;
  for (let i = first; i < clean.length; i += 1) {
    if (!Number.isFinite(clean[i]!)) {
      clean[i] = 0;
      nonFinite += 1;
    }
  }
  return { samples: clean, nonFinite };
}

export interface AudioInputOptions {
  /** Rate of the frames pushed. */
  inputRate: number;
  /** Names the input in log lines ("session s3", "track you"). */
  label: string;
  log: Logger;
  /** Longest gap filled with silence (s; default MAX_GAP_FILL_SEC). */
  maxGapFillSec?: number;
  /** Each piece of 16 kHz audio, finite, in timeline order; `now` is the arrival of the frame it came from. */
  sink: (pcm: Float32Array, now: number) => void;
}

/** Counts an input keeps (input-rate samples). */
export interface AudioInputCounts {
  framesReceived: number;
  samplesReceived: number;
  /** Missing before a frame, as the sender numbered them (filled or not). */
  samplesMissing: number;
  /** Of the missing samples, those filled with silence. */
  samplesFilled: number;
  /** Received twice and dropped. */
  samplesRepeated: number;
  /** Silence put in for time the sender was gone (padSilence), apart from losses in transit. */
  samplesInterrupted: number;
  nonFiniteSamples: number;
}

export class AudioInput {
  private readonly resampler: StreamingResampler | null;
  /** Input-rate samples placed on the timeline (received + filled + padded − dropped). */
  private inputPosition = 0;
  /** Input position where the current sender's numbering starts (a page that reloaded sends from 0 again). */
  private streamOrigin = 0;
  private firstFrameAt: number | null = null;
  private lastFrameAt: number | null = null;
  private readonly counts: AudioInputCounts = {
    framesReceived: 0, samplesReceived: 0, samplesMissing: 0, samplesFilled: 0, samplesRepeated: 0, samplesInterrupted: 0, nonFiniteSamples: 0,
  };

  constructor(private readonly opts: AudioInputOptions) {
    this.resampler = opts.inputRate === TIMELINE_RATE ? null : new StreamingResampler(opts.inputRate, TIMELINE_RATE);
  }

  /** Input-rate samples placed on the timeline so far. */
  get position(): number {
    return this.inputPosition;
  }

  /** Input-rate samples placed from the current sender (its next startSample when nothing was lost). */
  get receivedFromSender(): number {
    return this.inputPosition - this.streamOrigin;
  }

  /** Arrival of the first frame (performance.now() ms), or null before it. */
  get firstArrival(): number | null {
    return this.firstFrameAt;
  }

  get stats(): Readonly<AudioInputCounts> {
    return this.counts;
  }

  /**
   * One frame arrived at `now`. `startSample` (input rate, in the current sender's numbering): where the sender
   * says it starts; absent, it follows the previous one.
   */
  push(frame: Float32Array, startSample: number | undefined, now: number): void {
    this.firstFrameAt ??= now;
    const previousFrameAt = this.lastFrameAt ?? now;
    this.lastFrameAt = now;
    this.counts.framesReceived += 1;
    this.counts.samplesReceived += frame.length;
    let samples = frame;
    const start = startSample === undefined ? this.inputPosition : startSample + this.streamOrigin;
    if (start > this.inputPosition) {
      const missing = start - this.inputPosition;
      const fill = gapFillSamples(missing, this.opts.inputRate, { now, previousFrameAt, firstFrameAt: this.firstFrameAt }, this.counts.samplesFilled, this.opts.maxGapFillSec);
      this.counts.samplesMissing += missing;
      this.counts.samplesFilled += fill;
      this.opts.log.warn(`${this.opts.label}: ${missing} samples missing before sample ${start - this.streamOrigin} (${fill} filled with silence)`);
      this.place(new Float32Array(fill), now);
      this.inputPosition = start;
    } else if (start < this.inputPosition) {
      const repeated = Math.min(this.inputPosition - start, frame.length);
      this.counts.samplesRepeated += repeated;
      this.opts.log.warn(`${this.opts.label}: ${repeated} samples received twice at sample ${start - this.streamOrigin}`);
      samples = frame.subarray(repeated);
    }
    const { samples: finite, nonFinite } = scrubNonFinite(samples);
    if (nonFinite > 0) {
      if (this.counts.nonFiniteSamples === 0) {
        this.opts.log.warn(`${this.opts.label}: non-finite samples (NaN or infinity) received; replaced by silence and counted (logged once)`);
      }
      this.counts.nonFiniteSamples += nonFinite;
    }
    this.place(finite, now);
  }

  /**
   * Silence for the time the sender was gone (meeting/mic-gap.ts), counted apart from samples lost in transit;
   * in pieces of a second at most, so what follows sees ordinary frames.
   */
  padSilence(inputSamples: number, now: number): void {
    if (inputSamples <= 0) return;
    this.counts.samplesInterrupted += inputSamples;
    for (let left = inputSamples; left > 0; left -= this.opts.inputRate) this.place(new Float32Array(Math.min(left, this.opts.inputRate)), now);
  }

  /** A new sender (a page reloaded): its startSample 0 is the current input position. */
  restartSender(): void {
    this.streamOrigin = this.inputPosition;
  }

  /** The end of the input: the resampler's tail goes to the sink. */
  flush(now: number): void {
    if (this.resampler) this.emit(this.resampler.flush(), now);
  }

  private place(samples: Float32Array, now: number): void {
    if (samples.length === 0) return;
    this.inputPosition += samples.length;
    this.emit(this.resampler ? this.resampler.process(samples) : samples, now);
  }

  private emit(pcm: Float32Array, now: number): void {
    if (pcm.length > 0) this.opts.sink(pcm, now);
  }
}
