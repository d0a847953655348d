// Pure parts of the live-dictation WER bench (wer-live.ts): the settings a
// sweep runs, where each final of a session falls among the spoken strings,
// and how two runs' finals compare. No engine, no clock: unit-tested in
// test/unit/shared/wer-live-plan.test.ts.
import type { DictationSettings } from '../../app/ipc/contract.js';

/** The dictation settings a sweep varies. */
export type SweepAxis = 'vadThresholdDb' | 'pauseMs' | 'partialIntervalMs';

/** Which audio a run streams: the strings with pauses of digital silence, or with a noise floor over all of it. */
export type LiveAudio = 'clean' | 'floor';

export interface LiveRun {
  /** What differs from the base, in words ("VAD threshold 16 dB"); the base says "base". */
  label: string;
  axis: SweepAxis | null;
  settings: DictationSettings;
  audio: LiveAudio;
  /** Audio streamed at this many times real time. */
  speed: number;
}

export interface SweepPlan {
  base: DictationSettings;
  /** Values per axis; a value equal to the base's is the base run itself, not run twice. */
  axes: Partial<Record<SweepAxis, readonly number[]>>;
  /** The audio each axis runs on (the VAD threshold only matters over a noise floor); default clean. */
  audioOf?: Partial<Record<SweepAxis, LiveAudio>>;
  /** Speed per axis (partial cadence is wall-clock time, so that axis runs at real time); default `speed`. */
  speedOf?: Partial<Record<SweepAxis, number>>;
  speed: number;
}

const AXIS_WORDS: Record<SweepAxis, (v: number) => string> = {
  vadThresholdDb: (v) => `VAD threshold ${v} dB`,
  pauseMs: (v) => `pause ${v} ms`,
  partialIntervalMs: (v) => `partials every ${v} ms`,
};

/**
 * One run per axis value, each changing only that setting from the base; per (audio, speed) the base
 * itself is run once (labelled "base") and shared by every axis that lands on it.
 */
export function planSweep(plan: SweepPlan): LiveRun[] {
  const runs: LiveRun[] = [];
  const seen = new Set<string>();
  for (const axis of Object.keys(plan.axes) as SweepAxis[]) {
    const audio = plan.audioOf?.[axis] ?? 'clean';
    const speed = plan.speedOf?.[axis] ?? plan.speed;
    for (const value of plan.axes[axis] ?? []) {
      const isBase = plan.base[axis] === value;
      const settings: DictationSettings = { ...plan.base, [axis]: value };
      const key = JSON.stringify({ settings, audio, speed });
      if (seen.has(key)) continue;
      seen.add(key);
      runs.push({ label: isBase ? 'base' : AXIS_WORDS[axis](value), axis: isBase ? null : axis, settings, audio, speed });
    }
  }
  return runs;
}

/** A final as the session reports it: its text and the samples it covers on the session's timeline. */
export interface FinalCut {
  text: string;
  startSample: number;
  endSample: number;
}

/** A spoken string on the same timeline (seconds). */
export interface SpokenString {
  text: string;
  start: number;
  end: number;
}

export interface FinalsAlignment {
  /** Per spoken string: the text of the finals that fell on it (joined), '' when none did. */
  perString: string[];
  /** Strings whose finals are exactly their words. */
  exact: number;
  /** Finals that cover (a word's worth of) more than one string: the pause between them was not a cut. */
  merged: number;
  /** Strings that more than one non-empty final fell on: a cut inside a string. */
  split: number;
  /** Finals on no string at all (cut from silence only). */
  stray: number;
}

/** Overlap of [a0, a1) and [b0, b1). */
const overlap = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/**
 * Where each final falls: on the string it overlaps most (a final is kept whole, so a merged one's text
 * goes to one string and the other string reads as missed). `minOverlapSec` of a string is needed for a final
 * to count as covering it (a pre-roll or tail reaching into the neighbour does not).
 */
export function alignFinals(finals: readonly FinalCut[], strings: readonly SpokenString[], sampleRate: number, minOverlapSec = 0.15): FinalsAlignment {
  const texts: string[][] = strings.map(() => []);
  let merged = 0;
  let stray = 0;
  for (const f of finals) {
    const a = f.startSample / sampleRate;
    const b = f.endSample / sampleRate;
    const overlaps = strings.map((s) => overlap(a, b, s.start, s.end));
    const covering = overlaps.filter((o) => o >= minOverlapSec).length;
    if (covering > 1) merged += 1;
    let best = -1;
    overlaps.forEach((o, i) => {
      if (o > 0 && (best < 0 || o > overlaps[best]!)) best = i;
    });
    if (best < 0) {
      if (f.text.trim()) stray += 1;
      continue;
    }
    if (f.text.trim()) texts[best]!.push(f.text.trim());
  }
  const perString = texts.map((t) => t.join(' '));
  return {
    perString,
    exact: perString.filter((t, i) => t === strings[i]!.text).length,
    merged,
    split: texts.filter((t) => t.length > 1).length,
    stray,
  };
}

/** How many finals of `b` differ from `a`'s (in cut or text), counting a missing or extra final as different. */
export function finalsDiffer(a: readonly FinalCut[], b: readonly FinalCut[]): number {
  let differ = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.text.trim() !== y.text.trim() || x.startSample !== y.startSample || x.endSample !== y.endSample) differ += 1;
  }
  return differ;
}
