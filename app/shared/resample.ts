// The app's one resampler: band-limited, Kaiser-windowed sinc, streaming.
// Pure TypeScript, so main (dictation and meeting frames), the engine process
// (files, resampled block by block as they are read) and the CLI all run the
// same arithmetic, and nothing has to cross into the engine process per frame.
//
// Output sample n sits at input position n·M/L, with L = out/g and M = in/g
// (g their gcd): an integer `base` plus a phase p/L. The filter is tabulated
// per phase; with more phases than the table holds (odd rates such as
// 44 099 Hz) the two nearest tabulated phases are blended linearly (error far
// below the stop band). Every output reads only absolute input positions, and
// input before the first sample or after the last is zero, so the output does
// not depend on how the input was cut into calls (tested down to 1-sample chunks).

/** Kaiser design (Oppenheim & Schafer): 90 dB stop band, β = 0.1102·(A − 8.7). */
const STOPBAND_DB = 90;
const KAISER_BETA = 0.1102 * (STOPBAND_DB - 8.7);
/**
 * Transition band as fractions of the lower Nyquist frequency: flat to 86 %,
 * fully attenuated from 98 % on, so nothing near Nyquist folds back.
 */
const PASS_EDGE = 0.86;
const STOP_EDGE = 0.98;
const MAX_TABLE_PHASES = 4096;
/** The inner loop sums four taps at a time (four independent accumulators). */
const TAP_GROUP = 4;
/** Input taken at a time by process(): bounds the buffer for a whole file in one call. */
const SLICE = 1 << 16;

export const MIN_RATE = 1000;
export const MAX_RATE = 768_000;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 64; k += 1) {
    term *= q / (k * k);
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sum;
}

function checkRate(rate: number, what: string): void {
  if (!Number.isInteger(rate) || rate < MIN_RATE || rate > MAX_RATE) {
    throw new RangeError(`unsupported ${what} sample rate ${rate} Hz (expected a whole number of Hz, ${MIN_RATE}..${MAX_RATE})`);
  }
}

export class StreamingResampler {
  private readonly up: number;
  private readonly down: number;
  /** Taps on each side of the output instant; tap k reads input base − half + 1 + k. */
  private readonly half: number;
  /** Taps per phase row, padded with zero coefficients to a multiple of TAP_GROUP. */
  private readonly stride: number;
  private readonly phases: number;
  private readonly table: Float64Array;
  private readonly blended: Float64Array;
  /** Input kept for outputs still to come; buf[0] is absolute input index bufStart (negative: the zeros before the start). */
  private buf: Float64Array;
  private bufStart: number;
  private bufLength: number;
  private inTotal = 0;
  /** Next output: its index, and its input position base + phase/up. */
  private produced = 0;
  private base = 0;
  private phase = 0;
  private flushed = false;

  constructor(readonly inRate: number, readonly outRate: number) {
    checkRate(inRate, 'input');
    checkRate(outRate, 'output');
    const g = gcd(inRate, outRate);
    this.up = outRate / g;
    this.down = inRate / g;
    // Low-pass centred in the transition band below the lower Nyquist, in units of
    // the input's Nyquist frequency; the length follows from the band's width.
    const ratio = Math.min(1, outRate / inRate);
    const cutoff = (ratio * (PASS_EDGE + STOP_EDGE)) / 2;
    const transition = ratio * (STOP_EDGE - PASS_EDGE) * Math.PI; // radians per input sample
    const tapsNeeded = Math.ceil((STOPBAND_DB - 7.95) / (2.285 * transition));
    this.half = Math.max(4, Math.floor((tapsNeeded + 1) / 2));
    const taps = 2 * this.half;
    this.stride = Math.ceil(taps / TAP_GROUP) * TAP_GROUP;
    this.phases = Math.min(this.up, MAX_TABLE_PHASES);
    this.table = new Float64Array((this.phases + 1) * this.stride);
    const i0Beta = besselI0(KAISER_BETA);
    for (let p = 0; p <= this.phases; p += 1) {
      const frac = p / this.phases;
      for (let k = 0; k < taps; k += 1) {
        const x = k - this.half + 1 - frac; // input offset from the output instant
        const r = x / this.half;
        if (r <= -1 || r >= 1) continue;
        const window = besselI0(KAISER_BETA * Math.sqrt(1 - r * r)) / i0Beta;
        const arg = Math.PI * cutoff * x;
        // Rounded to float32 as the engine's C++ resampler stored them (this one gave its output bit for
        // bit when it replaced it), held as doubles so the inner loop converts nothing.
        this.table[p * this.stride + k] = Math.fround(cutoff * (x === 0 ? 1 : Math.sin(arg) / arg) * window);
      }
    }
    this.blended = new Float64Array(this.phases === this.up ? 0 : this.stride);
    // Zeros before the first sample: output 0 reads from index 1 − half.
    this.bufStart = 1 - this.half;
    this.bufLength = this.half - 1;
    this.buf = new Float64Array(Math.max(1024, 2 * this.stride));
  }

