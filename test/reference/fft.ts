// Forward complex DFT, X[k] = Σ_n x[n]·e^{−2πi·kn/N}: iterative radix-2 FFT for power-of-two N,
// direct O(N²) DFT otherwise. Used for the STFT of spec §2 (torch.stft, onesided).

const plans = new Map<number, FftPlan>();

export function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

export class FftPlan {
  readonly n: number;
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly rev: Uint32Array | null;
  private readonly scratchRe: Float64Array;
  private readonly scratchIm: Float64Array;

  constructor(n: number) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`FftPlan: bad size ${n}`);
    this.n = n;
    // Twiddles for every k in [0, n): exact angle index (k mod n) keeps the error at ~1 ulp.
    this.cos = new Float64Array(n);
    this.sin = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const a = (2 * Math.PI * k) / n;
      this.cos[k] = Math.cos(a);
      this.sin[k] = Math.sin(a);
    }
    if (isPowerOfTwo(n)) {
      const bits = Math.round(Math.log2(n));
      this.rev = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        let r = 0;
        for (let b = 0; b < bits; b++) if (i & (1 << b)) r |= 1 << (bits - 1 - b);
        this.rev[i] = r;
      }
    } else {
      this.rev = null;
    }
    this.scratchRe = new Float64Array(n);
    this.scratchIm = new Float64Array(n);
  }

  /** In-place forward transform of (re, im), each of length n. */
  transform(re: Float64Array, im: Float64Array): void {
    if (re.length !== this.n || im.length !== this.n) throw new Error('FftPlan: length mismatch');
    if (this.rev === null) {
      this.directInto(re, im, this.scratchRe, this.scratchIm);
      re.set(this.scratchRe);
      im.set(this.scratchIm);
      return;
    }
    const n = this.n;
    const rev = this.rev;
    for (let i = 0; i < n; i++) {
      const j = rev[i];
      if (j > i) {
        let t = re[i];
        re[i] = re[j];
        re[j] = t;
        t = im[i];
        im[i] = im[j];
        im[j] = t;
      }
    }
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const step = n / size;
      for (let start = 0; start < n; start += size) {
        for (let k = 0; k < half; k++) {
          // w = e^{−2πi·k/size} = cos − i·sin at table index k·step.
          const wr = this.cos[k * step];
          const wi = -this.sin[k * step];
          const a = start + k;
          const b = a + half;
          const tr = re[b] * wr - im[b] * wi;
          const ti = re[b] * wi + im[b] * wr;
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    }
  }

  /** Direct DFT into (outRe, outIm). */
  directInto(re: Float64Array, im: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
    const n = this.n;
    for (let k = 0; k < n; k++) {
      let sr = 0;
      let si = 0;
      for (let t = 0; t < n; t++) {
        const idx = (k * t) % n;
        const c = this.cos[idx];
        const s = this.sin[idx];
        // (re + i·im)(c − i·s)
        sr += re[t] * c + im[t] * s;
        si += im[t] * c - re[t] * s;
      }
      outRe[k] = sr;
      outIm[k] = si;
    }
  }
}

export function fftPlan(n: number): FftPlan {
  let p = plans.get(n);
  if (p === undefined) {
    p = new FftPlan(n);
    plans.set(n, p);
  }
  return p;
}

/** In-place forward FFT (radix-2 when n is a power of two, direct DFT otherwise). */
export function fft(re: Float64Array, im: Float64Array): void {
  fftPlan(re.length).transform(re, im);
}

/** Direct O(n²) DFT (reference for tests); returns new arrays. */
export function dft(re: Float64Array, im: Float64Array): { re: Float64Array; im: Float64Array } {
  const n = re.length;
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  fftPlan(n).directInto(re, im, outRe, outIm);
  return { re: outRe, im: outIm };
}
