// One meeting track on disk as it arrives: a 16-bit PCM mono WAV whose header
// is fixed up at every sync. Why WAV/PCM16 and not Ogg/Opus or FLAC: any tool
// opens it, the engine's own reader (app/engine-process/wav-file.ts) re-transcribes it as
// is, and a crash can only leave two things wrong — the two size fields (the
// last fix-up's values) and possibly half a sample at the end — both repaired
// from the file's length alone (repairWav). Compressed frames would need an
// encoder on the main thread and a parser to find the last whole frame, for a
// size gain (≈ 115 MB per track-hour here) that is not the problem to solve.
// Float32 WAV would keep the exact samples the engine decoded, at twice the
// size; 16 bits are what every capture path delivers anyway.
//
// Memory: samples wait in `pending` until the next sync (`syncIntervalMs`,
// default 1 s), then go out in one write followed by the header fix-up and
// one fdatasync; while a sync runs, new samples queue behind it. When the disk
// stalls, pending is capped (`maxPendingSec`): older samples are dropped and
// counted, never held without bound (the transcript still gets them: the
// journal is the only thing that loses them, and says so in `droppedSamples`).
import fs from 'node:fs/promises';
import { writeAll } from '../util/write-all.js';

export const WAV_HEADER_BYTES = 44;
const BYTES_PER_SAMPLE = 2;
/** RIFF sizes are 32-bit: 16 kHz PCM16 mono fills them after ~37 h, past the engine's 24 h limit. */
const MAX_DATA_BYTES = 0xffff_ffff - 36;

export interface WavJournalOptions {
  sampleRate: number;
  /** How long samples may wait in memory before they are written and fdatasync'ed (ms). */
  syncIntervalMs?: number;
  /** Most seconds held while the disk does not keep up; older pending samples are dropped past it. */
  maxPendingSec?: number;
  /** The clock of the sync timer (tests drive it by calling sync()). */
  autoSync?: boolean;
  /** Called once, at the first write that fails (a full disk): the journal keeps what was durable and stops. */
  onError?: (error: Error) => void;
}

