// Types shared by the greedy decoders and the max_prob confidence of spec §4.6.
import { softmaxAt } from './linalg.js';

export interface DecodedToken {
  id: number;
  /** Encoder frame of emission (CTC: first frame of the run). */
  frame: number;
  /** Frames spanned: TDT predicted duration, RNNT 1, CTC distance to the next token (last: 1). */
  duration: number;
  /** NeMo max_prob confidence, α = 1. */
  confidence: number;
  /** Top-2 margin of the decision that emitted the token (TDT: min of the token and duration margins). */
  margin: number;
}

/** One greedy decision (CTC: one per frame; transducers: one per joint evaluation). */
export interface DecisionStep {
  frame: number;
  /** argmax over the token slice incl. blank (blank = V). */
  token: number;
  /** TDT only: the duration value picked (before greedy_batch's blank d=0 → 1 forcing). */
  duration?: number;
  /** top-1 − top-2 of the token slice. */
  tokenMargin: number;
  /** TDT only: top-1 − top-2 of the duration slice. */
  durationMargin?: number;
  /** min(tokenMargin, durationMargin). */
  margin: number;
  /** Whether this decision appended a token to the output. */
  emitted: boolean;
}

export interface DecodeResult {
  tokens: DecodedToken[];
  steps: DecisionStep[];
}

/**
 * NeMo max_prob confidence with α = 1 over the N = end − start entries of a logit slice:
 * p = softmax(slice)[k]; conf = (N·p − 1)/(N − 1).
 */
export function maxProbConfidence(logits: Float64Array, start: number, end: number, k: number): number {
  const N = end - start;
  const p = softmaxAt(logits, start, end, k);
  return (N * p - 1) / (N - 1);
}

/**
 * Number of leading emitted tokens decided before the first ambiguous decision (margin ≤ threshold).
 * Tokens after that point may legitimately differ between the reference and an F32 engine.
 */
export function reliableTokenCount(steps: readonly DecisionStep[], threshold = 1e-3): number {
  let emitted = 0;
  for (const s of steps) {
    if (!(s.margin > threshold)) return emitted;
    if (s.emitted) emitted++;
  }
  return emitted;
}

/**
 * What the greedy transducer decoders need. `predict(null, s)` is the SOS step (zero input);
 * `joint` returns raw logits [tokens 0..V−1 | blank V | durations…] for encoder frame t.
 */
export interface TransducerModel<S> {
  /** Blank id = V; the token slice is [0, blank]. */
  blank: number;
  initialState(): S;
  predict(token: number | null, state: S): { output: Float64Array; state: S };
  joint(t: number, predOutput: Float64Array): Float64Array;
}
