// A window's transcript moved into the whole file's timeline: what a file job (engine-core.ts) and the CLI's
// speech-only transcription (app/cli/speech-only.ts) do to each window they decode alone.
import type { EngineTranscript } from './protocol.js';

/** A window's transcript in the whole file's time: its words and tokens (and their frames) moved by `offset` seconds; the caller names the window. */
export function offsetTranscript(t: EngineTranscript, offset: number, frameSec: number): EngineTranscript {
  if (offset === 0) return t;
  const frames = Math.round(offset / frameSec);
  return {
    ...t,
    words: t.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })),
    tokens: t.tokens.map((k) => ({ ...k, frame: k.frame + frames, start: k.start + offset, end: k.end + offset })),
  };
}
