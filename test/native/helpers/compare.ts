// Numeric comparisons for engine-vs-reference checks.
import type { TokenTiming } from '../../../native/index.js';

export type Numbers = ArrayLike<number>;

export function maxAbsDiff(a: Numbers, b: Numbers, count = Math.min(a.length, b.length)): number {
  let m = 0;
  for (let i = 0; i < count; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = d; // NaN propagates as NaN
  }
  return m;
}

export function maxAbs(a: Numbers): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const v = Math.abs(a[i]);
    if (!(v <= m)) m = v;
  }
  return m;
}

/** ‖got − ref‖₂ / ‖ref‖₂ over the first `count` values (NaN if ref is all zero and got is not). */
export function relL2(ref: Numbers, got: Numbers, count = Math.min(ref.length, got.length)): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < count; i++) {
    const d = got[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  if (den === 0) return num === 0 ? 0 : Number.NaN;
  return Math.sqrt(num / den);
}

/** Levenshtein distance between two id sequences. */
export function editDistance(a: readonly number[], b: readonly number[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** Token error rate of `got` against `ref` (edit distance / reference length; 0 when both are empty). */
export function tokenErrorRate(ref: readonly number[], got: readonly number[]): number {
  if (ref.length === 0) return got.length === 0 ? 0 : 1;
  return editDistance(ref, got) / ref.length;
}

export interface TokenLike {
  id: number;
  frame: number;
  duration: number;
}

/** Number of leading tokens equal in id, frame and duration. */
export function commonPrefix(a: readonly TokenLike[], b: readonly TokenLike[]): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k].id === b[k].id && a[k].frame === b[k].frame && a[k].duration === b[k].duration) k++;
  return k;
}

export function describeTokens(tokens: readonly TokenLike[], limit = 40): string {
  const shown = tokens.slice(0, limit).map((t) => `${t.id}@${t.frame}+${t.duration}`).join(' ');
  return tokens.length > limit ? `${shown} … (${tokens.length})` : shown;
}

export function ids(tokens: readonly (TokenLike | TokenTiming)[]): number[] {
  return tokens.map((t) => t.id);
}

export function fmt(x: number): string {
  return Number.isFinite(x) ? x.toExponential(2) : String(x);
}
