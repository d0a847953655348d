// A long WAV for a file job, window by window, never whole in memory: opening
// it reads the file once, in blocks, to plan the cut points (WindowPlanner:
// the one planner, native/windows.ts); each window is then read from the file when its turn
// comes, in order, resampled on the way. Memory: one window and one block,
// however long the file (a 3-hour file held ~750 MiB as one array before).
// Reading it twice costs little beside decoding it.
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { CodedError } from '../../types/errors.js';
import { MonoBlockReader } from './wav-file.js';
import { WindowPlanner, type SampleRange } from '../../native/windows.js';

export interface WindowedWavOptions {
  sampleRate: number;
  /** Longest window (samples at sampleRate). */
  maxSamples: number;
  /** Cut points fall on multiples of this (the encoder's frame, in samples). */
  align: number;
  signal?: AbortSignal;
  /** Bytes per read (tests use small ones). */
  blockBytes?: number;
  /**
   * Each block of the planning pass, in order, awaited before the next read (a trained VAD runs over the
   * blocks as they go by: the file is read once to plan, and never held whole).
   */
  onBlock?: (block: Float32Array) => void | Promise<void>;
}

export class WindowedWav {
  private reader: MonoBlockReader | null = null;
  /** Samples read but not yet handed out, from sample `bufferStart` on. */
  private buffer: Float32Array[] = [];
  private bufferStart = 0;
  private bufferLength = 0;
  /** Times the file was read from its start: 1 after open (the planning pass), one more for each pass over windows. */
  private passes = 1;

  private constructor(
    readonly path: string,
    readonly sampleRate: number,
    readonly samples: number,
    readonly windows: SampleRange[],
    private readonly stamp: Pick<Stats, 'size' | 'mtimeMs'>,
    private readonly blockBytes: number | undefined,
  ) {}

  /** Reads the file once to plan its windows; nothing of it stays in memory. */
  static async open(path: string, options: WindowedWavOptions): Promise<WindowedWav> {
    const { sampleRate, maxSamples, align, signal, blockBytes, onBlock } = options;
    const stamp = await fs.stat(path);
    const reader = await MonoBlockReader.open(path, { sampleRate, blockBytes });
    const planner = new WindowPlanner(sampleRate, maxSamples, align);
    let samples = 0;
    try {
      for (let block = await reader.next(signal); block; block = await reader.next(signal)) {
        planner.push(block);
        samples += block.length;
        await onBlock?.(block);
      }
    } finally {
      await reader.close();
    }
    return new WindowedWav(path, sampleRate, samples, planner.finish(), stamp, blockBytes);
  }

  /** The same file with other windows (in order: a trained VAD's speech windows); nothing is read. */
  withWindows(windows: SampleRange[]): WindowedWav {
    return new WindowedWav(this.path, this.sampleRate, this.samples, windows, this.stamp, this.blockBytes);
  }

  /** Passes over the file so far: the planning pass, then one for the windows read in order (one more each time a window goes back). */
  get readPasses(): number {
    return this.passes;
  }

  /** Samples held now (the part of a window read so far, and what the last block read past it). */
  get heldSamples(): number {
    return this.bufferLength;
  }

  /** Window `index`'s samples, read from the file. In order is one pass; going back reads from the start again. */
  async window(index: number, signal?: AbortSignal): Promise<Float32Array> {
    const range = this.windows[index];
    if (!range) throw new CodedError('NOT_FOUND', `no window ${index} in ${this.path}`);
    if (!this.reader || range.begin < this.bufferStart) await this.rewind();
    this.discardBefore(range.begin);
    while (this.bufferStart + this.bufferLength < range.end) {
      const block = await this.reader!.next(signal);
      if (!block) throw new CodedError('FILE_CHANGED', `${this.path} got shorter while it was being transcribed; transcribe it again.`);
      this.buffer.push(block);
      this.bufferLength += block.length;
      this.discardBefore(range.begin);  // a gap before the window (skipped silence) is never held
    }
    const out = new Float32Array(range.end - range.begin);
    let at = this.bufferStart;
    for (const block of this.buffer) {
      const from = Math.max(range.begin, at);
      const to = Math.min(range.end, at + block.length);
      if (to > from) out.set(block.subarray(from - at, to - at), from - range.begin);
      at += block.length;
    }
    this.discardBefore(range.end);
    return out;
  }

  private async rewind(): Promise<void> {
    await this.reader?.close();
    this.reader = null;
    const now = await fs.stat(this.path);
    if (now.size !== this.stamp.size || now.mtimeMs !== this.stamp.mtimeMs) {
      throw new CodedError('FILE_CHANGED', `${this.path} changed while it was being transcribed; transcribe it again.`);
    }
    this.reader = await MonoBlockReader.open(this.path, { sampleRate: this.sampleRate, blockBytes: this.blockBytes });
    this.passes += 1;
    this.buffer = [];
    this.bufferStart = 0;
    this.bufferLength = 0;
  }

  /** Drops what comes before sample `sample` (whole blocks; the one holding it is cut down). */
  private discardBefore(sample: number): void {
    while (this.buffer.length && this.bufferStart + this.buffer[0]!.length <= sample) {
      const first = this.buffer.shift()!;
      this.bufferStart += first.length;
      this.bufferLength -= first.length;
    }
    const first = this.buffer[0];
    if (first && sample > this.bufferStart) {
      // A copy, so the block read before it can be freed.
      this.buffer[0] = first.slice(sample - this.bufferStart);
      this.bufferLength -= sample - this.bufferStart;
      this.bufferStart = sample;
    }
  }

  async close(): Promise<void> {
    await this.reader?.close();
    this.reader = null;
    this.buffer = [];
    this.bufferLength = 0;
  }
}
