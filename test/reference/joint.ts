// Joint network, spec §4.3 — NeMo RNNTJoint.joint (project_encoder, project_prednet,
// joint_after_projection: activation(f + g) → joint_net Linear).
import type { TransducerModel } from './decoding.js';
import type { JointActivation, ParakeetHParams } from './hparams.js';
import { linear, tensor } from './linalg.js';
import { type PredictionState, type PredictionWeights, initialPredictionState, predictionStep } from './prediction.js';
import type { WeightSource } from './weights.js';

export interface JointWeights {
  encW: Float64Array; encB: Float64Array; // [J][D]
  predW: Float64Array; predB: Float64Array; // [J][P]
  outW: Float64Array; outB: Float64Array; // [Nout][J]
  dModel: number;
  predHidden: number;
  jointHidden: number;
  /** V + 1 (+ Nd for TDT). */
  nOut: number;
  activation: JointActivation;
}

export function loadJoint(w: WeightSource, hp: ParakeetHParams): JointWeights {
  const tr = hp.transducer;
  if (tr === null) throw new Error('joint: model has no transducer head');
  const D = hp.enc.dModel;
  const P = tr.predHidden;
  const J = tr.jointHidden;
  const nOut = hp.vocabSize + 1 + tr.durations.length;
  return {
    encW: tensor(w, 'joint.enc.weight', [D, J]),
    encB: tensor(w, 'joint.enc.bias', [J]),
    predW: tensor(w, 'joint.pred.weight', [P, J]),
    predB: tensor(w, 'joint.pred.bias', [J]),
    outW: tensor(w, 'joint.joint_net.2.weight', [J, nOut]),
    outB: tensor(w, 'joint.joint_net.2.bias', [nOut]),
    dModel: D,
    predHidden: P,
    jointHidden: J,
    nOut,
    activation: tr.jointActivation,
  };
}

/** f[t] = joint.enc(enc[t]) for all frames: [T][J]. */
export function projectEncoder(jw: JointWeights, enc: Float64Array, T: number): Float64Array {
  return linear(enc, T, jw.dModel, jw.encW, jw.jointHidden, jw.encB);
}

/** gp = joint.pred(g): [J]. */
export function projectPrediction(jw: JointWeights, g: Float64Array): Float64Array {
  return linear(g, 1, jw.predHidden, jw.predW, jw.jointHidden, jw.predB);
}

function activate(a: JointActivation, x: number): number {
  if (a === 'relu') return x > 0 ? x : 0;
  if (a === 'tanh') return Math.tanh(x);
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** Raw logits = joint_net.2(act(f[t] + gp)), length nOut. */
export function jointLogits(jw: JointWeights, encProj: Float64Array, t: number, predProj: Float64Array): Float64Array {
  const J = jw.jointHidden;
  const z = new Float64Array(J);
  for (let j = 0; j < J; j++) z[j] = activate(jw.activation, encProj[t * J + j] + predProj[j]);
  return linear(z, 1, J, jw.outW, jw.nOut, jw.outB);
}

/** The real model as a TransducerModel: predict returns the projected prediction output joint.pred(g). */
export function transducerModel(
  pw: PredictionWeights,
  jw: JointWeights,
  encProj: Float64Array,
  blank: number,
): TransducerModel<PredictionState> {
  return {
    blank,
    initialState: () => initialPredictionState(pw),
    predict(token, state) {
      const r = predictionStep(pw, token, state);
      return { output: projectPrediction(jw, r.output), state: r.state };
    },
    joint: (t, gp) => jointLogits(jw, encProj, t, gp),
  };
}
