// A segment's text corrected by the user, with its word times kept where the
// words are unchanged. The old words and the new text's words (split at
// white space) are aligned by their longest common subsequence of identical
// words: those keep their decoded times and confidence. Between two kept
// words, the new words that replace old ones share, evenly, the span from the
// first replaced word's start to the last one's end; new words with nothing
// replaced between kept neighbours share the gap between them (possibly
// none). Typed words get confidence 1 (the user wrote them). Pure.
import type { HistorySegment, Word } from '../../ipc/contract.js';

/** Past this many cells the alignment is skipped and the new words share the segment evenly (no unbounded work). */
const MAX_CELLS = 4_000_000;

function spread(texts: readonly string[], start: number, end: number): Word[] {
  const step = texts.length ? Math.max(0, end - start) / texts.length : 0;
  return texts.map((text, i) => ({ text, start: start + i * step, end: start + (i + 1) * step, confidence: 1 }));
}

/** Pairs [old index, new index] of the longest common subsequence of identical words, in order. */
function commonWords(old: readonly string[], next: readonly string[]): Array<[number, number]> {
  const n = old.length;
  const m = next.length;
  // lengths[i][j]: LCS of old[i..] and next[j..], one flat row-major table.
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lengths[i * (m + 1) + j] = old[i] === next[j]
        ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
        : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (old[i] === next[j]) {
      pairs.push([i, j]);
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!) i += 1;
    else j += 1;
  }
  return pairs;
}

/** The new words of `text` with their times (see the top of this file). */
export function alignEditedWords(oldWords: readonly Word[], text: string, bounds: { start: number; end: number }): Word[] {
  const next = text.split(/\s+/).filter(Boolean);
  if (oldWords.length === 0 || oldWords.length * next.length > MAX_CELLS) return spread(next, bounds.start, bounds.end);
  const pairs = commonWords(oldWords.map((w) => w.text), next);
  const out: Word[] = [];
  let oi = 0;
  let ni = 0;
  // Each anchor (a kept pair, then a sentinel past the end) closes the gap before it.
  for (const [ao, an] of [...pairs, [oldWords.length, next.length] as [number, number]]) {
    const inserted = next.slice(ni, an);
    if (inserted.length) {
      const replaced = oldWords.slice(oi, ao);
      const before = oi > 0 ? oldWords[oi - 1]!.end : bounds.start;
      const after = ao < oldWords.length ? oldWords[ao]!.start : bounds.end;
      const start = replaced.length ? replaced[0]!.start : before;
      const end = replaced.length ? replaced[replaced.length - 1]!.end : Math.max(before, after);
      out.push(...spread(inserted, start, end));
    }
    if (ao < oldWords.length) out.push({ ...oldWords[ao]! });
    oi = ao + 1;
    ni = an + 1;
  }
  return out;
}

/** The segment with `text` as its text (trimmed), its words re-timed, marked edited; the same object when nothing changed. */
export function editSegment<S extends HistorySegment>(segment: S, text: string): S {
  const next = text.trim().replace(/[\r\n]+/g, ' ');
  if (next === segment.text.trim()) return segment;
  return { ...segment, text: next, words: alignEditedWords(segment.words, next, segment), edited: true };
}
