// Transcript exports with timestamps: plain text, SRT, WebVTT, JSON.
// Pure TypeScript, shared by the CLI and the renderer (no Node, no DOM).
//
// Cue rules (common broadcast subtitle practice): a cue holds at most two
// lines of 42 characters and lasts at most 6 s; a pause of 0.6 s or more
// between words starts a new cue; a word is never split. A single word longer
// than a line gets a cue of its own (the only way a line may exceed 42).
// A sentence end (. ? ! …) also ends a cue once it has been up for a second,
// so a new sentence starts on a fresh cue instead of mid-line.

export interface TimedWord {
  text: string;
  start: number;
  end: number;
  confidence?: number;
  /** Who said it (a speaker name, diarized transcripts only): a change of speaker starts a new cue. */
  speaker?: string;
}

export interface Cue {
  start: number;
  end: number;
  /** The cue's words joined by spaces. */
  text: string;
  /** `text` wrapped into at most `maxLines` lines (what SRT/VTT show). */
  lines: string[];
  /** The cue's speaker, when its words have one. */
  speaker?: string;
}

export interface CueRules {
  maxLineChars: number;
  maxLines: number;
  /** A cue never lasts longer than this (s), unless one word alone does. */
  maxSeconds: number;
  /** A silence this long (s) between two words ends the cue. */
  pauseSec: number;
  /** A word ending a sentence ends the cue when the cue has lasted at least this long (s). */
  sentenceMinSec: number;
  /**
   * A cue whose words have no duration (start == end) would never be seen: it is shown this long (s),
   * but never into the next cue nor past `endLimit`.
   */
  minSeconds: number;
}

export const DEFAULT_CUE_RULES: CueRules = { maxLineChars: 42, maxLines: 2, maxSeconds: 6, pauseSec: 0.6, sentenceMinSec: 1, minSeconds: 0.5 };

