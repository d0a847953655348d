// The mean energy of every 10 ms hop of a file, recorded while its blocks go by: what the window planner
// (native/windows.ts) reads to cut a long stretch of speech at its quietest point, kept instead of the samples
// (100 doubles a second: 23 MB for an 8-hour file, where the samples at 16 kHz are 1.8 GB). Summed as
// WindowPlanner sums them: doubles over float samples, in order, so the energies are the same numbers.
import { HopSummer, hopSamples } from '../../native/windows.js';

export interface HopEnergies {
  /** Samples per hop (sampleRate / 100). */
  hop: number;
  /** Mean square of each hop; the last may be partial. */
  energies: Float64Array;
  /** Samples in the file. */
  samples: number;
}

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
