// RNNT/TDT prediction network, spec §4.2 — NeMo RNNTDecoder.predict (embedding + torch.nn.LSTM,
// gate order i, f, g, o, both biases; SOS = zero input, state initialised to zeros).
import type { ParakeetHParams } from './hparams.js';
import { optionalTensor, sigmoid, tensor } from './linalg.js';
import type { WeightSource } from './weights.js';

export interface LstmLayerWeights {
  inDim: number;
  /** [4P][inDim], rows i, f, g, o. */
  wih: Float64Array;
  /** [4P][P]. */
  whh: Float64Array;
  bih: Float64Array | null;
  bhh: Float64Array | null;
}

export interface PredictionWeights {
  /** [V+1][P] (row V = blank, zero in NeMo files). */
  embed: Float64Array;
  embedDim: number;
  hidden: number;
  layers: LstmLayerWeights[];
}

export interface PredictionState {
  h: Float64Array[];
  c: Float64Array[];
}

export function loadPrediction(w: WeightSource, hp: ParakeetHParams): PredictionWeights {
  if (hp.transducer === null) throw new Error('prediction: model has no transducer head');
  const P = hp.transducer.predHidden;
  const V1 = hp.vocabSize + 1;
  const embedDim = w.ne('decoder.prediction.embed.weight')[0];
  const embed = tensor(w, 'decoder.prediction.embed.weight', [embedDim, V1]);
  const layers: LstmLayerWeights[] = [];
  const pre = 'decoder.prediction.dec_rnn.lstm.';
  for (let l = 0; l < hp.transducer.predLayers; l++) {
    const inDim = l === 0 ? embedDim : P;
    layers.push({
      inDim,
      wih: tensor(w, `${pre}weight_ih_l${l}`, [inDim, 4 * P]),
      whh: tensor(w, `${pre}weight_hh_l${l}`, [P, 4 * P]),
      bih: optionalTensor(w, `${pre}bias_ih_l${l}`, [4 * P]),
      bhh: optionalTensor(w, `${pre}bias_hh_l${l}`, [4 * P]),
    });
  }
  return { embed, embedDim, hidden: P, layers };
}

export function initialPredictionState(pw: PredictionWeights): PredictionState {
  return {
    h: pw.layers.map(() => new Float64Array(pw.hidden)),
    c: pw.layers.map(() => new Float64Array(pw.hidden)),
  };
}

/**
 * One prediction step: input = embedding[token] (token null → SOS → zeros), through every LSTM layer:
 * z = W_ih·x + b_ih + W_hh·h + b_hh; i = σ(z_i), f = σ(z_f), g = tanh(z_g), o = σ(z_o);
 * c' = f·c + i·g; h' = o·tanh(c'). Returns the top layer's h' and the new state (inputs untouched).
 */
export function predictionStep(
  pw: PredictionWeights,
  token: number | null,
  state: PredictionState,
): { output: Float64Array; state: PredictionState } {
  const P = pw.hidden;
  let x = new Float64Array(pw.embedDim);
  if (token !== null) x.set(pw.embed.subarray(token * pw.embedDim, (token + 1) * pw.embedDim));
  const next: PredictionState = { h: [], c: [] };
  const z = new Float64Array(4 * P);
  for (let l = 0; l < pw.layers.length; l++) {
    const L = pw.layers[l];
    const h = state.h[l];
    const c = state.c[l];
    for (let r = 0; r < 4 * P; r++) {
      let s = (L.bih === null ? 0 : L.bih[r]) + (L.bhh === null ? 0 : L.bhh[r]);
      const wi = r * L.inDim;
      for (let i = 0; i < L.inDim; i++) s += L.wih[wi + i] * x[i];
      const wh = r * P;
      for (let i = 0; i < P; i++) s += L.whh[wh + i] * h[i];
      z[r] = s;
    }
    const h2 = new Float64Array(P);
    const c2 = new Float64Array(P);
    for (let j = 0; j < P; j++) {
      const ig = sigmoid(z[j]);
      const fg = sigmoid(z[P + j]);
      const gg = Math.tanh(z[2 * P + j]);
      const og = sigmoid(z[3 * P + j]);
      c2[j] = fg * c[j] + ig * gg;
      h2[j] = og * Math.tanh(c2[j]);
    }
    next.h.push(h2);
    next.c.push(c2);
    x = h2;
  }
  return { output: x, state: next };
}
