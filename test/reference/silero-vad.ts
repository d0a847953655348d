// Independent float64 Silero VAD (silero-vad's VADRNNJITMerge for one rate), written from the model's
// description, not from the engine: reflect pad → STFT conv with the basis → magnitude → 4 conv1d + ReLU
// → LSTMCell → sigmoid(conv1x1(ReLU(h))). Weights in PyTorch layout, flat row-major.

export interface SileroReferenceWeights {
  nFft: number;
  hop: number;
  chunkSamples: number;
  contextSamples: number;
  rightPad: number;
  hidden: number;
  /** By PyTorch name, as the GGUF stores them (without the vad16k./vad8k. prefix). */
  tensors: ReadonlyMap<string, { shape: readonly number[]; values: ArrayLike<number> }>;
}

const STRIDES = [1, 2, 2, 1];

function tensor(w: SileroReferenceWeights, name: string): { shape: readonly number[]; values: ArrayLike<number> } {
  const t = w.tensors.get(name);
  if (!t) throw new Error(`silero reference: no tensor ${name}`);
  return t;
}

/** out[o][t] = b[o] + Σ_i Σ_k w[o][i][k] · x[i][t·stride + k − pad], zero outside x (torch.nn.Conv1d). */
function conv1d(x: Float64Array[], w: { shape: readonly number[]; values: ArrayLike<number> }, bias: ArrayLike<number> | null, stride: number, pad: number): Float64Array[] {
  const [outCh, inCh, k] = w.shape as [number, number, number];
  const len = x[0]!.length;
  const outLen = Math.floor((len + 2 * pad - k) / stride) + 1;
  const out: Float64Array[] = [];
  for (let o = 0; o < outCh; o++) {
    const row = new Float64Array(outLen);
    for (let t = 0; t < outLen; t++) {
      let acc = bias ? bias[o]! : 0;
      for (let i = 0; i < inCh; i++) {
        const xi = x[i]!;
        for (let j = 0; j < k; j++) {
          const at = t * stride + j - pad;
          if (at >= 0 && at < len) acc += w.values[(o * inCh + i) * k + j]! * xi[at]!;
        }
      }
      row[t] = acc;
    }
    out.push(row);
  }
  return out;
}

const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));

export class SileroReference {
  private readonly context: Float64Array;
  private h: Float64Array;
  private c: Float64Array;

  constructor(private readonly w: SileroReferenceWeights) {
    this.context = new Float64Array(w.contextSamples);
    this.h = new Float64Array(w.hidden);
    this.c = new Float64Array(w.hidden);
  }

  /** The speech probability of one chunk of exactly chunkSamples samples. */
  chunk(samples: ArrayLike<number>): number {
    const w = this.w;
    const len = w.contextSamples + w.chunkSamples;
    const padded = new Float64Array(len + w.rightPad);
    padded.set(this.context, 0);
    for (let i = 0; i < w.chunkSamples; i++) padded[w.contextSamples + i] = samples[i]!;
    // torch.nn.functional.pad(mode='reflect'): the mirror image without the edge sample.
    for (let j = 0; j < w.rightPad; j++) padded[len + j] = padded[len - 2 - j]!;
    this.context.set(padded.subarray(len - w.contextSamples, len));

    const spec = conv1d([padded], tensor(w, 'stft.forward_basis_buffer'), null, w.hop, 0);
    const bins = w.nFft / 2 + 1;
    let x: Float64Array[] = [];
    for (let b = 0; b < bins; b++) x.push(spec[b]!.map((re, t) => Math.hypot(re, spec[b + bins]![t]!)));
    for (let layer = 0; layer < STRIDES.length; layer++) {
      const p = `encoder.${layer}.reparam_conv.`;
      x = conv1d(x, tensor(w, p + 'weight'), tensor(w, p + 'bias').values, STRIDES[layer]!, 1).map((r) => r.map((v) => Math.max(0, v)));
    }
    const input = x.map((r) => r[0]!);  // the one frame left

    // torch.nn.LSTMCell: gates (i, f, g, o) = W_ih·x + b_ih + W_hh·h + b_hh.
    const H = w.hidden;
    const wih = tensor(w, 'decoder.rnn.weight_ih').values;
    const whh = tensor(w, 'decoder.rnn.weight_hh').values;
    const bih = tensor(w, 'decoder.rnn.bias_ih').values;
    const bhh = tensor(w, 'decoder.rnn.bias_hh').values;
    const gates = new Float64Array(4 * H);
    for (let g = 0; g < 4 * H; g++) {
      let acc = bih[g]! + bhh[g]!;
      for (let j = 0; j < H; j++) acc += wih[g * H + j]! * input[j]! + whh[g * H + j]! * this.h[j]!;
      gates[g] = acc;
    }
    const h = new Float64Array(H);
    const c = new Float64Array(H);
    for (let j = 0; j < H; j++) {
      c[j] = sigmoid(gates[H + j]!) * this.c[j]! + sigmoid(gates[j]!) * Math.tanh(gates[2 * H + j]!);
      h[j] = sigmoid(gates[3 * H + j]!) * Math.tanh(c[j]!);
    }
    this.h = h;
    this.c = c;
    const outW = tensor(w, 'decoder.decoder.2.weight').values;
    let logit = tensor(w, 'decoder.decoder.2.bias').values[0]!;
    for (let j = 0; j < H; j++) logit += outW[j]! * Math.max(0, h[j]!);
    return sigmoid(logit);
  }

  /** One probability per chunk; a short tail is zero-padded. */
  run(pcm: ArrayLike<number>): Float64Array {
    const n = Math.ceil(pcm.length / this.w.chunkSamples);
    const out = new Float64Array(n);
    const buf = new Float64Array(this.w.chunkSamples);
    for (let i = 0; i < n; i++) {
      buf.fill(0);
      for (let j = 0; j < this.w.chunkSamples && i * this.w.chunkSamples + j < pcm.length; j++) buf[j] = pcm[i * this.w.chunkSamples + j]!;
      out[i] = this.chunk(buf);
    }
    return out;
  }
}
