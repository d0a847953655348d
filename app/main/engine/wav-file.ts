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
import { StreamingResampler } from '../../shared/resample.js';
import {
  AudioFormatError, NOT_WAV, checkDuration, chunkTag, dataExtent, downmixInto, parseFmtChunk, wavEncoding, type WavFormat,
} from '../../shared/wav.js';
import { CodedError } from './protocol.js';

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

export async function readWavMono(file: string, options: ReadWavOptions = {}): Promise<MonoWav> {
  const { signal, blockBytes = BLOCK_BYTES } = options;
  const handle = await fs.open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    /** Up to `length` bytes at `position` into `into` (fewer only at the end of the file). */
    const readAt = async (into: Uint8Array, position: number, length: number): Promise<DataView> => {
      let got = 0;
      while (got < length) {
        const { bytesRead } = await handle.read(into, got, length - got, position + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return new DataView(into.buffer, into.byteOffset, got);
    };

    const head = await readAt(new Uint8Array(12), 0, 12);
    if (head.byteLength < 12 || chunkTag(head, 0) !== 'RIFF' || chunkTag(head, 8) !== 'WAVE') throw new AudioFormatError(NOT_WAV);
    // The chunk walk of decodeWav, reading each chunk header (and the format body) from the file.
    let fmt: WavFormat | null = null;
    let dataOffset = -1;
    let dataLength = 0;
    const chunkHeader = new Uint8Array(8);
    for (let offset = 12; offset + 8 <= size; ) {
      const header = await readAt(chunkHeader, offset, 8);
      const id = chunkTag(header, 0);
      const chunkSize = header.getUint32(4, true);
      const body = offset + 8;
      if (id === 'fmt ') {
        const available = size - body;
        const fmtBytes = Math.max(0, Math.min(chunkSize, 40, available));
        fmt = parseFmtChunk(await readAt(new Uint8Array(fmtBytes), body, fmtBytes), 0, chunkSize, available);
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
    const rate = options.sampleRate ?? enc.sampleRate;
    const resampler = rate === enc.sampleRate ? null : new StreamingResampler(enc.sampleRate, rate);
    // floor(frames · rate / file rate), exactly (the product can pass 2^53): what the resampler gives.
    const samples = new Float32Array(Number((BigInt(frames) * BigInt(rate)) / BigInt(enc.sampleRate)));
    const framesPerBlock = Math.max(1, Math.floor(blockBytes / enc.frameBytes));
    const block = new Uint8Array(framesPerBlock * enc.frameBytes);
    const mono = resampler ? new Float32Array(framesPerBlock) : samples;
    let written = 0;
    const result = (cut: boolean): MonoWav => {
      if (resampler) {
        const tail = resampler.flush();
        samples.set(tail.subarray(0, samples.length - written), written);
        written = Math.min(samples.length, written + tail.length);
      }
      return { sampleRate: rate, fileSampleRate: enc.sampleRate, channels: enc.channels, samples: written < samples.length ? samples.subarray(0, written) : samples, truncated: cut };
    };
    for (let first = 0; first < frames; first += framesPerBlock) {
      if (signal?.aborted) throw new CodedError('ABORTED', 'cancelled');
      const count = Math.min(framesPerBlock, frames - first);
      const view = await readAt(block, dataOffset + first * enc.frameBytes, count * enc.frameBytes);
      // The file shrank while being read: keep what was there, like a cut file.
      const got = Math.floor(view.byteLength / enc.frameBytes);
      if (resampler) {
        downmixInto(view, 0, got, enc, mono, 0);
        const out = resampler.process(mono.subarray(0, got));
        samples.set(out, written);
        written += out.length;
      } else {
        downmixInto(view, 0, got, enc, samples, first);
        written = first + got;
      }
      if (got < count) return result(true);
    }
    return result(truncated);
  } finally {
    await handle.close();
  }
}
