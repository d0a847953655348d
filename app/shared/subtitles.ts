// Transcript exports with timestamps: plain text, SRT, WebVTT, JSON.
// Pure TypeScript, shared by the CLI and the renderer.

export interface TimedWord {
  text: string;
  start: number;
  end: number;
  confidence?: number;
}

export interface Cue {
  start: number;
  end: number;
  text: string;
}

/** Groups words into subtitle cues: at most `maxChars` per cue, `maxSeconds` long, split at pauses ≥ `pauseSec`. */
export function wordsToCues(words: readonly TimedWord[], maxChars = 84, maxSeconds = 6, pauseSec = 0.8): Cue[] {
  const cues: Cue[] = [];
  let current: Cue | null = null;
  let last: TimedWord | null = null;
  for (const word of words) {
    const startsNew =
      current === null ||
      (last !== null && word.start - last.end >= pauseSec) ||
      current.text.length + 1 + word.text.length > maxChars ||
      word.end - current.start > maxSeconds ||
      /[.?!]$/.test(current.text);
    if (startsNew) {
      if (current) cues.push(current);
      current = { start: word.start, end: word.end, text: word.text };
    } else if (current) {
      current.text += ` ${word.text}`;
      current.end = Math.max(current.end, word.end);
    }
    last = word;
  }
  if (current) cues.push(current);
  return cues;
}

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3600000);
  const m = Math.floor((ms % 3600000) / 60000);
  const s = Math.floor((ms % 60000) / 1000);
  const rest = ms % 1000;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(rest, 3)}`;
}

export function toSrt(words: readonly TimedWord[]): string {
  return wordsToCues(words)
    .map((cue, i) => `${i + 1}\n${clock(cue.start, ',')} --> ${clock(cue.end, ',')}\n${cue.text}\n`)
    .join('\n');
}

export function toVtt(words: readonly TimedWord[]): string {
  const body = wordsToCues(words)
    .map((cue) => `${clock(cue.start, '.')} --> ${clock(cue.end, '.')}\n${cue.text}\n`)
    .join('\n');
  return `WEBVTT\n\n${body}`;
}

export type ExportFormat = 'txt' | 'srt' | 'vtt' | 'json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['txt', 'srt', 'vtt', 'json'];

export function exportTranscript(format: ExportFormat, text: string, words: readonly TimedWord[]): string {
  switch (format) {
    case 'txt':
      return `${text}\n`;
    case 'srt':
      return toSrt(words);
    case 'vtt':
      return toVtt(words);
    case 'json':
      return `${JSON.stringify({ text, words }, null, 2)}\n`;
  }
}
