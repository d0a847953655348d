// A dictation session's whole audio (16 kHz mono float), in fixed-size
// chunks so appends never copy what is already stored and memory grows with
// the audio itself, nothing more. Chunks that no decode can need any more
// (before the open segment) are dropped — or, where the whole audio is kept
// (tests compare it), spilled to a temp file — which bounds memory to the open
// segment (plus the spill threshold).
import fs from 'node:fs/promises';
import path from 'node:path';

export interface AudioStoreOptions {
  /** Samples per chunk (default 4 s at 16 kHz). */
  chunkSamples?: number;
  /** Spill released chunks to this file once more than `spillAfterSamples` are held in memory. */
  spill?: { file: string; afterSamples: number };
  /** Without spill: drop released chunks (nobody reads the session's whole audio back), neither memory nor disk grows. */
  dropReleased?: boolean;
}

export class AudioStore {
  private readonly chunkSamples: number;
  /** chunks[i] holds samples [i·chunkSamples, …); null once spilled. */
  private readonly chunks: (Float32Array | null)[] = [];
  private total = 0;
  private inMemoryFrom = 0; // index of the first chunk still in memory
  private spilledChunks = 0;
  private spillWrites: Promise<void> = Promise.resolve();
  private spillError: Error | null = null;

  constructor(private readonly opts: AudioStoreOptions = {}) {
    this.chunkSamples = opts.chunkSamples ?? 64_000;
  }

  get length(): number {
    return this.total;
  }

  /** Bytes of sample memory held (whole chunks, the last one partly filled). */
  get memoryBytes(): number {
    let n = 0;
    for (let i = this.inMemoryFrom; i < this.chunks.length; i += 1) n += this.chunks[i]?.byteLength ?? 0;
    return n;
  }

  append(samples: Float32Array): void {
    let offset = 0;
    while (offset < samples.length) {
      const within = this.total % this.chunkSamples;
      if (within === 0) this.chunks.push(new Float32Array(this.chunkSamples));
      const chunk = this.chunks[this.chunks.length - 1]!;
      const n = Math.min(this.chunkSamples - within, samples.length - offset);
      chunk.set(samples.subarray(offset, offset + n), within);
      offset += n;
      this.total += n;
    }
  }

  /** Samples [start, end) as a new array; they must still be in memory (see release). */
  read(start: number, end: number): Float32Array {
    if (start < 0 || end > this.total || start > end) throw new RangeError(`read ${start}..${end} outside 0..${this.total}`);
    if (start < this.inMemoryFrom * this.chunkSamples) throw new RangeError(`samples from ${start} were ${this.opts.spill ? 'spilled to disk' : 'released'}`);
    const out = new Float32Array(end - start);
    let pos = start;
    while (pos < end) {
      const ci = Math.floor(pos / this.chunkSamples);
      const within = pos - ci * this.chunkSamples;
      const n = Math.min(this.chunkSamples - within, end - pos);
      out.set(this.chunks[ci]!.subarray(within, within + n), pos - start);
      pos += n;
    }
    return out;
  }

  /**
   * Nothing before `sample` will be read again. With spilling configured and more than its threshold in
   * memory, whole chunks before it are appended to the spill file and dropped from memory.
   */
  release(sample: number): void {
    const spill = this.opts.spill;
    if (!spill) {
      if (this.opts.dropReleased) this.drop(sample);
      return;
    }
    const heldSamples = (this.chunks.length - this.inMemoryFrom) * this.chunkSamples;
    if (heldSamples <= spill.afterSamples) return;
    const upTo = Math.min(Math.floor(sample / this.chunkSamples), this.chunks.length - 1);
    const toWrite: Float32Array[] = [];
    while (this.inMemoryFrom < upTo) {
      toWrite.push(this.chunks[this.inMemoryFrom]!);
      this.chunks[this.inMemoryFrom] = null;
      this.inMemoryFrom += 1;
    }
    if (!toWrite.length) return;
    this.spilledChunks += toWrite.length;
    const bytes = Buffer.concat(toWrite.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
    this.spillWrites = this.spillWrites.then(async () => {
      try {
        await fs.mkdir(path.dirname(spill.file), { recursive: true });
        await fs.appendFile(spill.file, bytes);
      } catch (error) {
        this.spillError = error as Error;
      }
    });
  }

  /** Whole chunks before `sample` leave memory for good (the last chunk, being filled, stays). */
  private drop(sample: number): void {
    const upTo = Math.min(Math.floor(sample / this.chunkSamples), this.chunks.length - 1);
    while (this.inMemoryFrom < upTo) {
      this.chunks[this.inMemoryFrom] = null;
      this.inMemoryFrom += 1;
    }
  }

  /** The whole session audio (spilled part read back from disk). */
  async readAll(): Promise<Float32Array> {
    if (this.inMemoryFrom > 0 && !this.opts.spill) throw new RangeError('the session audio was released as it went (not retained)');
    await this.spillWrites;
    if (this.spillError) throw this.spillError;
    const out = new Float32Array(this.total);
    if (this.spilledChunks && this.opts.spill) {
      const bytes = await fs.readFile(this.opts.spill.file);
      // A copy: the file buffer's offset need not be 4-byte aligned.
      out.set(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
    }
    const memStart = this.inMemoryFrom * this.chunkSamples;
    if (this.total > memStart) out.set(this.read(memStart, this.total), memStart);
    return out;
  }

  /** Frees memory and removes the spill file. */
  async dispose(): Promise<void> {
    this.chunks.length = 0;
    this.total = 0;
    this.inMemoryFrom = 0;
    this.spilledChunks = 0;
    await this.spillWrites;
    if (this.opts.spill) await fs.rm(this.opts.spill.file, { force: true });
  }
}
