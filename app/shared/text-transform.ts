// Dictation text options applied to each final (and partial) before it is
// shown, inserted and recorded: the user's replacement list, then spoken
// punctuation and line-break commands ("comma", "new paragraph"). Pure and
// dependency-free: main applies it, the Settings view lists SPOKEN_COMMANDS.
//
// Works on the engine's words, so the timestamps stay true: a kept word keeps
// its times; a spoken command word is removed (its mark is glued to the word
// before or after it, which keeps its own times); a replacement with as many
// words as it matched maps them one to one, otherwise its words share the
// matched span evenly. Line breaks are in the text only, never words.

export interface Replacement {
  /** Spoken words to match, whole words, case-insensitive ("parakeet desktop"). */
  from: string;
  /** What is written instead ("Parakeet Desktop"); may be empty (drops the words, e.g. fillers). */
  to: string;
}

export interface TextTransformSettings {
  spokenPunctuation: boolean;
  replacements: readonly Replacement[];
}

export interface TimedWord {
  text: string;
  start: number;
  end: number;
  confidence: number;
}

/** How a spoken command's output joins the words around it. */
export type Attach = 'previous' | 'next' | 'break';

export interface SpokenCommand {
  /** What is said (lower case, words separated by one space). */
  phrase: string;
  /** What is written. */
  output: string;
  attach: Attach;
  /** The next word starts a sentence (capitalized). */
  capitalizeNext?: boolean;
}

/** English commands; the Settings view shows this list. Longer phrases win over their prefixes. */
export const SPOKEN_COMMANDS: readonly SpokenCommand[] = [
  { phrase: 'comma', output: ',', attach: 'previous' },
  { phrase: 'period', output: '.', attach: 'previous', capitalizeNext: true },
  { phrase: 'full stop', output: '.', attach: 'previous', capitalizeNext: true },
  { phrase: 'question mark', output: '?', attach: 'previous', capitalizeNext: true },
  { phrase: 'exclamation mark', output: '!', attach: 'previous', capitalizeNext: true },
  { phrase: 'exclamation point', output: '!', attach: 'previous', capitalizeNext: true },
  { phrase: 'colon', output: ':', attach: 'previous' },
  { phrase: 'semicolon', output: ';', attach: 'previous' },
  { phrase: 'ellipsis', output: '…', attach: 'previous' },
  { phrase: 'open quote', output: '"', attach: 'next' },
  { phrase: 'close quote', output: '"', attach: 'previous' },
  { phrase: 'end quote', output: '"', attach: 'previous' },
  { phrase: 'open parenthesis', output: '(', attach: 'next' },
  { phrase: 'close parenthesis', output: ')', attach: 'previous' },
  { phrase: 'new line', output: '\n', attach: 'break' },
  { phrase: 'new paragraph', output: '\n\n', attach: 'break', capitalizeNext: true },
];

/** Limits main's validator and the Settings form share. */
export const REPLACEMENT_LIMITS = { maxEntries: 200, maxFromChars: 100, maxToChars: 200, maxFromWords: 8 } as const;

/** Punctuation at a word's edges (the engine glues marks to words: "desktop," "(hello"). */
const EDGE_LEAD = /^[\p{P}\p{S}]+/u;
const EDGE_TRAIL = /[\p{P}\p{S}]+$/u;
/** Marks a command replaces when the model already wrote one ("hello, comma" → "hello,"). */
const TRAILING_MARK = /[.,!?;:]+$/;

/** A word's matching key: lower case, no punctuation at its edges. */
export function wordKey(text: string): string {
  return text.replace(EDGE_LEAD, '').replace(EDGE_TRAIL, '').toLowerCase();
}

function phraseKeys(phrase: string): string[] {
  return phrase.trim().split(/\s+/).map(wordKey).filter(Boolean);
}

/** Why a replacement list is refused, in words (null: valid). Shared by main's validator and the form. */
export function replacementProblem(list: readonly Replacement[]): { index: number; message: string } | null {
  if (list.length > REPLACEMENT_LIMITS.maxEntries) {
    return { index: REPLACEMENT_LIMITS.maxEntries, message: `At most ${REPLACEMENT_LIMITS.maxEntries} replacements.` };
  }
  const seen = new Map<string, number>();
  for (const [index, r] of list.entries()) {
    const n = index + 1;
    if (/[\u0000-\u001f\u007f]/.test(r.from) || /[\u0000-\u001f\u007f]/.test(r.to)) {
      return { index, message: `Replacement ${n}: control characters (tabs, line breaks) are not allowed.` };
    }
    if (r.from.length > REPLACEMENT_LIMITS.maxFromChars) return { index, message: `Replacement ${n}: the spoken words are longer than ${REPLACEMENT_LIMITS.maxFromChars} characters.` };
    if (r.to.length > REPLACEMENT_LIMITS.maxToChars) return { index, message: `Replacement ${n}: the written text is longer than ${REPLACEMENT_LIMITS.maxToChars} characters.` };
    const keys = phraseKeys(r.from);
    if (keys.length === 0) return { index, message: `Replacement ${n}: enter the spoken words to replace (letters or digits).` };
    if (keys.length > REPLACEMENT_LIMITS.maxFromWords) return { index, message: `Replacement ${n}: at most ${REPLACEMENT_LIMITS.maxFromWords} spoken words.` };
    const key = keys.join(' ');
    const earlier = seen.get(key);
    if (earlier !== undefined) return { index, message: `Replacement ${n} repeats replacement ${earlier + 1} ("${key}").` };
    seen.set(key, index);
  }
  return null;
}

