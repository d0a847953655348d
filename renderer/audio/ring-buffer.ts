// Fixed-capacity ring of mono samples: the microphone's pre-roll. While the
// Dictate view is armed it always holds the newest `capacity` samples, so the
// audio from just before the user pressed Start (the first syllable) is sent
// with the session instead of being lost to mic start-up latency.
// DOM-free so it is unit-tested under node.

export class SampleRing {
  private readonly data: Float32Array;
  private writePos = 0;
  private filled = 0;
  /** Samples ever written (wrap-around is not a loss we hide: `dropped` counts it). */
  private written = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    this.data = new Float32Array(capacity);
  }

  get length(): number {
    return this.filled;
  }

  /** Samples that were overwritten before anyone read them. */
  get dropped(): number {
    return this.written - this.filled;
  }

  push(samples: Float32Array): void {
    this.written += samples.length;
    // Only the newest `capacity` samples of a long push can survive.
    const src = samples.length > this.capacity ? samples.subarray(samples.length - this.capacity) : samples;
    const first = Math.min(src.length, this.capacity - this.writePos);
    this.data.set(src.subarray(0, first), this.writePos);
    if (first < src.length) this.data.set(src.subarray(first), 0);
    this.writePos = (this.writePos + src.length) % this.capacity;
    this.filled = Math.min(this.capacity, this.filled + src.length);
  }

  /** The held samples, oldest first, as one new array; the ring is emptied. */
  drain(): Float32Array {
    const out = this.peek();
    this.clear();
    return out;
  }

  /** The held samples, oldest first, without removing them. */
  peek(): Float32Array {
    const out = new Float32Array(this.filled);
    const start = (this.writePos - this.filled + this.capacity) % this.capacity;
    const first = Math.min(this.filled, this.capacity - start);
    out.set(this.data.subarray(start, start + first), 0);
    if (first < this.filled) out.set(this.data.subarray(0, this.filled - first), first);
    return out;
  }

  clear(): void {
    this.filled = 0;
    this.writePos = 0;
    this.written = 0;
  }
}
