// A window of a file decoded alone, then moved into the whole file's timeline: what a file job (engine-core.ts)
// and the CLI's speech-only transcription (app/cli/speech-only.ts) do to each window they decode.
import type { SampleRange } from '../../native/windows.js';
import type { EngineTranscript } from './protocol.js';

/** The maxWindowSec that decodes `range` as one window: it is never cut again. */
export function oneWindowSec(range: SampleRange, rate: number): number {
  return Math.max(1, (range.end - range.begin) / rate + 1);
}

/** A window's transcript in the whole file's time: its words and tokens (and their frames) moved by its start, the window named. */
export function windowInFile(t: EngineTranscript, range: SampleRange, rate: number, frameSec: number): EngineTranscript {
  const offset = range.begin / rate;
  const frames = Math.round(offset / frameSec);
  return {
    ...t,
    words: t.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })),
    tokens: t.tokens.map((k) => ({ ...k, frame: k.frame + frames, start: k.start + offset, end: k.end + offset })),
    // As the engine reports its windows: sample positions over the rate.
    windows: [{ start: range.begin / rate, end: range.end / rate }],
  };
}