/** A canonical 44-byte PCM16 mono header for `dataBytes` of samples. */
export function wavHeader(sampleRate: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * BYTES_PER_SAMPLE, 28);
  h.writeUInt16LE(BYTES_PER_SAMPLE, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** Float samples to PCM16 little-endian (clipped; NaN as 0). */
export function toPcm16(samples: Float32Array): Buffer {
  const out = Buffer.alloc(samples.length * BYTES_PER_SAMPLE);
  for (let i = 0; i < samples.length; i += 1) {
    const s = samples[i]!;
    const v = s >= 1 ? 32767 : s <= -1 ? -32768 : Number.isNaN(s) ? 0 : Math.round(s * 32767);
    out.writeInt16LE(v, i * BYTES_PER_SAMPLE);
  }
  return out;
}

export class WavJournalWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of samples on disk (after the header). */
  private written = 0;
  private syncing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private failure: Error | null = null;
  /** Samples dropped because the disk did not keep up (maxPendingSec) or failed. */
  droppedSamples = 0;
  /** Samples appended (written + pending + dropped). */
  appendedSamples = 0;

  private constructor(readonly file: string, private readonly handle: fs.FileHandle, private readonly opts: Required<Omit<WavJournalOptions, 'onError'>> & Pick<WavJournalOptions, 'onError'>) {}

  /** Creates the file (it must not exist) with a header for 0 samples, durably. */
  static async create(file: string, options: WavJournalOptions): Promise<WavJournalWriter> {
    const opts = { syncIntervalMs: 1000, maxPendingSec: 30, autoSync: true, ...options };
    const handle = await fs.open(file, 'wx');
    try {
      await handle.write(wavHeader(opts.sampleRate, 0), 0, WAV_HEADER_BYTES, 0);
      await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    const writer = new WavJournalWriter(file, handle, opts);
    if (opts.autoSync) {
      writer.timer = setInterval(() => void writer.sync().catch(() => undefined), opts.syncIntervalMs);
      writer.timer.unref();
    }
    return writer;
  }

  /** Samples on disk, fdatasync'ed. */
  get durableSamples(): number {
    return this.written / BYTES_PER_SAMPLE;
  }

  /** Bytes waiting for the next sync (bounded by maxPendingSec). */
  get pendingMemoryBytes(): number {
    return this.pendingBytes;
  }

  /** The first write error, if any (the journal stops writing; the meeting goes on). */
  get error(): Error | null {
    return this.failure;
  }

  append(samples: Float32Array): void {
    if (this.closed || samples.length === 0) return;
    this.appendedSamples += samples.length;
    if (this.failure || this.written + this.pendingBytes >= MAX_DATA_BYTES) {
      this.droppedSamples += samples.length;
      return;
    }
    const bytes = toPcm16(samples);
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    const cap = this.opts.maxPendingSec * this.opts.sampleRate * BYTES_PER_SAMPLE;
    while (this.pendingBytes > cap && this.pending.length > 1) {
      const old = this.pending.shift()!;
      this.pendingBytes -= old.length;
      this.droppedSamples += old.length / BYTES_PER_SAMPLE;
    }
  }

  /** Writes what is pending, fixes the header's sizes and fdatasyncs; one at a time (calls join the running one and then run again). */
  async sync(): Promise<void> {
    while (this.syncing) await this.syncing;
    if (this.pendingBytes === 0 || this.failure) return;
    this.syncing = this.writePending().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async writePending(): Promise<void> {
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    try {
      await writeAll(this.handle, chunk, WAV_HEADER_BYTES + this.written);
      const sizes = wavHeader(this.opts.sampleRate, this.written + chunk.length);
      // Only the two size fields change: RIFF size at 4, data size at 40.
      await this.handle.write(sizes, 4, 4, 4);
      await this.handle.write(sizes, 40, 4, 40);
      await this.handle.datasync();
      this.written += chunk.length;
    } catch (error) {
      this.failure = error as Error;
      this.droppedSamples += chunk.length / BYTES_PER_SAMPLE;
      // A write cut short leaves bytes past what the header counts: cut back to it, so the file's length
      // and its header agree on what was kept (best effort: the disk is failing).
      await this.handle.truncate(WAV_HEADER_BYTES + this.written).catch(() => undefined);
      await this.handle.write(wavHeader(this.opts.sampleRate, this.written), 4, 4, 4).catch(() => undefined);
      await this.handle.write(wavHeader(this.opts.sampleRate, this.written), 40, 4, 40).catch(() => undefined);
      this.opts.onError?.(this.failure);
      throw error;
    }
  }

  /** Writes everything, fixes the header for the last time and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      await this.sync().catch(() => undefined);
    } finally {
      this.closed = true;
      await this.handle.close();
    }
  }
}

export interface RepairResult {
  /** Samples in the file after the repair. */
  samples: number;
  sampleRate: number;
  /** The header said something else than the file's length (a crash before the last fix-up). */
  headerFixed: boolean;
  /** Bytes of a torn last sample cut off. */
  truncatedBytes: number;
}

/**
 * Makes a journal left behind by a crash a valid WAV again: the sizes from the file's length, a torn
 * last sample dropped. A file that is not one of our journals (another header) is refused, not touched.
 */
export async function repairWav(file: string): Promise<RepairResult> {
  const handle = await fs.open(file, 'r+');
  try {
    const { size } = await handle.stat();
    const header = Buffer.alloc(WAV_HEADER_BYTES);
    const { bytesRead } = await handle.read(header, 0, WAV_HEADER_BYTES, 0);
    if (bytesRead < WAV_HEADER_BYTES || header.toString('latin1', 0, 4) !== 'RIFF' || header.toString('latin1', 8, 16) !== 'WAVEfmt ' ||
      header.readUInt16LE(20) !== 1 || header.readUInt16LE(22) !== 1 || header.readUInt16LE(34) !== 16 ||
      header.toString('latin1', 36, 40) !== 'data') {
      throw new Error(`${file} is not a meeting track journal (expected a 16-bit mono PCM WAV header)`);
    }
    const sampleRate = header.readUInt32LE(24);
    const available = Math.min(size - WAV_HEADER_BYTES, MAX_DATA_BYTES);
    const dataBytes = available - (available % BYTES_PER_SAMPLE);
    const truncatedBytes = size - WAV_HEADER_BYTES - dataBytes;
    const headerFixed = header.readUInt32LE(40) !== dataBytes || header.readUInt32LE(4) !== 36 + dataBytes;
    if (truncatedBytes > 0) await handle.truncate(WAV_HEADER_BYTES + dataBytes);
    if (headerFixed) {
      const sizes = wavHeader(sampleRate, dataBytes);
      await handle.write(sizes, 4, 4, 4);
      await handle.write(sizes, 40, 4, 40);
    }
    if (headerFixed || truncatedBytes > 0) await handle.datasync();
    return { samples: dataBytes / BYTES_PER_SAMPLE, sampleRate, headerFixed, truncatedBytes };
  } finally {
    await handle.close();
  }
}
