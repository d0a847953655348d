// A file job's trained-VAD pass, run over the file's blocks while they are read to plan its windows
// (WindowedWav.open's onBlock): the file is read once for planning and never held whole. Kept per file:
// one speech probability per 32 ms chunk and one energy per 10 ms hop (for cutting long speech at its
// quietest point), about 0.9 KB per second of audio against 64 KB of samples.
import type { VadStream } from '../../native/index.js';
import { trimSegmentEdges } from '../shared/silence-guards.js';
import { speechSegments, type SampleSegment, type VadSegmentOptions } from '../shared/vad-segments.js';
import { HopEnergyRecorder, type HopEnergies } from './hop-energies.js';

export class VadFilePass {
  private readonly probs: Float32Array[] = [];
  private probCount = 0;
  private readonly hops: HopEnergyRecorder;
  private samples = 0;
  private disposed = false;

  constructor(private readonly stream: VadStream, private readonly sampleRate: number, private readonly options: VadSegmentOptions & { trimMs?: number }) {
    this.hops = new HopEnergyRecorder(sampleRate);
  }

  /** The next block of the file, in order (the stream carries its context and LSTM state across blocks). */
  async push(block: Float32Array): Promise<void> {
    this.hops.push(block);
    this.samples += block.length;
    const probs = await this.stream.process(block);
    this.probs.push(probs);
    this.probCount += probs.length;
  }

  /** What the pass holds now: probabilities and hop energies, never samples. */
  get heldBytes(): number {
    return this.probCount * 4 + this.hops.heldBytes;
  }

  /**
   * The speech segments of the whole file (samples in its timeline; padded and trimmed: what is decoded), the
   * speech itself (unpadded: the rest of a window is non-speech to the vocabulary) and its hop energies.
   */
  async finish(): Promise<{ segments: SampleSegment[]; speech: SampleSegment[]; energies: HopEnergies }> {
    this.probs.push(await this.stream.flush());
    const all = new Float32Array(this.probs.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of this.probs) {
      all.set(p, at);
      at += p.length;
    }
    const found = speechSegments(all, this.stream.chunkSamples, this.sampleRate, this.samples, this.options);
    const segments = trimSegmentEdges(found, this.options.trimMs ?? 0, this.sampleRate);
    const speech = speechSegments(all, this.stream.chunkSamples, this.sampleRate, this.samples, { ...this.options, padMs: 0 });
    this.dispose();
    return { segments, speech, energies: this.hops.finish() };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stream.dispose();
  }
}
