// Greedy TDT, spec §4.5 — both NeMo decoders:
//   'greedy_batch' (NeMo default strategy): GreedyBatchedTDTInfer / label-looping
//                  (tdt_label_looping.py), reproduced here for batch size 1;
//   'greedy':      GreedyTDTInfer._greedy_decode.
// Logit layout: [tokens 0..V−1 | blank V | durations V+1 .. V+Nd]; argmax on raw logits, ties → lowest.
import { type DecisionStep, type DecodeResult, type DecodedToken, type TransducerModel, maxProbConfidence } from './decoding.js';
import { top2 } from './linalg.js';

export type TdtRule = 'greedy_batch' | 'greedy';

interface Decision {
  k: number;
  d: number;
  logits: Float64Array;
  step: DecisionStep;
}

function decide<S>(model: TransducerModel<S>, t: number, g: Float64Array, durations: readonly number[]): Decision {
  const nTok = model.blank + 1;
  const logits = model.joint(t, g);
  if (logits.length !== nTok + durations.length) throw new Error('tdt: joint output size != V+1+Nd');
  const tk = top2(logits, 0, nTok);
  const dk = top2(logits, nTok, nTok + durations.length);
  const d = durations[dk.index];
  return {
    k: tk.index,
    d,
    logits,
    step: {
      frame: t,
      token: tk.index,
      duration: d,
      tokenMargin: tk.margin,
      durationMargin: dk.margin,
      margin: Math.min(tk.margin, dk.margin),
      emitted: tk.index !== model.blank,
    },
  };
}

function tokenOf(dec: Decision, frame: number, nTok: number): DecodedToken {
  return {
    id: dec.k,
    frame,
    duration: dec.d,
    // max_prob over the token slice only (duration logits excluded).
    confidence: maxProbConfidence(dec.logits, 0, nTok, dec.k),
    margin: dec.step.margin,
  };
}

/**
 * GreedyTDTInfer (strategy 'greedy'), the loop of spec §4.5 verbatim:
 *   while t < Tv: symbols = 0; blank0 = false
 *     loop: k, d = argmaxes; if k ≠ blank: emit(k, t, d), advance state
 *           symbols += 1; t += d
 *           if d > 0: break; if k == blank: t += 1, blank0 = true, break; if symbols == max: break
 *     if !blank0 and symbols == max: t += 1      (also after a d > 0 exit: NeMo's quirk)
 */
function tdtGreedyFrameLoop<S>(model: TransducerModel<S>, Tv: number, durations: readonly number[], maxSymbols: number): DecodeResult {
  const nTok = model.blank + 1;
  const tokens: DecodedToken[] = [];
  const steps: DecisionStep[] = [];
  let pred = model.predict(null, model.initialState());
  let t = 0;
  while (t < Tv) {
    let symbols = 0;
    let blank0 = false;
    for (;;) {
      const dec = decide(model, t, pred.output, durations);
      steps.push(dec.step);
      if (dec.k !== model.blank) {
        tokens.push(tokenOf(dec, t, nTok));
        pred = model.predict(dec.k, pred.state);
      }
      symbols += 1;
      t += dec.d;
      if (dec.d > 0) break;
      if (dec.k === model.blank) {
        t += 1;
        blank0 = true;
        break;
      }
      if (symbols === maxSymbols) break;
    }
    if (!blank0 && symbols === maxSymbols) t += 1;
  }
  return { tokens, steps };
}

/**
 * GreedyBatchedTDTInfer / label looping, batch of one:
 *   repeat while t < Tv:
 *     evaluate at t; blank with d = 0 → d = 1; t_label = t; t += d
 *     while label is blank and t < Tv: evaluate again at t (same prediction state), same rules
 *     if still blank: stop (ran off the end)
 *     emit(label, t_label, d) even if t ≥ Tv now; advance the prediction state
 *     count consecutive labels with this t_label; if count ≥ maxSymbols and t == t_label (d = 0): t += 1
 * Blank steps are not counted toward max_symbols; after the max_symbols-th label only d = 0 adds +1.
 */
function tdtGreedyBatch<S>(model: TransducerModel<S>, Tv: number, durations: readonly number[], maxSymbols: number): DecodeResult {
  const nTok = model.blank + 1;
  const blank = model.blank;
  const tokens: DecodedToken[] = [];
  const steps: DecisionStep[] = [];
  let pred = model.predict(null, model.initialState());
  let t = 0;
  let lastTimestamp = -1;
  let lastTimestampLasts = 0;
  while (t < Tv) {
    let tLabel = t;
    let dec = decide(model, t, pred.output, durations);
    steps.push(dec.step);
    let adv = dec.k === blank && dec.d === 0 ? 1 : dec.d;
    t += adv;
    while (dec.k === blank && t < Tv) {
      tLabel = t;
      dec = decide(model, t, pred.output, durations);
      steps.push(dec.step);
      adv = dec.k === blank && dec.d === 0 ? 1 : dec.d;
      t += adv;
    }
    if (dec.k === blank) break;
    tokens.push(tokenOf(dec, tLabel, nTok));
    pred = model.predict(dec.k, pred.state);
    if (lastTimestamp === tLabel) lastTimestampLasts += 1;
    else lastTimestampLasts = 1;
    lastTimestamp = tLabel;
    if (t < Tv && lastTimestampLasts >= maxSymbols && lastTimestamp === t) t += 1;
  }
  return { tokens, steps };
}

export function tdtGreedy<S>(
  model: TransducerModel<S>,
  Tv: number,
  durations: readonly number[],
  maxSymbols: number,
  rule: TdtRule = 'greedy_batch',
): DecodeResult {
  if (durations.length === 0) throw new Error('tdt: no durations');
  return rule === 'greedy'
    ? tdtGreedyFrameLoop(model, Tv, durations, maxSymbols)
    : tdtGreedyBatch(model, Tv, durations, maxSymbols);
}
