// Word and character error rates: the edit distance between a reference and a
// hypothesis after one normalisation, with the alignment's substitutions,
// deletions and insertions counted. Pure; the CLI's `parakeet eval`, the
// benches and the tests use it.
//
// Normalisation (both sides, the same way):
//   1. Unicode NFKC, then lowercase;
//   2. apostrophes (' ’ ʼ) deleted, so "don't" is one word "dont";
//   3. every other punctuation character (Unicode category P) becomes a space;
//   4. whitespace runs collapse to one space, trimmed.
// Words are the space-separated pieces; characters are the code points of the
// normalised string, the single spaces between words included (so a missing
// word costs its letters and one space).
//
// WER = (S + D + I) / N over reference words; CER likewise over reference
// characters. A corpus figure pools the counts (Σ errors / Σ N), it is not a
// mean of per-file rates. A reference with no words scores 0 when the
// hypothesis is empty too, else 1 (every inserted word wrong, counted once).

export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’ʼ]/gu, '')
    .replace(/\p{P}/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

export function words(text: string): string[] {
  const n = normalizeText(text);
  return n ? n.split(' ') : [];
}

export function chars(text: string): string[] {
  return Array.from(normalizeText(text));
}

export interface EditCounts {
  /** Reference length (words or characters). */
  n: number;
  hits: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  /** substitutions + deletions + insertions: the edit distance. */
  errors: number;
}

export type AlignOp = { op: 'hit' | 'sub'; ref: string; hyp: string } | { op: 'del'; ref: string } | { op: 'ins'; hyp: string };

/**
 * Levenshtein alignment of two token sequences (unit costs). Among the
 * alignments of least cost the backtrace prefers, at each step from the end,
 * a hit or substitution, then a deletion, then an insertion.
 */
export function align(ref: readonly string[], hyp: readonly string[]): { counts: EditCounts; ops: AlignOp[] } {
  const R = ref.length;
  const H = hyp.length;
  const w = H + 1;
  const d = new Uint32Array((R + 1) * w);
  for (let j = 0; j <= H; j++) d[j] = j;
  for (let i = 1; i <= R; i++) {
    d[i * w] = i;
    for (let j = 1; j <= H; j++) {
      const diag = d[(i - 1) * w + j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      const del = d[(i - 1) * w + j] + 1;
      const ins = d[i * w + j - 1] + 1;
      d[i * w + j] = Math.min(diag, del, ins);
    }
  }
  const ops: AlignOp[] = [];
  const counts: EditCounts = { n: R, hits: 0, substitutions: 0, deletions: 0, insertions: 0, errors: d[R * w + H] };
  let i = R;
  let j = H;
  while (i > 0 || j > 0) {
    const here = d[i * w + j];
    if (i > 0 && j > 0 && here === d[(i - 1) * w + j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) {
      const hit = ref[i - 1] === hyp[j - 1];
      ops.push({ op: hit ? 'hit' : 'sub', ref: ref[i - 1], hyp: hyp[j - 1] });
      if (hit) counts.hits += 1;
      else counts.substitutions += 1;
      i -= 1;
      j -= 1;
    } else if (i > 0 && here === d[(i - 1) * w + j] + 1) {
      ops.push({ op: 'del', ref: ref[i - 1] });
      counts.deletions += 1;
      i -= 1;
    } else {
      ops.push({ op: 'ins', hyp: hyp[j - 1] });
      counts.insertions += 1;
      j -= 1;
    }
  }
  ops.reverse();
  return { counts, ops };
}

export function rate(c: Pick<EditCounts, 'n' | 'errors'>): number {
  if (c.n === 0) return c.errors === 0 ? 0 : 1;
  return c.errors / c.n;
}

export interface ErrorRates {
  reference: string;
  hypothesis: string;
  word: EditCounts;
  char: EditCounts;
  wer: number;
  cer: number;
}

/** WER and CER of one hypothesis against its reference (normalised as above). */
export function errorRates(reference: string, hypothesis: string): ErrorRates {
  const word = align(words(reference), words(hypothesis)).counts;
  const char = align(chars(reference), chars(hypothesis)).counts;
  return { reference: normalizeText(reference), hypothesis: normalizeText(hypothesis), word, char, wer: rate(word), cer: rate(char) };
}

/** Pooled counts over several files. */
export function sumCounts(list: readonly EditCounts[]): EditCounts {
  const out: EditCounts = { n: 0, hits: 0, substitutions: 0, deletions: 0, insertions: 0, errors: 0 };
  for (const c of list) {
    out.n += c.n;
    out.hits += c.hits;
    out.substitutions += c.substitutions;
    out.deletions += c.deletions;
    out.insertions += c.insertions;
    out.errors += c.errors;
  }
  return out;
}
