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

/**
 * Mean squares of consecutive `hop`-sample hops of audio that arrives in blocks: each complete hop's goes
 * to `onHop` as it closes (doubles over float samples, summed in order: the engine's plan_windows energies).
 */
export class HopSummer {
  private sum = 0;
  private count = 0;

  constructor(readonly hop: number, private readonly onHop: (meanSquare: number) => void) {}

  push(block: Float32Array): void {
    for (let i = 0; i < block.length; i += 1) {
      const x = block[i]!;
      this.sum += x * x;
      this.count += 1;
      if (this.count === this.hop) this.close();
    }
  }

  /** The last, partial hop (if any) closes too. */
  finish(): void {
    if (this.count > 0) this.close();
  }

  private close(): void {
    this.onHop(this.sum / this.count);
    this.sum = 0;
    this.count = 0;
  }
}

/** 10 ms hops at `sampleRate` (plan_windows's). */
export const hopSamples = (sampleRate: number): number => Math.max(1, Math.trunc(sampleRate / 100));

export class HopEnergyRecorder {
  private energies = new Float64Array(1024);
  private count = 0;
  private samples = 0;
  private readonly summer: HopSummer;

  constructor(sampleRate: number) {
    this.summer = new HopSummer(hopSamples(sampleRate), (e) => this.record(e));
  }

  push(block: Float32Array): void {
    this.summer.push(block);
    this.samples += block.length;
  }

  /** Bytes held: grows with the file's length at 800 bytes a second of audio (16 kHz), never with its samples. */
  get heldBytes(): number {
    return this.energies.byteLength;
  }

  finish(): HopEnergies {
    this.summer.finish();
    return { hop: this.summer.hop, energies: this.energies.slice(0, this.count), samples: this.samples };
  }

  private record(energy: number): void {
    if (this.count === this.energies.length) {
      const grown = new Float64Array(this.energies.length * 2);
      grown.set(this.energies);
      this.energies = grown;
    }
    this.energies[this.count++] = energy;
  }
}

/** The energies of `pcm` (tests, the bench: a clip already in memory). */
export function hopEnergiesOf(pcm: Float32Array, sampleRate: number): HopEnergies {
  const recorder = new HopEnergyRecorder(sampleRate);
  recorder.push(pcm);
  return recorder.finish();
}
