// Diarization error rate (DER) and concatenated minimum-permutation WER (cpWER), the two numbers the
// diarization benchmark prints. Pure TypeScript.
import { align, normalizeText, words } from './wer.js';

export interface LabelledSegment {
  speaker: string;
  start: number;
  end: number;
}

export interface DerResult {
  /** Reference speech time (s), summed over speakers (overlap counts twice, as in NIST md-eval). */
  reference: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  der: number;
  /** Hypothesis speaker → reference speaker of the best mapping. */
  mapping: Record<string, string>;
}

/** Frames of `step` seconds: which speakers are active in each. */
function frameLabels(segments: readonly LabelledSegment[], frames: number, step: number): Set<string>[] {
  const out = Array.from({ length: frames }, () => new Set<string>());
  for (const s of segments) {
    for (let t = Math.max(0, Math.round(s.start / step)); t < Math.min(frames, Math.round(s.end / step)); t++) out[t].add(s.speaker);
  }
  return out;
}

function permutationsOf<T>(items: readonly T[], k: number): T[][] {
  if (k === 0) return [[]];
  const out: T[][] = [];
  items.forEach((item, i) => {
    for (const rest of permutationsOf([...items.slice(0, i), ...items.slice(i + 1)], k - 1)) out.push([item, ...rest]);
  });
  return out;
}

/** Every one-to-one mapping of hypothesis speakers onto reference speakers (unmapped ones map to nothing). */
function mappings(hyp: readonly string[], ref: readonly string[]): Map<string, string>[] {
  const k = Math.min(hyp.length, ref.length);
  const out: Map<string, string>[] = [];
  for (const hypPick of permutationsOf(hyp, k)) {
    for (const refPick of permutationsOf(ref, k)) {
      // Hypothesis order fixed by sorting the picked set avoids counting the same mapping k! times.
      if (hypPick.some((h, i) => i > 0 && h < hypPick[i - 1])) continue;
      out.push(new Map(hypPick.map((h, i) => [h, refPick[i]])));
    }
  }
  return out.length ? out : [new Map()];
}

/**
 * NIST-style DER without a collar, on 10 ms frames: (missed + false alarm + confusion) / reference speech,
 * with the hypothesis speakers mapped onto the reference speakers the way that minimises the error.
 */
export function diarizationErrorRate(reference: readonly LabelledSegment[], hypothesis: readonly LabelledSegment[], step = 0.01): DerResult {
  const end = Math.max(0, ...reference.map((s) => s.end), ...hypothesis.map((s) => s.end));
  const frames = Math.ceil(end / step);
  const ref = frameLabels(reference, frames, step);
  const hyp = frameLabels(hypothesis, frames, step);
  const refSpeakers = [...new Set(reference.map((s) => s.speaker))].sort();
  const hypSpeakers = [...new Set(hypothesis.map((s) => s.speaker))].sort();
  let best: DerResult | undefined;
  for (const mapping of mappings(hypSpeakers, refSpeakers)) {
    let refTime = 0, missed = 0, falseAlarm = 0, confusion = 0;
    for (let t = 0; t < frames; t++) {
      const r = ref[t], h = hyp[t];
      let correct = 0;
      for (const speaker of h) if (r.has(mapping.get(speaker) ?? '')) correct++;
      refTime += r.size;
      missed += Math.max(0, r.size - h.size);
      falseAlarm += Math.max(0, h.size - r.size);
      confusion += Math.min(r.size, h.size) - correct;
    }
    const der = refTime > 0 ? (missed + falseAlarm + confusion) / refTime : 0;
    if (best === undefined || der < best.der) {
      best = { reference: refTime * step, missed: missed * step, falseAlarm: falseAlarm * step, confusion: confusion * step, der, mapping: Object.fromEntries(mapping) };
    }
  }
  return best!;
}

/**
 * cpWER: each speaker's words concatenated, the hypothesis speakers permuted onto the reference ones for the
 * fewest word errors (an unmatched speaker's words are all insertions or deletions), over the reference words.
 */
export function cpWer(reference: ReadonlyMap<string, string>, hypothesis: ReadonlyMap<string, string>): { errors: number; words: number; cpwer: number } {
  const refSpeakers = [...reference.keys()];
  const hypSpeakers = [...hypothesis.keys()];
  const tokens = (text: string | undefined): string[] => (text === undefined ? [] : words(normalizeText(text)));
  const refWords = refSpeakers.reduce((n, s) => n + tokens(reference.get(s)).length, 0);
  let bestErrors = Infinity;
  const slots = Math.max(refSpeakers.length, hypSpeakers.length);
  const padded = [...hypSpeakers, ...Array.from({ length: slots - hypSpeakers.length }, () => '')];
  for (const order of permutationsOf(padded, slots)) {
    let errors = 0;
    for (let i = 0; i < slots; i++) {
      const ref = tokens(i < refSpeakers.length ? reference.get(refSpeakers[i]) : undefined);
      const hyp = tokens(order[i] ? hypothesis.get(order[i]) : undefined);
      errors += align(ref, hyp).counts.errors;
    }
    bestErrors = Math.min(bestErrors, errors);
  }
  return { errors: bestErrors, words: refWords, cpwer: refWords > 0 ? bestErrors / refWords : 0 };
}