  /** The outputs the input so far determines (each one's filter lies inside it). */
  process(input: Float32Array): Float32Array {
    if (this.flushed) throw new Error('StreamingResampler: process() after flush()');
    if (this.up === this.down) return input.slice();
    if (input.length <= SLICE) return this.take(input);
    // In slices, so the buffer stays small (in cache) however long the input.
    const out = new Float32Array(Number((BigInt(this.inTotal + input.length) * BigInt(this.up)) / BigInt(this.down)) - this.produced);
    let written = 0;
    for (let at = 0; at < input.length; at += SLICE) {
      const part = this.take(input.subarray(at, at + SLICE));
      out.set(part, written);
      written += part.length;
    }
    return written === out.length ? out : out.slice(0, written);
  }

  private take(input: Float32Array): Float32Array {
    this.append(input);
    this.inTotal += input.length;
    return this.produce(Number.POSITIVE_INFINITY);
  }

  /** The outputs still owed, floor(inputs · out/in) in all; the input is taken as silence past its end. */
  flush(): Float32Array {
    if (this.flushed) return new Float32Array(0);
    this.flushed = true;
    if (this.up === this.down) return new Float32Array(0);
    const total = Number((BigInt(this.inTotal) * BigInt(this.up)) / BigInt(this.down));
    this.append(new Float32Array(this.stride + 1));
    return this.produce(total);
  }

  private append(input: Float32Array): void {
    // Drop what no later output reads, then grow if needed.
    const keepFrom = this.base - this.half + 1;
    const drop = Math.min(this.bufLength, Math.max(0, keepFrom - this.bufStart));
    if (drop > 0) {
      this.buf.copyWithin(0, drop, this.bufLength);
      this.bufStart += drop;
      this.bufLength -= drop;
    }
    const need = this.bufLength + input.length;
    if (need > this.buf.length) {
      const grown = new Float64Array(Math.max(need, 2 * this.buf.length));
      grown.set(this.buf.subarray(0, this.bufLength));
      this.buf = grown;
    }
    this.buf.set(input, this.bufLength);
    this.bufLength += input.length;
  }

  /** Outputs up to index `limit` whose taps (the padded ones too) lie inside the buffered input. */
  private produce(limit: number): Float32Array {
    const { up, down, half, stride, phases, table, buf } = this;
    const exact = phases === up;
    const step = Math.floor(down / up);
    const stepPhase = down % up;
    const available = this.bufStart + this.bufLength; // absolute end of the buffered input
    const bound = Math.min(limit - this.produced, Math.ceil(((available - this.base) * up) / down) + 1);
    const out = new Float32Array(Math.max(0, bound));
    let count = 0;
    let { base, phase } = this;
    while (count < out.length) {
      const first = base - half + 1 - this.bufStart;
      if (first + stride > this.bufLength) break;
      let coeffs = table;
      let at = phase * stride;
      if (!exact) {
        const where = (phase * phases) / up;
        const p0 = Math.floor(where);
        const w = where - p0;
        const a = p0 * stride;
        const b = a + stride;
        for (let k = 0; k < stride; k += 1) this.blended[k] = table[a + k]! + w * (table[b + k]! - table[a + k]!);
        coeffs = this.blended;
        at = 0;
      }
      let acc0 = 0;
      let acc1 = 0;
      let acc2 = 0;
      let acc3 = 0;
      for (let k = 0; k < stride; k += TAP_GROUP) {
        acc0 += coeffs[at + k]! * buf[first + k]!;
        acc1 += coeffs[at + k + 1]! * buf[first + k + 1]!;
        acc2 += coeffs[at + k + 2]! * buf[first + k + 2]!;
        acc3 += coeffs[at + k + 3]! * buf[first + k + 3]!;
      }
      out[count] = acc0 + acc1 + (acc2 + acc3);
      count += 1;
      base += step;
      phase += stepPhase;
      if (phase >= up) {
        phase -= up;
        base += 1;
      }
    }
    this.base = base;
    this.phase = phase;
    this.produced += count;
    return count === out.length ? out : out.slice(0, count);
  }
}

/** All of `pcm` at once: the same samples as any chunking through StreamingResampler. */
export function resample(pcm: Float32Array, inRate: number, outRate: number): Float32Array {
  const resampler = new StreamingResampler(inRate, outRate);
  const head = resampler.process(pcm);
  const tail = resampler.flush();
  if (tail.length === 0) return head;
  const out = new Float32Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}
