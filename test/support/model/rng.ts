// Seeded PRNG for weights: xoshiro128** seeded through splitmix32. Each tensor gets
// its own stream derived from (seed, tensor name), so a tensor's values do not
// depend on which other tensors exist or on their order (an F32 and a Q8_0 model
// with the same seed hold the same underlying weights).

function splitmix32(state: number): [number, number] {
  const s = (state + 0x9e3779b9) | 0;
  let z = s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [s, (z ^ (z >>> 16)) >>> 0];
}

/** FNV-1a over UTF-16 code units; enough to separate tensor names. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number, stream = '') {
    let st = (seed ^ hashString(stream)) | 0;
    let v: number;
    [st, v] = splitmix32(st); this.s0 = v;
    [st, v] = splitmix32(st); this.s1 = v;
    [st, v] = splitmix32(st); this.s2 = v;
    [st, v] = splitmix32(st); this.s3 = v;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Next 32-bit unsigned integer. */
  nextU32(): number {
    const r = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  /** Uniform in [0, 1) with 24-bit resolution (exact in float32). */
  next(): number {
    return (this.nextU32() >>> 8) * 5.9604644775390625e-8;
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /**
   * Fill `out` with lo + (hi-lo)·U[0,1). The generator is inlined here because
   * this loop produces every weight of multi-GB benchmark models.
   */
  fillUniform(out: Float32Array, lo: number, hi: number): void {
    let s0 = this.s0, s1 = this.s1, s2 = this.s2, s3 = this.s3;
    const k = (hi - lo) * 5.9604644775390625e-8;
    for (let i = 0; i < out.length; i++) {
      const x = Math.imul(s1, 5);
      const r = Math.imul((x << 7) | (x >>> 25), 9) >>> 8;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      out[i] = lo + r * k;
    }
    this.s0 = s0; this.s1 = s1; this.s2 = s2; this.s3 = s3;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