/** Ends with sentence punctuation, possibly followed by closing quotes or brackets. */
const SENTENCE_END = /[.?!…。？！]["'”’)\]]*$/u;

export interface CueOptions {
  rules?: Partial<CueRules>;
  /** No cue ends after this (s): the audio's duration, when known. */
  endLimit?: number;
}

/** Greedy wrap: the fewest lines of at most `max` characters (a longer word sits alone on its line). */
function wrapGreedy(words: readonly string[], max: number): string[] {
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= max) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** Whether these words make a legal cue: within the line count, no line over the limit unless it is one lone word. */
function fits(words: readonly string[], rules: CueRules): boolean {
  const lines = wrapGreedy(words, rules.maxLineChars);
  if (lines.length > rules.maxLines) return false;
  return words.length === 1 || lines.every((line) => line.length <= rules.maxLineChars);
}

/**
 * The lines a cue shows. Greedy wrapping gives the fewest lines; for two lines the break is moved to where
 * both are closest in length (easier to read than a full line over a stub), as long as each still fits.
 */
export function layoutLines(words: readonly string[], rules: CueRules = DEFAULT_CUE_RULES): string[] {
  const greedy = wrapGreedy(words, rules.maxLineChars);
  if (greedy.length !== 2) return greedy;
  let best = greedy;
  let bestLongest = Math.max(greedy[0].length, greedy[1].length);
  for (let cut = 1; cut < words.length; cut++) {
    const top = words.slice(0, cut).join(' ');
    const bottom = words.slice(cut).join(' ');
    const longest = Math.max(top.length, bottom.length);
    if (longest <= rules.maxLineChars && longest < bestLongest) {
      best = [top, bottom];
      bestLongest = longest;
    }
  }
  return best;
}

/** Groups words into subtitle cues by the rules above. Words are taken in order; empty ones are skipped. */
export function wordsToCues(words: readonly TimedWord[], options: CueOptions = {}): Cue[] {
  const rules: CueRules = { ...DEFAULT_CUE_RULES, ...options.rules };
  const groups: TimedWord[][] = [];
  let current: TimedWord[] = [];
  for (const raw of words) {
    const text = raw.text.trim();
    if (!text) continue;
    const word: TimedWord = { ...raw, text };
    const last = current.at(-1);
    const startsNew =
      last !== undefined &&
      // The tolerance keeps a pause of exactly `pauseSec` a pause despite float subtraction (1.6 − 1.0 …).
      (word.start - last.end >= rules.pauseSec - 1e-9 ||
        word.end - current[0].start > rules.maxSeconds ||
        word.speaker !== last.speaker ||
        (SENTENCE_END.test(last.text) && last.end - current[0].start >= rules.sentenceMinSec) ||
        !fits([...current, word].map((w) => w.text), rules));
    if (startsNew) {
      groups.push(current);
      current = [];
    }
    current.push(word);
  }
  if (current.length) groups.push(current);

  const cues = groups.map((group): Cue => {
    const texts = group.map((w) => w.text);
    // No cue runs past the end of the audio (a last word's end can be a frame past it), and never ends
    // before it starts.
    const limit = options.endLimit ?? Number.POSITIVE_INFINITY;
    const start = Math.min(group[0].start, limit);
    const end = Math.min(limit, Math.max(start, ...group.map((w) => w.end)));
    const speaker = group[0].speaker;
    return { start, end, text: texts.join(' '), lines: layoutLines(texts, rules), ...(speaker === undefined ? {} : { speaker }) };
  });
  // Zero-length cues (every word start == end) get a short display time, up to the next cue or the end.
  cues.forEach((cue, i) => {
    if (cue.end > cue.start) return;
    const next = cues[i + 1]?.start ?? options.endLimit ?? Number.POSITIVE_INFINITY;
    cue.end = Math.max(cue.start, Math.min(cue.start + rules.minSeconds, next));
  });
  return cues;
}

/** `HH:MM:SS<sep>mmm`, rounded to the millisecond (SRT uses ',', WebVTT '.'). */
export function formatClock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3600000);
  const m = Math.floor((ms % 3600000) / 60000);
  const s = Math.floor((ms % 60000) / 1000);
  const rest = ms % 1000;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(rest, 3)}`;
}

/** SubRip has no speaker markup: the name leads the first line ("Ana: …"). */
function srtLines(cue: Cue): string[] {
  return cue.speaker === undefined ? cue.lines : cue.lines.map((line, i) => (i === 0 ? `${cue.speaker}: ${line}` : line));
}

/** WebVTT's voice span: `<v Ana>…` on each line (WebVTT escapes '&', '<' and '>' in the name). */
function vttLines(cue: Cue): string[] {
  if (cue.speaker === undefined) return cue.lines;
  const name = cue.speaker.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return cue.lines.map((line) => `<v ${name}>${line}`);
}

/** Plain text with speakers: one paragraph per turn, "Ana: …". */
function speakerText(words: readonly TimedWord[]): string {
  const turns: { speaker: string; text: string }[] = [];
  for (const w of words) {
    const text = w.text.trim();
    if (!text) continue;
    const last = turns.at(-1);
    if (last && last.speaker === w.speaker) last.text += ` ${text}`;
    else turns.push({ speaker: w.speaker ?? '', text });
  }
  return turns.map((t) => (t.speaker ? `${t.speaker}: ${t.text}` : t.text)).join('\n\n');
}

/** SubRip: numbered cues separated by blank lines; no cues → an empty file. */
export function toSrt(words: readonly TimedWord[], options: CueOptions = {}): string {
  return wordsToCues(words, options)
    .map((cue, i) => `${i + 1}\n${formatClock(cue.start, ',')} --> ${formatClock(cue.end, ',')}\n${srtLines(cue).join('\n')}\n`)
    .join('\n');
}

/** WebVTT: the `WEBVTT` header, then cues; no cues → the header alone. */
export function toVtt(words: readonly TimedWord[], options: CueOptions = {}): string {
  const body = wordsToCues(words, options)
    .map((cue) => `${formatClock(cue.start, '.')} --> ${formatClock(cue.end, '.')}\n${vttLines(cue).join('\n')}\n`)
    .join('\n');
  return `WEBVTT\n\n${body}`;
}

export type ExportFormat = 'txt' | 'srt' | 'vtt' | 'json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['txt', 'srt', 'vtt', 'json'];

/** The file's text in `format`. `durationSec` (when known) keeps every cue inside the audio. */
export function exportTranscript(format: ExportFormat, text: string, words: readonly TimedWord[], durationSec?: number): string {
  const options: CueOptions = durationSec === undefined ? {} : { endLimit: durationSec };
  switch (format) {
    case 'txt':
      return `${words.some((w) => w.speaker !== undefined) ? speakerText(words) : text}\n`;
    case 'srt':
      return toSrt(words, options);
    case 'vtt':
      return toVtt(words, options);
    case 'json':
      return `${JSON.stringify({ text, words }, null, 2)}\n`;
  }
}
