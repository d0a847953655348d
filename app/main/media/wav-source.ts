// An entry's audio as one WAV the player can seek in: one track, or the
// meeting's tracks mixed on meeting time (each track's sample 0 placed at its
// offset, samples summed and clipped). Nothing is written: the bytes of any
// range are made on request — a fresh 44-byte header with the sizes of the
// whole, then the samples of that range read from the track files by offset —
// so memory is one range, never the meeting, and seeking anywhere costs one
// read per track.
import fs from 'node:fs/promises';
import { WAV_HEADER_BYTES, wavHeader } from '../meeting/wav-journal.js';

export const MEDIA_RATE = 16_000;
const BYTES_PER_SAMPLE = 2;

export interface WavPart {
  /** A 16 kHz mono PCM16 WAV with the 44-byte header wav-journal.ts writes. */
  file: string;
  /** Where its sample 0 sits in the source's time (s). */
  offsetSec: number;
}

interface OpenPart {
  handle: fs.FileHandle;
  offset: number;
  samples: number;
}

export class WavSource {
  /** Bytes of the whole WAV, header included. */
  readonly size: number;
  readonly durationSec: number;
  private readonly header: Buffer;

  private constructor(private readonly parts: OpenPart[], private readonly samples: number) {
    this.size = WAV_HEADER_BYTES + samples * BYTES_PER_SAMPLE;
    this.durationSec = samples / MEDIA_RATE;
    this.header = wavHeader(MEDIA_RATE, samples * BYTES_PER_SAMPLE);
  }

  static async open(parts: readonly WavPart[]): Promise<WavSource> {
    const open: OpenPart[] = [];
    try {
      for (const part of parts) {
        const handle = await fs.open(part.file, 'r');
        open.push({ handle, offset: 0, samples: 0 });
        const { size } = await handle.stat();
        const last = open[open.length - 1]!;
        last.offset = Math.round(part.offsetSec * MEDIA_RATE);
        last.samples = Math.max(0, Math.floor((size - WAV_HEADER_BYTES) / BYTES_PER_SAMPLE));
      }
    } catch (error) {
      await Promise.all(open.map((p) => p.handle.close()));
      throw error;
    }
    const samples = open.reduce((n, p) => Math.max(n, p.offset + p.samples), 0);
    return new WavSource(open, samples);
  }

  /** Bytes [start, end] (inclusive, inside the WAV). */
  async read(start: number, end: number): Promise<Buffer> {
    const out = Buffer.alloc(end - start + 1);
    if (start < WAV_HEADER_BYTES) this.header.copy(out, 0, start, Math.min(end + 1, WAV_HEADER_BYTES));
    const dataFrom = Math.max(start, WAV_HEADER_BYTES) - WAV_HEADER_BYTES;
    const dataTo = end + 1 - WAV_HEADER_BYTES; // exclusive
    if (dataTo <= dataFrom) return out;
    // Whole samples covering the bytes asked (a range may start or end inside a sample).
    const first = Math.floor(dataFrom / BYTES_PER_SAMPLE);
    const last = Math.ceil(dataTo / BYTES_PER_SAMPLE);
    const mixed = await this.mix(first, last);
    const skip = dataFrom - first * BYTES_PER_SAMPLE;
    mixed.copy(out, Math.max(0, WAV_HEADER_BYTES - start), skip, skip + (dataTo - dataFrom));
    return out;
  }

  /** Samples [first, last) of the source, as PCM16 bytes. */
  private async mix(first: number, last: number): Promise<Buffer> {
    const count = last - first;
    if (this.parts.length === 1 && this.parts[0]!.offset === 0) return this.readPart(this.parts[0]!, first, count);
    const sum = new Int32Array(count);
    for (const part of this.parts) {
      // Aligned with [first, last): silence where the part has no sample.
      const bytes = await this.readPart(part, first - part.offset, count);
      for (let i = 0; i < count; i += 1) sum[i]! += bytes.readInt16LE(2 * i);
    }
    const out = Buffer.alloc(count * BYTES_PER_SAMPLE);
    for (let i = 0; i < count; i += 1) out.writeInt16LE(Math.max(-32768, Math.min(32767, sum[i]!)), 2 * i);
    return out;
  }

  /** `count` samples from the part's sample `from` (negative or past its end: silence there). */
  private async readPart(part: OpenPart, from: number, count: number): Promise<Buffer> {
    const out = Buffer.alloc(count * BYTES_PER_SAMPLE);
    const a = Math.max(0, from);
    const b = Math.min(part.samples, from + count);
    if (b > a) await part.handle.read(out, (a - from) * BYTES_PER_SAMPLE, (b - a) * BYTES_PER_SAMPLE, WAV_HEADER_BYTES + a * BYTES_PER_SAMPLE);
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.parts.map((p) => p.handle.close()));
  }
}
