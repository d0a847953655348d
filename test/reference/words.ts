// Word timestamps and confidence, spec §4.6 — NeMo get_words_offsets (bpe), _refine_timestamps(_tdt)
// and the max_prob confidence aggregation (word = min over its tokens).
import { WORD_BOUNDARY, detokenize, pieceKind } from './detokenize.js';

export interface TimedToken {
  id: number;
  frame: number;
  duration: number;
  confidence: number;
}

export interface WordTiming {
  text: string;
  /** seconds */
  start: number;
  end: number;
  confidence: number;
}

/**
 * A punctuation token: a text piece that, with one leading '▁' removed, is a single ASCII character of
 * Unicode category P (the ASCII part of NeMo's tokenizer.supported_punctuation, which collects every
 * category-P character of the vocabulary — the token's own piece guarantees membership).
 */
export function isPunctuationPiece(piece: string): boolean {
  if (pieceKind(piece) !== 'text') return false;
  const s = piece.startsWith(WORD_BOUNDARY) ? piece.slice(WORD_BOUNDARY.length) : piece;
  return s.length === 1 && s.charCodeAt(0) < 0x80 && /^\p{P}$/u.test(s);
}

/** Whether a token starts a new word: its piece starts with '▁' (or it is <unk>, whose text " ⁇ " differs from its piece). */
export function startsWord(piece: string): boolean {
  const kind = pieceKind(piece);
  return kind === 'unk' || (kind === 'text' && piece.startsWith(WORD_BOUNDARY));
}

/**
 * Token [start, end) in frames after NeMo's refinement: start = frame, end = frame + duration, then each
 * punctuation token i > 0 gets start = end = previous token's (refined) end.
 */
export function refineTokenFrames(pieces: readonly string[], tokens: readonly TimedToken[]): { start: number; end: number }[] {
  const out = tokens.map((t) => ({ start: t.frame, end: t.frame + t.duration }));
  for (let i = 1; i < tokens.length; i++) {
    if (isPunctuationPiece(pieces[tokens[i].id])) {
      out[i].start = out[i - 1].end;
      out[i].end = out[i].start;
    }
  }
  return out;
}

/**
 * Group tokens into words. Tokens whose piece yields no text (<s>, </s>, <pad>, <EOU>, language tags…)
 * are events, not words, and are skipped first. Then: a punctuation token is glued to the previous
 * word (or starts one if there is none); a '▁'-piece (or <unk>) starts a new word; anything else
 * continues the current word. Word start = first token's refined start · frameSec, end = last token's
 * refined end · frameSec; the first word's start is the first token's frame; confidence = min over tokens.
 * Word text = the detokenized ids of the word, trimmed.
 */
export function groupWords(pieces: readonly string[], tokensIn: readonly TimedToken[], frameSec: number): WordTiming[] {
  const tokens = tokensIn.filter((t) => {
    const k = pieceKind(pieces[t.id]);
    return k === 'text' || k === 'unk';
  });
  if (tokens.length === 0) return [];
  const span = refineTokenFrames(pieces, tokens);
  const groups: number[][] = [];
  for (let i = 0; i < tokens.length; i++) {
    const piece = pieces[tokens[i].id];
    if (isPunctuationPiece(piece) && groups.length > 0) groups[groups.length - 1].push(i);
    else if (startsWord(piece) || groups.length === 0) groups.push([i]);
    else groups[groups.length - 1].push(i);
  }
  const words = groups.map((g) => ({
    text: detokenize(pieces, g.map((i) => tokens[i].id)).trim(),
    start: span[g[0]].start * frameSec,
    end: span[g[g.length - 1]].end * frameSec,
    confidence: Math.min(...g.map((i) => tokens[i].confidence)),
  }));
  words[0].start = tokens[0].frame * frameSec;
  return words;
}
