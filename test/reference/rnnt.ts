// Greedy RNNT, spec §4.4 — NeMo GreedyRNNTInfer._greedy_decode (the batched label-looping decoder
// gives the same hypothesis for RNNT).
import { type DecisionStep, type DecodeResult, type DecodedToken, type TransducerModel, maxProbConfidence } from './decoding.js';
import { top2 } from './linalg.js';

/** Where the prediction network stands: its (projected) output for the last token and its state. */
export interface RnntCursor<S> {
  output: Float64Array;
  state: S;
}

/** The SOS cursor: the prediction network run once on the zero input from the zero state. */
export function rnntStart<S>(model: TransducerModel<S>): RnntCursor<S> {
  return model.predict(null, model.initialState());
}

/**
 * Greedy RNNT over frames 0..Tv−1 from a given cursor (streaming decodes chunk after chunk with the
 * state carried): per frame up to maxSymbols emissions; k = argmax over [0, V] (ties → lowest);
 * blank → next frame; non-blank → emit (frame t, span 1) and advance the prediction network.
 * The prediction output is cached across blank steps (state only changes on emission).
 */
export function rnntGreedyFrom<S>(
  model: TransducerModel<S>,
  Tv: number,
  maxSymbols: number,
  start: RnntCursor<S>,
): DecodeResult & { end: RnntCursor<S> } {
  const blank = model.blank;
  const nTok = blank + 1;
  const tokens: DecodedToken[] = [];
  const steps: DecisionStep[] = [];
  let pred = start;
  for (let t = 0; t < Tv; t++) {
    let emitted = 0;
    while (emitted < maxSymbols) {
      const logits = model.joint(t, pred.output);
      const { index: k, margin } = top2(logits, 0, nTok);
      const isBlank = k === blank;
      steps.push({ frame: t, token: k, tokenMargin: margin, margin, emitted: !isBlank });
      if (isBlank) break;
      tokens.push({ id: k, frame: t, duration: 1, confidence: maxProbConfidence(logits, 0, nTok, k), margin });
      pred = model.predict(k, pred.state);
      emitted++;
    }
  }
  return { tokens, steps, end: pred };
}

/** Greedy RNNT of a whole clip from SOS. */
export function rnntGreedy<S>(model: TransducerModel<S>, Tv: number, maxSymbols: number): DecodeResult {
  const { tokens, steps } = rnntGreedyFrom(model, Tv, maxSymbols, rnntStart(model));
  return { tokens, steps };
}
