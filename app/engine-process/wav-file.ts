// A WAV file straight to mono float PCM for files:transcribe and the CLI, read in blocks
// (any size: no single read of the file, so no 2 GiB limit); audio over 24 h is refused
// from its header before anything is allocated:
// the whole file is never in memory, and there is no interleaved float copy.
// The channels are averaged while decoding; with `sampleRate` each block is
// resampled as it is read (app/shared/resample.ts, streaming: the same samples
// as one call over the whole file), so the only full-length array is the
// output at that rate, and the event loop runs between blocks (a block of a
// 44.1 kHz stereo file is 6 s of audio, tens of milliseconds of resampling).
// Peak memory: this array plus the addon's copy of it.
import fs from 'node:fs/promises';
import { StreamingResampler } from '../shared/resample.js';
import {
  AudioFormatError, MAX_WAV_CHUNKS, NOT_WAV, checkDuration, chunkTag, dataExtent, downmixInto, parseFmtChunk, tooManyChunks, wavEncoding,
  type WavEncoding, type WavFormat,
} from '../shared/wav.js';
import { fileReadError } from '../shared/fs-error.js';
import { CodedError } from '../../types/errors.js';

export interface MonoWav {
  /** The rate of `samples`: the one asked for, else the file's. */
  sampleRate: number;
  /** The file's own rate. */
  fileSampleRate: number;
  /** Channels in the file (the samples are their average). */
  channels: number;
  samples: Float32Array;
  /** The data chunk was shorter than its header said (a cut file). */
  truncated: boolean;
}

const BLOCK_BYTES = 1 << 20;

export interface ReadWavOptions {
  /** Resample to this rate while reading (absent: the file's rate). */
  sampleRate?: number;
  signal?: AbortSignal;
  /** Bytes per read (tests use odd sizes). */
  blockBytes?: number;
}

/** Where a WAV's samples are and how they are stored (the chunk walk of decodeWav, from the file). */
export interface WavLayout {
  enc: WavEncoding;
  dataOffset: number;
  /** Whole frames in the data chunk that the file really holds. */
  frames: number;
  /** The data chunk was shorter than its header said (a cut file). */
  truncated: boolean;
}