interface Token {
  text: string;
  key: string;
  start: number | null;
  end: number | null;
  confidence: number | null;
  /** Written by a replacement: never read as a command. */
  literal: boolean;
}

type Item = { kind: 'word'; token: Token } | { kind: 'mark'; command: SpokenCommand };

interface Rule {
  keys: string[];
  to: string;
}

/** The settings, prepared once (a session compiles them at its start). */
export interface CompiledTransform {
  readonly active: boolean;
  apply(input: { text: string; words: readonly TimedWord[] }): { text: string; words: TimedWord[]; changed: boolean };
}

export function compileTransform(settings: TextTransformSettings): CompiledTransform {
  const rules: Rule[] = settings.replacements
    .map((r) => ({ keys: phraseKeys(r.from), to: r.to.trim() }))
    .filter((r) => r.keys.length > 0)
    .sort((a, b) => b.keys.length - a.keys.length);
  const commands = settings.spokenPunctuation
    ? SPOKEN_COMMANDS.map((c) => ({ keys: phraseKeys(c.phrase), command: c })).sort((a, b) => b.keys.length - a.keys.length)
    : [];
  const active = rules.length > 0 || commands.length > 0;
  // By first word, longest first: each position looks only at the rules that can start there.
  const ruleIndex = byFirstKey(rules);
  const commandIndex = byFirstKey(commands);
  return {
    active,
    apply(input) {
      const identity = { text: input.text, words: input.words.map((w) => ({ ...w })), changed: false };
      if (!active || !input.text.trim()) return identity;
      const timed = wordsMatchText(input.words, input.text);
      let tokens: Token[] = timed
        ? input.words.map((w) => ({ text: w.text, key: wordKey(w.text), start: w.start, end: w.end, confidence: w.confidence, literal: false }))
        : input.text.trim().split(/\s+/).map((t) => ({ text: t, key: wordKey(t), start: null, end: null, confidence: null, literal: false }));
      tokens = applyReplacements(tokens, ruleIndex);
      const items = applyCommands(tokens, commandIndex);
      const out = render(items);
      if (out.text === input.text) return identity;
      // Without per-word times (words that do not spell the text) there is nothing true to attach: no words.
      return { text: out.text, words: timed ? out.words : [], changed: true };
    },
  };
}

/** The engine's text is its words joined by single spaces; anything else means the words cannot be trusted for it. */
function wordsMatchText(words: readonly TimedWord[], text: string): boolean {
  return words.length > 0 && words.map((w) => w.text).join(' ') === text.trim().split(/\s+/).join(' ');
}

function byFirstKey<T extends { keys: string[] }>(list: readonly T[]): Map<string, T[]> {
  const index = new Map<string, T[]>();
  for (const item of list) {
    const bucket = index.get(item.keys[0]!) ?? [];
    bucket.push(item);
    index.set(item.keys[0]!, bucket);
  }
  return index;
}

function matchesAt(tokens: readonly Token[], i: number, keys: readonly string[]): boolean {
  if (i + keys.length > tokens.length) return false;
  for (let k = 0; k < keys.length; k += 1) {
    const t = tokens[i + k]!;
    if (t.literal || t.key !== keys[k]) return false;
  }
  return true;
}

function applyReplacements(tokens: Token[], rules: ReadonlyMap<string, Rule[]>): Token[] {
  if (rules.size === 0) return tokens;
  const out: Token[] = [];
  let i = 0;
  while (i < tokens.length) {
    const rule = rules.get(tokens[i]!.key)?.find((r) => matchesAt(tokens, i, r.keys));
    if (!rule) {
      out.push(tokens[i]!);
      i += 1;
      continue;
    }
    const span = tokens.slice(i, i + rule.keys.length);
    i += rule.keys.length;
    // The marks the model glued around the matched words stay ("parakeet desktop," → "Parakeet Desktop,").
    const lead = EDGE_LEAD.exec(span[0]!.text)?.[0] ?? '';
    const trail = EDGE_TRAIL.exec(span[span.length - 1]!.text)?.[0] ?? '';
    const parts = rule.to ? rule.to.split(/\s+/) : [];
    if (parts.length === 0) {
      // Dropped words: a mark they carried attaches to the word before (kept, not lost).
      if (trail && out.length) out[out.length - 1] = { ...out[out.length - 1]!, text: out[out.length - 1]!.text + trail };
      continue;
    }
    parts[0] = lead + parts[0]!;
    parts[parts.length - 1] = parts[parts.length - 1]! + trail;
    out.push(...spread(span, parts));
  }
  return out;
}

