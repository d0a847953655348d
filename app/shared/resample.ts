// Streaming band-limited resampler (windowed sinc, Blackman window), for
// audio that does not arrive at the model's 16 kHz. Pure TypeScript: the main
// process uses it for dictation frames at other rates; the renderer may too.
//
// Output sample k sits at input position k·inRate/outRate. With the rates
// reduced by their gcd (L = out/g, M = in/g) that position is an integer plus
// a phase p/L, so the kernel weights are tabulated once per phase.

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

export class StreamingResampler {
  private readonly L: number;
  private readonly M: number;
  /** Taps on each side of the centre, in input samples. */
  private readonly half: number;
  private readonly cutoff: number;
  private readonly table = new Map<number, Float32Array>();
  /** Input not yet consumed; buf[0] is absolute input index bufStart. */
  private buf = new Float32Array(0);
  private bufStart = 0;
  private inTotal = 0;
  /** Next output index. */
  private k = 0;

  constructor(readonly inRate: number, readonly outRate: number, zeroCrossings = 16) {
    if (!Number.isInteger(inRate) || !Number.isInteger(outRate) || inRate <= 0 || outRate <= 0) {
      throw new RangeError(`sample rates must be positive integers (${inRate} → ${outRate})`);
    }
    const g = gcd(inRate, outRate);
    this.L = outRate / g;
    this.M = inRate / g;
    // Downsampling: the cut-off moves to the output's Nyquist (slightly below, for the transition band).
    this.cutoff = Math.min(1, outRate / inRate) * 0.94;
    this.half = Math.ceil(zeroCrossings / this.cutoff);
  }

  private weights(phase: number): Float32Array {
    let w = this.table.get(phase);
    if (w) return w;
    const frac = phase / this.L;
    w = new Float32Array(2 * this.half);
    let sum = 0;
    for (let i = 0; i < w.length; i += 1) {
      const d = i - this.half + 1 - frac; // input tap offset from the output position
      const t = d / this.half; // -1..1
      const blackman = Math.abs(t) >= 1 ? 0 : 0.42 + 0.5 * Math.cos(Math.PI * t) + 0.08 * Math.cos(2 * Math.PI * t);
      w[i] = this.cutoff * sinc(this.cutoff * d) * blackman;
      sum += w[i]!;
    }
    // Unity gain at DC.
    for (let i = 0; i < w.length; i += 1) w[i]! /= sum;
    // Rates with huge L (odd pairs) would fill the map: keep it bounded.
    if (this.table.size < 4096) this.table.set(phase, w);
    return w;
  }

  /** Outputs whose kernel lies within the first `limitIn` input samples, up to output index `limitK`. */
  private produce(limitIn: number, limitK = Number.POSITIVE_INFINITY): Float32Array {
    const out: number[] = [];
    while (this.k < limitK) {
      const num = this.k * this.M;
      const base = Math.floor(num / this.L);
      if (base + this.half >= limitIn) break; // needs input we do not have yet
      const w = this.weights(num - base * this.L);
      let acc = 0;
      const first = base - this.half + 1;
      for (let i = 0; i < w.length; i += 1) {
        const idx = first + i - this.bufStart;
        if (idx >= 0 && idx < this.buf.length) acc += this.buf[idx]! * w[i]!;
      }
      out.push(acc);
      this.k += 1;
    }
    // Drop input no later output can reach.
    const nextBase = Math.floor((this.k * this.M) / this.L);
    const keepFrom = Math.max(this.bufStart, nextBase - this.half + 1);
    if (keepFrom > this.bufStart) {
      this.buf = this.buf.slice(keepFrom - this.bufStart);
      this.bufStart = keepFrom;
    }
    return Float32Array.from(out);
  }

  process(input: Float32Array): Float32Array {
    if (this.L === this.M) return input.slice();
    const next = new Float32Array(this.buf.length + input.length);
    next.set(this.buf);
    next.set(input, this.buf.length);
    this.buf = next;
    this.inTotal += input.length;
    return this.produce(this.inTotal);
  }

  /** The outputs still owed for the input so far (the end is padded with silence). */
  flush(): Float32Array {
    if (this.L === this.M) return new Float32Array(0);
    const total = Math.floor((this.inTotal * this.L) / this.M);
    return this.produce(Number.POSITIVE_INFINITY, total);
  }
}
