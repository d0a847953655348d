// CTC head and greedy decoding, spec §4.1 — NeMo ConvASRDecoder (Conv1d k=1 + log_softmax) and
// GreedyCTCInfer + CTCDecoding.decode_hypothesis (collapse repeats, drop blanks).
import { type DecisionStep, type DecodeResult, type DecodedToken, maxProbConfidence } from './decoding.js';
import type { ParakeetHParams } from './hparams.js';
import { linear, logSoftmaxInto, tensor, top2 } from './linalg.js';
import type { WeightSource } from './weights.js';

export interface CtcWeights {
  /** [V+1][D]. */
  w: Float64Array;
  b: Float64Array;
  dModel: number;
  nClasses: number;
}

export function loadCtc(w: WeightSource, hp: ParakeetHParams): CtcWeights {
  if (hp.ctcPrefix === null) throw new Error('ctc: model has no CTC head');
  const D = hp.enc.dModel;
  const C = hp.vocabSize + 1;
  return {
    w: tensor(w, `${hp.ctcPrefix}.decoder_layers.0.weight`, [1, D, C]),
    b: tensor(w, `${hp.ctcPrefix}.decoder_layers.0.bias`, [C]),
    dModel: D,
    nClasses: C,
  };
}

/** log_softmax(W·enc[t] + b) for every frame: [T][V+1]. */
export function ctcLogProbs(enc: Float64Array, T: number, cw: CtcWeights): Float64Array {
  const logits = linear(enc, T, cw.dModel, cw.w, cw.nClasses, cw.b);
  const out = new Float64Array(logits.length);
  for (let t = 0; t < T; t++) logSoftmaxInto(logits, t * cw.nClasses, (t + 1) * cw.nClasses, out);
  return out;
}

/**
 * Greedy CTC over frames t < Tv of logProbs [*][nClasses] (blank = nClasses − 1):
 * k = argmax (ties → lowest index); emit k iff k ≠ blank and (k ≠ prev or prev == blank); prev = k every frame.
 * Token frame = first frame of its run; duration = next token frame − frame (last token: 1).
 * Confidence = min over the token's run frames of max_prob (NeMo aggregation "min" over the repeated
 * non-blank frames of a token).
 */
export function ctcGreedy(logProbs: Float64Array, Tv: number, nClasses: number): DecodeResult {
  const blank = nClasses - 1;
  const tokens: DecodedToken[] = [];
  const steps: DecisionStep[] = [];
  let prev = blank;
  let current: DecodedToken | null = null;
  for (let t = 0; t < Tv; t++) {
    const o = t * nClasses;
    const { index: k, margin } = top2(logProbs, o, o + nClasses);
    const emit = k !== blank && (k !== prev || prev === blank);
    steps.push({ frame: t, token: k, tokenMargin: margin, margin, emitted: emit });
    if (emit) {
      current = { id: k, frame: t, duration: 1, confidence: maxProbConfidence(logProbs, o, o + nClasses, k), margin };
      tokens.push(current);
    } else if (k !== blank && current !== null && k === prev) {
      // repeated frame of the current token
      current.confidence = Math.min(current.confidence, maxProbConfidence(logProbs, o, o + nClasses, k));
    }
    prev = k;
  }
  for (let i = 0; i + 1 < tokens.length; i++) tokens[i].duration = tokens[i + 1].frame - tokens[i].frame;
  return { tokens, steps };
}
