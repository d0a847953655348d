// Small float64 numeric helpers shared by the reference modules (plain loops, no allocation in inner loops).
import type { WeightSource } from './weights.js';

/** Drop trailing 1s so [257, 80, 1] and [257, 80] compare equal (GGUF keeps declared dims). */
export function trimShape(ne: readonly number[]): number[] {
  const out = ne.slice();
  while (out.length > 1 && out[out.length - 1] === 1) out.pop();
  return out;
}

/** Load a tensor and check its ggml ne (trailing 1s ignored). */
export function tensor(w: WeightSource, name: string, ne: readonly number[]): Float64Array {
  if (!w.has(name)) throw new Error(`reference: missing tensor ${name}`);
  const got = trimShape(w.ne(name));
  const want = trimShape(ne);
  if (got.length !== want.length || got.some((v, i) => v !== want[i])) {
    throw new Error(`reference: tensor ${name} has ne [${w.ne(name).join(',')}], expected [${ne.join(',')}]`);
  }
  const data = w.f64(name);
  const n = want.reduce((a, b) => a * b, 1);
  if (data.length !== n) throw new Error(`reference: tensor ${name} has ${data.length} values, expected ${n}`);
  return data;
}

/** Like `tensor` but returns null when the tensor is absent (optional biases). */
export function optionalTensor(w: WeightSource, name: string, ne: readonly number[]): Float64Array | null {
  return w.has(name) ? tensor(w, name, ne) : null;
}

/**
 * torch.nn.Linear: y[n, o] = b[o] + Σ_i W[o, i]·x[n, i].
 * W is torch (out, in) row-major = ggml ne [in, out], so W[o, i] = w[o*inDim + i].
 * x is [n][inDim] row-major; returns [n][outDim].
 */
export function linear(
  x: Float64Array,
  n: number,
  inDim: number,
  w: Float64Array,
  outDim: number,
  b: Float64Array | null,
): Float64Array {
  const y = new Float64Array(n * outDim);
  for (let r = 0; r < n; r++) {
    const xo = r * inDim;
    const yo = r * outDim;
    for (let o = 0; o < outDim; o++) {
      const wo = o * inDim;
      let s = 0;
      for (let i = 0; i < inDim; i++) s += w[wo + i] * x[xo + i];
      y[yo + o] = b === null ? s : s + b[o];
    }
  }
  return y;
}

/** torch.nn.LayerNorm over the last dim d (biased variance), affine. */
export function layerNorm(
  x: Float64Array,
  n: number,
  d: number,
  gamma: Float64Array,
  beta: Float64Array,
  eps = 1e-5,
): Float64Array {
  const y = new Float64Array(n * d);
  for (let r = 0; r < n; r++) {
    const o = r * d;
    let mean = 0;
    for (let i = 0; i < d; i++) mean += x[o + i];
    mean /= d;
    let v = 0;
    for (let i = 0; i < d; i++) {
      const c = x[o + i] - mean;
      v += c * c;
    }
    v /= d;
    const inv = 1 / Math.sqrt(v + eps);
    for (let i = 0; i < d; i++) y[o + i] = (x[o + i] - mean) * inv * gamma[i] + beta[i];
  }
  return y;
}

export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** SiLU / Swish: x·σ(x). */
export function silu(x: number): number {
  return x * sigmoid(x);
}

export interface Top2 {
  /** argmax index relative to `start`; ties resolve to the lowest index. */
  index: number;
  /** best − second best (0 on a tie, +Infinity when the slice has one entry). */
  margin: number;
}

/** Argmax of v[start, end) with ties → lowest index, plus the top-2 margin. */
export function top2(v: Float64Array, start: number, end: number): Top2 {
  if (end <= start) throw new Error('top2: empty slice');
  let best = -Infinity;
  let bestIdx = -1;
  let second = -Infinity;
  for (let i = start; i < end; i++) {
    const x = v[i];
    if (bestIdx < 0 || x > best) {
      second = best;
      best = x;
      bestIdx = i;
    } else if (x > second) {
      second = x;
    }
  }
  return { index: bestIdx - start, margin: end - start === 1 ? Infinity : best - second };
}

/** log_softmax over v[start, end), written into out[start, end). */
export function logSoftmaxInto(v: Float64Array, start: number, end: number, out: Float64Array): void {
  let m = -Infinity;
  for (let i = start; i < end; i++) if (v[i] > m) m = v[i];
  let s = 0;
  for (let i = start; i < end; i++) s += Math.exp(v[i] - m);
  const lse = m + Math.log(s);
  for (let i = start; i < end; i++) out[i] = v[i] - lse;
}

/** softmax(v[start, end))[start + k]. */
export function softmaxAt(v: Float64Array, start: number, end: number, k: number): number {
  let m = -Infinity;
  for (let i = start; i < end; i++) if (v[i] > m) m = v[i];
  let s = 0;
  for (let i = start; i < end; i++) s += Math.exp(v[i] - m);
  return Math.exp(v[start + k] - m) / s;
}
