// Long-audio cut points: the one window planner. The engine transcribes the windows it is given
// (TranscribeParams::windows, checked in native/engine/model/windows.cpp); this plans them, for the one-call
// transcribe (index.ts, so the CLI and the API) and the app's file jobs (app/engine-process/windowed-wav.ts,
// speech-windows.ts) alike, so the same audio is cut at the same samples on every path. A clip longer than
// `maxSamples` is cut at the quietest 200 ms (10 ms hops, smoothed over 20 hops) of each window's second half,
// on the encoder-frame grid (`align` samples), so every window's frames sit on a single pass's time grid.
// Streamed (WindowPlanner): a long file is planned while it is read, never whole in memory.
// test/reference/windows.ts is the one-pass statement of the rule it is checked against.

/** The default longest window of a one-call transcribe (TranscribeOptions.maxWindowSec). */
export const DEFAULT_MAX_WINDOW_SEC = 60;

/**
 * Mean squares of consecutive `hop`-sample hops of audio that arrives in blocks: each complete hop's goes
 * to `onHop` as it closes (doubles over float samples, summed in order, so a file's recorded energies
 * (app/engine-process/hop-energies.ts) are the very numbers the planner sums from its samples).
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

/** 10 ms hops at `sampleRate` (the planner's). */
export const hopSamples = (sampleRate: number): number => Math.max(1, Math.trunc(sampleRate / 100));

export interface SampleRange {
  begin: number;
  end: number;
  /** It begins where a trained VAD found speech start (not at a cut inside long speech): decoded with the onset fade. */
  onset?: boolean;
}
/**
 * The planner over audio that arrives in blocks, holding only the energies a cut can still look at (about
 * one window's worth): the same cut points, from the same doubles summed in the same order, whatever the
 * block size. A file job plans a long file this way while reading it, without the whole file in memory.
 */
export class WindowPlanner {
  private readonly hop: number;
  private readonly align: number;
  private static readonly SPAN = 20;
  /** prefix[k] = sum of the first k hop energies, for k ≥ prefixBase. */
  private prefix: number[] = [0];
  private prefixBase = 0;
  private readonly summer: HopSummer;
  private total = 0;
  private start = 0;
  private readonly out: SampleRange[] = [];

  constructor(sampleRate: number, private readonly maxSamples: number, align: number) {
    this.hop = hopSamples(sampleRate);
    this.align = align <= 0 ? 1 : align;
    this.summer = new HopSummer(this.hop, (e) => this.addHop(e));
  }

  /** Complete hops so far (their energies are in `prefix`). */
  private get frames(): number {
    return this.prefixBase + this.prefix.length - 1;
  }

  push(pcm: Float32Array): void {
    this.summer.push(pcm);
    this.total += pcm.length;
    if (this.maxSamples > 0) this.cut(null);
  }

  /**
   * Hop energies already summed (HopSummer: the same numbers `push` would sum) for `samples` samples,
   * instead of the samples: a long stretch of speech in a file is planned from its recorded energies.
   * Not mixed with `push`.
   */
  pushHopEnergies(energies: ArrayLike<number>, samples: number): void {
    for (let i = 0; i < energies.length; i += 1) this.addHop(energies[i]!);
    this.total += samples;
    if (this.maxSamples > 0) this.cut(null);
  }

  private addHop(energy: number): void {
    this.prefix.push(this.prefix[this.prefix.length - 1]! + energy);
  }

  /** The cut points of all the audio pushed. */
  finish(): SampleRange[] {
    const n = this.total;
    if (this.maxSamples <= 0 || n <= this.maxSamples) return [{ begin: 0, end: n }];
    this.summer.finish();
    this.cut(this.frames);
    this.out.push({ begin: this.start, end: n });
    return this.out;
  }

  /** Makes every cut that the audio so far decides (`frames`: the final count, at the end; null while audio comes). */
  private cut(frames: number | null): void {
    const { hop, maxSamples } = this;
    const half = WindowPlanner.SPAN / 2;
    for (;;) {
      // A cut is only decided once the audio passed start + maxSamples.
      if (this.total - this.start <= maxSamples) return;
      const lo = Math.trunc((this.start + Math.trunc(maxSamples / 2)) / hop);
      const hi = Math.trunc((this.start + maxSamples) / hop) - 1;
      // smoothed(f) reads prefix up to min(frames, max(f, span/2) + span/2): wait for those hops while audio comes.
      if (frames === null && this.frames < Math.max(hi, half) + half) return;
      const all = frames ?? Number.POSITIVE_INFINITY;
      const smoothed = (f: number): number => {
        const b = f >= half ? f - half : 0;
        const e = Math.min(all, b + WindowPlanner.SPAN);
        return (this.at(e) - this.at(b)) / (e - b);
      };
      const top = Math.min(all - 1, hi);
      let best = top;
      let bestEnergy = smoothed(top);
      for (let f = lo; f <= top; f += 1) {
        const e = smoothed(f);
        if (e < bestEnergy) {
          bestEnergy = e;
          best = f;
        }
      }
      let cutAt = Math.min(this.total, best * hop + Math.trunc(hop / 2));
      cutAt -= cutAt % this.align;
      if (cutAt <= this.start) cutAt = Math.min(this.total, this.start + maxSamples - (maxSamples % this.align));
      this.out.push({ begin: this.start, end: cutAt });
      this.start = cutAt;
      this.forget(Math.trunc(this.start / hop) - half - 1);
    }
  }

  private at(k: number): number {
    return this.prefix[k - this.prefixBase]!;
  }

  /** Prefix sums before hop `k` are never read again. */
  private forget(k: number): void {
    const drop = k - this.prefixBase;
    // In batches: dropping from the front of an array copies the rest.
    if (drop < 4096) return;
    this.prefix = this.prefix.slice(drop);
    this.prefixBase = k;
  }
}

/** The windows of a clip already in memory (one WindowPlanner pass over it). */
export function planWindows(pcm: Float32Array, sampleRate: number, maxSamples: number, align: number): SampleRange[] {
  const planner = new WindowPlanner(sampleRate, maxSamples, align);
  planner.push(pcm);
  return planner.finish();
}
