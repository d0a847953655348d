// The joint's output projection (joint.joint_net.2.weight) for random models.
//
// Why not plain random: in a random transducer the encoder frame decides which
// token wins, and emitting it barely changes that, so RNNT greedy decoding
// emits the same token max_symbols times on most frames. Trained models learn
// that a token just emitted is unlikely again. We build that in: for every
// token k we run the prediction net one step on k (from the zero state) and
// subtract from row k a multiple of the resulting shift of the joint's hidden
// pre-activation. After emitting k, the ReLU units that k's prediction output
// pushes up then vote against k, so decoding moves on to another token or blank.
import { elementCount } from '../gguf/types.js';
import { tensorValues } from './init.js';
import { Rng } from './rng.js';
import type { TensorPlan } from './tensor-plan.js';

export interface JointOutputParams {
  readonly predHidden: number;
  readonly predLayers: number;
  readonly jointHidden: number;
  readonly vocabSize: number;
  /** Rows of the projection: V + 1 + number of TDT durations. */
  readonly outputs: number;
  readonly seed: number;
  /** Uniform bound of the random part. */
  readonly bound: number;
  /** Norm of the anti-repeat term relative to a random row's norm. */
  readonly antiRepeat: number;
  /**
   * Rows that vote against the start state (<EOU>, <EOB>): the decoder restarts from SOS after
   * emitting one, and without this the same piece would win again on the next frames.
   */
  readonly antiStartRows: readonly number[];
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

function centerInPlace(v: Float64Array, from: number, len: number): void {
  let mean = 0;
  for (let j = 0; j < len; j++) mean += v[from + j];
  mean /= len;
  for (let j = 0; j < len; j++) v[from + j] -= mean;
}

/** One LSTM step from zero state through all layers (PyTorch gate order i, f, g, o). */
function lstmFirstStep(x0: Float64Array, layers: readonly { wih: Float32Array; bih: Float32Array; bhh: Float32Array }[], P: number): Float64Array {
  let x = x0;
  const z = new Float64Array(4 * P);
  for (const { wih, bih, bhh } of layers) {
    for (let r = 0; r < 4 * P; r++) {
      // c0 = 0, so the forget gate (rows P..2P) does not matter on the first step.
      if (r === P) r = 2 * P;
      let s = bih[r] + bhh[r];
      const base = r * P;
      for (let c = 0; c < P; c++) s += wih[base + c] * x[c];
      z[r] = s;
    }
    const h = new Float64Array(P);
    for (let u = 0; u < P; u++) {
      const c = sigmoid(z[u]) * Math.tanh(z[2 * P + u]);
      h[u] = sigmoid(z[3 * P + u]) * Math.tanh(c);
    }
    x = h;
  }
  return x;
}

export function jointOutputWeight(p: JointOutputParams, plans: ReadonlyMap<string, TensorPlan>, name: string): Float64Array {
  const { predHidden: P, jointHidden: J, vocabSize: V } = p;
  const get = (n: string): Float32Array => {
    const plan = plans.get(n);
    if (!plan) throw new Error(`joint output: missing planned tensor ${n}`);
    return tensorValues(plan, p.seed);
  };
  const out = new Float64Array(J * p.outputs);
  const rng = new Rng(p.seed, name);
  for (let i = 0; i < out.length; i++) out[i] = rng.uniform(-p.bound, p.bound);
  // Zero-sum rows: the ReLU hidden state has a mean shared by every frame and
  // step, which would otherwise hand each token a fixed offset.
  for (let r = 0; r < p.outputs; r++) centerInPlace(out, r * J, J);
  // Blank's row is zero (its logit is the bias), for the reason given in schema.ts's CTC head.
  out.fill(0, V * J, (V + 1) * J);
  if (p.antiRepeat === 0) return out;

  const emb = get('decoder.prediction.embed.weight');
  const layers = Array.from({ length: p.predLayers }, (_, l) => ({
    wih: get(`decoder.prediction.dec_rnn.lstm.weight_ih_l${l}`),
    bih: get(`decoder.prediction.dec_rnn.lstm.bias_ih_l${l}`),
    bhh: get(`decoder.prediction.dec_rnn.lstm.bias_hh_l${l}`),
  }));
  const wp = get('joint.pred.weight'); // torch (J, P): row j at j·P
  if (elementCount([P, J]) !== wp.length) throw new Error('joint output: joint.pred.weight shape mismatch');
  const hSos = lstmFirstStep(new Float64Array(P), layers, P);
  const rowNorm = p.bound * Math.sqrt(J / 3);
  const subtractDirection = (row: number, d: Float64Array): void => {
    centerInPlace(d, 0, J);
    const norm = Math.hypot(...d);
    if (norm === 0) return;
    const scale = (p.antiRepeat * rowNorm) / norm;
    for (let j = 0; j < J; j++) out[row * J + j] -= scale * d[j];
  };
  for (const row of p.antiStartRows) {
    const d = new Float64Array(J);
    for (let j = 0; j < J; j++) {
      let s = 0;
      for (let c = 0; c < P; c++) s += wp[j * P + c] * hSos[c];
      d[j] = s;
    }
    subtractDirection(row, d);
  }
  for (let k = 0; k < V; k++) {
    const h = lstmFirstStep(Float64Array.from(emb.subarray(k * P, (k + 1) * P)), layers, P);
    const d = new Float64Array(J);
    for (let j = 0; j < J; j++) {
      let s = 0;
      for (let c = 0; c < P; c++) s += wp[j * P + c] * (h[c] - hSos[c]);
      d[j] = s;
    }
    subtractDirection(k, d);
  }
  return out;
}
