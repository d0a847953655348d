// The mean energy of every 10 ms hop of a file, recorded while its blocks go by: what the window planner
// (windows.ts) reads to cut a long stretch of speech at its quietest point, kept instead of the samples
// (100 doubles a second: 2.9 MB for an 8-hour file, where the samples at 16 kHz are 1.8 GB). Summed as
// WindowPlanner sums them: doubles over float samples, in order, so the energies are the same numbers.

export interface HopEnergies {
  /** Samples per hop (sampleRate / 100). */
  hop: number;
  /** Mean square of each hop; the last may be partial. */
  energies: Float64Array;
  /** Samples in the file. */
  samples: number;
}

export class HopEnergyRecorder {
  private readonly hop: number;
  private energies = new Float64Array(1024);
  private count = 0;
  private hopSum = 0;
  private hopCount = 0;
  private samples = 0;

  constructor(sampleRate: number) {
    this.hop = Math.max(1, Math.trunc(sampleRate / 100));
  }

  push(block: Float32Array): void {
    for (let i = 0; i < block.length; i += 1) {
      const x = block[i]!;
      this.hopSum += x * x;
      this.hopCount += 1;
      if (this.hopCount === this.hop) this.closeHop();
    }
    this.samples += block.length;
  }

  /** Bytes held: grows with the file's length at 800 bytes a second of audio (16 kHz), never with its samples. */
  get heldBytes(): number {
    return this.energies.byteLength;
  }

  finish(): HopEnergies {
    if (this.hopCount > 0) this.closeHop();
    return { hop: this.hop, energies: this.energies.slice(0, this.count), samples: this.samples };
  }

  private closeHop(): void {
    if (this.count === this.energies.length) {
      const grown = new Float64Array(this.energies.length * 2);
      grown.set(this.energies);
      this.energies = grown;
    }
    this.energies[this.count++] = this.hopSum / this.hopCount;
    this.hopSum = 0;
    this.hopCount = 0;
  }
}

/** The energies of `pcm` (tests, the bench: a clip already in memory). */
export function hopEnergiesOf(pcm: Float32Array, sampleRate: number): HopEnergies {
  const recorder = new HopEnergyRecorder(sampleRate);
  recorder.push(pcm);
  return recorder.finish();
}