/** Up to `length` bytes at `position` into `into` (fewer only at the end of the file). */
async function readAt(handle: fs.FileHandle, into: Uint8Array, position: number, length: number): Promise<DataView> {
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(into, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return new DataView(into.buffer, into.byteOffset, got);
}

async function readLayout(handle: fs.FileHandle): Promise<WavLayout> {
  const size = (await handle.stat()).size;
  const head = await readAt(handle, new Uint8Array(12), 0, 12);
  if (head.byteLength < 12 || chunkTag(head, 0) !== 'RIFF' || chunkTag(head, 8) !== 'WAVE') throw new AudioFormatError(NOT_WAV);
  // The chunk walk of decodeWav, reading each chunk header (and the format body) from the file.
  let fmt: WavFormat | null = null;
  let dataOffset = -1;
  let dataLength = 0;
  const chunkHeader = new Uint8Array(8);
  for (let offset = 12, chunks = 0; offset + 8 <= size; chunks += 1) {
    if (chunks === MAX_WAV_CHUNKS) throw tooManyChunks();
    const header = await readAt(handle, chunkHeader, offset, 8);
    const id = chunkTag(header, 0);
    const chunkSize = header.getUint32(4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      const available = size - body;
      const fmtBytes = Math.max(0, Math.min(chunkSize, 40, available));
      fmt = parseFmtChunk(await readAt(handle, new Uint8Array(fmtBytes), body, fmtBytes), 0, chunkSize, available);
    } else if (id === 'data') {
      dataOffset = body;
      dataLength = chunkSize;
      break;
    }
    offset = body + chunkSize + (chunkSize & 1);
  }
  const enc = wavEncoding(fmt, dataOffset >= 0);
  const { usable, truncated } = dataExtent(dataLength, Math.max(0, size - dataOffset));
  const frames = Math.floor(usable / enc.frameBytes);
  // Before anything is allocated: memory is never spent on a length that will be refused.
  checkDuration(frames, enc.sampleRate);
  return { enc, dataOffset, frames, truncated };
}

/**
 * A WAV's samples as mono blocks at one rate, read in order from the file: one block of the file and one of
 * output in memory, whatever the file's length. The same samples as one call over the whole file.
 */
export class MonoBlockReader {
  /** Samples the whole file gives at `sampleRate`: floor(frames · rate / file rate), exactly (the product can pass 2^53). */
  readonly samples: number;
  readonly sampleRate: number;
  private readonly resampler: StreamingResampler | null;
  private readonly framesPerBlock: number;
  private readonly block: Uint8Array;
  private nextFrame = 0;
  private given = 0;
  private ended = false;
  /** The file was cut short (by its header, or it shrank while read). */
  cut: boolean;

  private constructor(
    private readonly handle: fs.FileHandle, readonly layout: WavLayout, sampleRate: number | undefined, blockBytes: number, private readonly file: string,
  ) {
    const { enc, frames } = layout;
    this.sampleRate = sampleRate ?? enc.sampleRate;
    this.resampler = this.sampleRate === enc.sampleRate ? null : new StreamingResampler(enc.sampleRate, this.sampleRate);
    this.samples = Number((BigInt(frames) * BigInt(this.sampleRate)) / BigInt(enc.sampleRate));
    this.framesPerBlock = Math.max(1, Math.floor(blockBytes / enc.frameBytes));
    this.block = new Uint8Array(this.framesPerBlock * enc.frameBytes);
    this.cut = layout.truncated;
  }

  static async open(file: string, options: { sampleRate?: number; blockBytes?: number } = {}): Promise<MonoBlockReader> {
    const handle = await fs.open(file, 'r').catch((error: unknown) => {
      throw fileReadError(file, error, 'audio file');
    });
    try {
      return new MonoBlockReader(handle, await readLayout(handle), options.sampleRate, options.blockBytes ?? BLOCK_BYTES, file);
    } catch (error) {
      await handle.close();
      throw fileReadError(file, error, 'audio file');
    }
  }

  /** The next block at `sampleRate` (it may be empty while the resampler fills), or null at the end. */
  async next(signal?: AbortSignal): Promise<Float32Array | null> {
    if (this.ended) return null;
    if (signal?.aborted) throw new CodedError('ABORTED', 'cancelled');
    const { enc, frames, dataOffset } = this.layout;
    if (this.nextFrame >= frames) return this.finish();
    const count = Math.min(this.framesPerBlock, frames - this.nextFrame);
    const view = await readAt(this.handle, this.block, dataOffset + this.nextFrame * enc.frameBytes, count * enc.frameBytes).catch((error: unknown) => {
      throw fileReadError(this.file, error, 'audio file');
    });
    // The file shrank while being read: keep what was there, like a cut file.
    const got = Math.floor(view.byteLength / enc.frameBytes);
    this.nextFrame += got;
    if (got < count) {
      this.cut = true;
      this.nextFrame = frames;
    }
    const mono = new Float32Array(got);
    downmixInto(view, 0, got, enc, mono, 0);
    return this.give(this.resampler ? this.resampler.process(mono) : mono);
  }

  private finish(): Float32Array {
    this.ended = true;
    return this.give(this.resampler ? this.resampler.flush() : new Float32Array(0));
  }

  /** Never more than `samples` in all (the resampler's tail may pass it). */
  private give(block: Float32Array): Float32Array {
    const room = this.samples - this.given;
    const out = block.length > room ? block.subarray(0, room) : block;
    this.given += out.length;
    return out;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

export async function readWavMono(file: string, options: ReadWavOptions = {}): Promise<MonoWav> {
  const reader = await MonoBlockReader.open(file, options);
  try {
    const samples = new Float32Array(reader.samples);
    let written = 0;
    for (let block = await reader.next(options.signal); block; block = await reader.next(options.signal)) {
      samples.set(block, written);
      written += block.length;
    }
    const { enc } = reader.layout;
    return {
      sampleRate: reader.sampleRate, fileSampleRate: enc.sampleRate, channels: enc.channels,
      samples: written < samples.length ? samples.subarray(0, written) : samples, truncated: reader.cut,
    };
  } finally {
    await reader.close();
  }
}