/** The replacement's words over the matched span: one to one when the counts agree, else evenly shared. */
function spread(span: readonly Token[], parts: readonly string[]): Token[] {
  const confidences = span.map((t) => t.confidence).filter((c): c is number => c !== null);
  const confidence = confidences.length ? Math.min(...confidences) : null;
  if (parts.length === span.length) {
    return parts.map((text, k) => ({ ...span[k]!, text, key: wordKey(text), literal: true }));
  }
  const start = span[0]!.start;
  const end = span[span.length - 1]!.end;
  return parts.map((text, k) => {
    const times = start !== null && end !== null
      ? { start: start + ((end - start) * k) / parts.length, end: start + ((end - start) * (k + 1)) / parts.length }
      : { start: null, end: null };
    return { text, key: wordKey(text), ...times, confidence, literal: true };
  });
}

function applyCommands(tokens: readonly Token[], commands: ReadonlyMap<string, { keys: string[]; command: SpokenCommand }[]>): Item[] {
  const items: Item[] = [];
  let i = 0;
  while (i < tokens.length) {
    const hit = commands.get(tokens[i]!.key)?.find((c) => matchesAt(tokens, i, c.keys));
    if (hit) {
      items.push({ kind: 'mark', command: hit.command });
      i += hit.keys.length;
    } else {
      items.push({ kind: 'word', token: tokens[i]! });
      i += 1;
    }
  }
  return items;
}

function capitalize(text: string): string {
  const m = /^([^\p{L}\p{N}]*)(\p{L})/u.exec(text);
  return m ? m[1]! + m[2]!.toUpperCase() + text.slice(m[0].length) : text;
}

function render(items: readonly Item[]): { text: string; words: TimedWord[] } {
  // Pieces in order; a break is its own piece, joined without spaces.
  const pieces: ({ kind: 'word'; token: Token } | { kind: 'break'; text: string } | { kind: 'loose'; text: string })[] = [];
  let pendingPrefix = '';
  let capitalizeNext = false;
  const lastWord = (): { kind: 'word'; token: Token } | { kind: 'loose'; text: string } | null => {
    const last = pieces[pieces.length - 1];
    return last && last.kind !== 'break' ? last : null;
  };
  for (const item of items) {
    if (item.kind === 'word') {
      let text = pendingPrefix + item.token.text;
      if (capitalizeNext) text = capitalize(text);
      pendingPrefix = '';
      capitalizeNext = false;
      if (text) pieces.push({ kind: 'word', token: { ...item.token, text } });
      continue;
    }
    const c = item.command;
    if (c.attach === 'next') {
      pendingPrefix += c.output;
    } else if (c.attach === 'break') {
      if (pendingPrefix) pieces.push({ kind: 'loose', text: pendingPrefix });
      pendingPrefix = '';
      pieces.push({ kind: 'break', text: c.output });
    } else {
      const prev = lastWord();
      if (prev?.kind === 'word') {
        // The model may have written a mark already ("hello, comma"): the spoken one replaces it.
        const base = c.output === '"' || c.output === ')' ? prev.token.text : prev.token.text.replace(TRAILING_MARK, '');
        prev.token = { ...prev.token, text: base + c.output };
      } else if (prev?.kind === 'loose') {
        prev.text += c.output;
      } else {
        pieces.push({ kind: 'loose', text: pendingPrefix + c.output });
        pendingPrefix = '';
      }
    }
    if (c.capitalizeNext) capitalizeNext = true;
  }
  if (pendingPrefix) pieces.push({ kind: 'loose', text: pendingPrefix });

  let text = '';
  let afterBreak = true;
  for (const p of pieces) {
    if (p.kind === 'break') {
      text = text.replace(/ +$/, '') + p.text;
      afterBreak = true;
      continue;
    }
    const piece = p.kind === 'word' ? p.token.text : p.text;
    text += (afterBreak ? '' : ' ') + piece;
    afterBreak = false;
  }
  const words: TimedWord[] = [];
  for (const p of pieces) {
    if (p.kind !== 'word' || p.token.start === null || p.token.end === null) continue;
    words.push({ text: p.token.text, start: p.token.start, end: p.token.end, confidence: p.token.confidence ?? 1 });
  }
  return { text, words };
}

/**
 * The separator between two consecutive finals of one dictation: a space, except where the next one starts
 * with a mark that belongs to the previous word (a segment that began with "comma") or either side is a line break.
 */
export function segmentSeparator(previous: string, next: string): string {
  if (!previous || !next) return '';
  if (/\n$/.test(previous) || /^\n/.test(next)) return '';
  if (/^[,.;:!?…)]/.test(next)) return '';
  return ' ';
}

/** A dictation's text from its finals, joined as they were inserted (segmentSeparator). */
export function joinSegments(texts: readonly string[]): string {
  let out = '';
  for (const raw of texts) {
    const text = raw.replace(/^ +| +$/g, '');
    if (!text) continue;
    out += segmentSeparator(out, text) + text;
  }
  return out;
}
