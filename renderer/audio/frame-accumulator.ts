// Regroups the AudioWorklet's 128-sample render quanta into frames of a fixed
// size (e.g. 640 samples = 40 ms at 16 kHz): a WebSocket/MessagePort message
// per 8 ms render quantum would be needless overhead, and fixed frames make
// sample accounting on the main side trivial. Used inside the worklet;
// DOM-free so it is unit-tested under node.

export class FrameAccumulator {
  private buffer: Float32Array;
  private fill = 0;

  constructor(readonly frameSize: number, private readonly emit: (frame: Float32Array) => void) {
    if (!Number.isInteger(frameSize) || frameSize <= 0) throw new RangeError(`frame size must be a positive integer, got ${frameSize}`);
    this.buffer = new Float32Array(frameSize);
  }

  /** Number of samples waiting for a full frame. */
  get pending(): number {
    return this.fill;
  }

  push(samples: Float32Array): void {
    let offset = 0;
    while (offset < samples.length) {
      const n = Math.min(this.frameSize - this.fill, samples.length - offset);
      this.buffer.set(samples.subarray(offset, offset + n), this.fill);
      this.fill += n;
      offset += n;
      if (this.fill === this.frameSize) {
        // Hand over the filled buffer (it may be transferred) and start a new one.
        const frame = this.buffer;
        this.buffer = new Float32Array(this.frameSize);
        this.fill = 0;
        this.emit(frame);
      }
    }
  }

  /** Emits the partial frame, if any (at stop, so the last word's tail is sent). */
  flush(): void {
    if (this.fill === 0) return;
    const frame = this.buffer.slice(0, this.fill);
    this.fill = 0;
    this.emit(frame);
  }
}

/** Mono mixdown of the worklet's input channels (the mic may deliver stereo). */
export function mixToMono(channels: readonly Float32Array[]): Float32Array {
  if (channels.length === 0) return new Float32Array(0);
  if (channels.length === 1) return channels[0].slice();
  const out = new Float32Array(channels[0].length);
  for (const ch of channels) for (let i = 0; i < out.length; i++) out[i] += ch[i];
  const scale = 1 / channels.length;
  for (let i = 0; i < out.length; i++) out[i] *= scale;
  return out;
}
