// Greedy RNNT, spec §4.4 — NeMo GreedyRNNTInfer._greedy_decode (the batched label-looping decoder
// gives the same hypothesis for RNNT).
import { type DecisionStep, type DecodeResult, type DecodedToken, type TransducerModel, maxProbConfidence } from './decoding.js';
import { top2 } from './linalg.js';

/**
 * for t < Tv: up to maxSymbols emissions per frame; k = argmax over [0, V] (ties → lowest);
 * blank → next frame; non-blank → emit (frame t, span 1) and advance the prediction network.
 * The prediction output is cached across blank steps (state only changes on emission).
 */
export function rnntGreedy<S>(model: TransducerModel<S>, Tv: number, maxSymbols: number): DecodeResult {
  const blank = model.blank;
  const nTok = blank + 1;
  const tokens: DecodedToken[] = [];
  const steps: DecisionStep[] = [];
  let pred = model.predict(null, model.initialState());
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
  return { tokens, steps };
}
