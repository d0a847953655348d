// Audio files uploaded by a browser (web mode: a page cannot hand out a path).
// Each upload is written, chunk by chunk and strictly in order, to
// <userData>/uploads/u<id>/<name>.part; when the last byte is on disk it is
// fsynced and renamed to <name> (atomic: a complete file or none), then the
// normal file job runs on it and the folder is removed.
//
// Bounded memory: a client may have at most `windowBytes` sent and not yet
// acknowledged (it waits for each `files:upload` progress event, sent once a
// chunk is written), so the server never holds more than that per upload. An
// upload that breaks a rule (out-of-order offset, too large a chunk, more than
// announced, a window overrun) fails at once and its file is deleted; so does
// one that is cancelled, whose client disconnects, or that stalls.
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileTranscribeOptions, FileTranscript, IpcError, UploadProgress, UploadTicket } from '../../ipc/contract.js';
import { CodedError } from '../../../types/errors.js';
import type { Logger } from '../log.js';
import { DISK_HEADROOM_BYTES, statfsFreeSpace, type FreeSpaceProbe } from '../models/disk-space.js';
import { TypedEmitter } from '../util/typed-emitter.js';

export interface UploadLimits {
  /** Largest file accepted (bytes). */
  maxBytes: number;
  /** Largest chunk (payload bytes of one binary frame). */
  chunkBytes: number;
  /** Bytes a client may send ahead of the acknowledgements. */
  windowBytes: number;
  /** Uploads one client may have open at once (receiving or waiting to be transcribed). */
  perClient: number;
  /** An upload that receives nothing for this long is dropped (ms). */
  stallMs: number;
  /** Announced bytes of all open uploads together (every client): what the folder may be asked to hold. */
  maxOpenBytes: number;
}

/**
 * 4 GB: a WAV's own size field ends there (RF64 aside), and an hour of 48 kHz stereo 24-bit is ~1 GB.
 * 256 KiB chunks × 4 in flight keep a loopback link busy while holding at most 1 MiB per upload.
 */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxBytes: 4_000_000_000,
  chunkBytes: 256 * 1024,
  windowBytes: 1024 * 1024,
  perClient: 2,
  stallMs: 60_000,
  maxOpenBytes: 8_000_000_000,
};

type UploadState = 'receiving' | 'complete' | 'transcribing' | 'closed';

interface Upload {
  id: number;
  owner: string;
  name: string;
  dir: string;
  partPath: string;
  finalPath: string;
  sizeBytes: number;
  /** Bytes accepted (queued for writing), so the next chunk's offset must equal it. */
  acceptedBytes: number;
  /** Bytes on disk. */
  writtenBytes: number;
  state: UploadState;
  file: FileHandle | null;
  writes: Promise<void>;
  stallTimer: NodeJS.Timeout | null;
}

export interface UploadEvents {
  /** For the owner only (the bridge sends it on that client's socket). */
  progress: [owner: string, progress: UploadProgress];
}

/** A file name safe to create: the base name only, no control or path characters, bounded; the extension kept. */
export function safeUploadName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  let name = base.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_').replace(/^[.\s]+/, '').trim();
  if (name.length > 120) {
    const ext = /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0] ?? '';
    name = name.slice(0, 120 - ext.length) + ext;
  }
  return name || 'upload';
}

export class UploadStore extends TypedEmitter<UploadEvents> {
  private readonly uploads = new Map<number, Upload>();
  private nextId = 1;
  readonly limits: UploadLimits;

  private constructor(readonly dir: string, private readonly log: Logger, limits: Partial<UploadLimits>, private readonly freeSpace: FreeSpaceProbe) {
    super();
    this.limits = { ...DEFAULT_UPLOAD_LIMITS, ...limits };
  }

  /** The folder is emptied first: what a previous run left (it crashed mid-upload) is nobody's. */
  static async open(dir: string, log: Logger, limits: Partial<UploadLimits> = {}, freeSpace: FreeSpaceProbe = statfsFreeSpace): Promise<UploadStore> {
    await rm(dir, { recursive: true, force: true }).catch((error: unknown) => log.warn('cannot clear the uploads folder', error));
    await mkdir(dir, { recursive: true });
    return new UploadStore(dir, log, limits, freeSpace);
  }

  /** Uploads open now (tests, diagnostics). */
  get open(): number {
    return this.uploads.size;
  }

  async begin(owner: string, request: { name: string; sizeBytes: number }): Promise<UploadTicket> {
    const { maxBytes, perClient, chunkBytes, windowBytes } = this.limits;
    if (request.sizeBytes <= 0) throw new CodedError('BAD_AUDIO', `${request.name} is empty (0 bytes); nothing was recorded into it.`);
    if (request.sizeBytes > maxBytes) {
      throw new CodedError('BAD_ARGUMENT', `${request.name} is ${formatBytes(request.sizeBytes)}; uploads are limited to ${formatBytes(maxBytes)}. ` +
        'Cut it into parts, or run the desktop app, which reads files in place.');
    }
    const mine = [...this.uploads.values()].filter((u) => u.owner === owner).length;
    if (mine >= perClient) throw new CodedError('BUSY', `${perClient} uploads are already open in this window; wait for one to finish or cancel it.`);
    // Room on the disk for what every open upload still has to write, and this one: asked first, then
    // counted and registered without another await, so two begins cannot both take the same space.
    const free = await this.freeSpace(this.dir);
    const underWay = [...this.uploads.values()];
    const announced = underWay.reduce((sum, u) => sum + u.sizeBytes, 0);
    if (announced + request.sizeBytes > this.limits.maxOpenBytes) {
      throw new CodedError('BUSY', `Uploads of ${formatBytes(announced)} are already under way, and ${request.name} (${formatBytes(request.sizeBytes)}) ` +
        `would take them past ${formatBytes(this.limits.maxOpenBytes)}. Wait for one to finish, or run the desktop app, which reads files in place.`);
    }
    const toCome = underWay.reduce((sum, u) => sum + (u.state === 'receiving' ? u.sizeBytes - u.writtenBytes : 0), 0);
    if (free !== null && free < toCome + request.sizeBytes + DISK_HEADROOM_BYTES) {
      throw new CodedError('DISK_FULL', `${request.name} (${formatBytes(request.sizeBytes)}) does not fit: ${formatBytes(free)} are free in ${this.dir}` +
        (toCome > 0 ? `, and uploads under way still need ${formatBytes(toCome)}` : '') + '. Free some disk space and upload it again.');
    }
    const id = this.nextId++;
    const name = safeUploadName(request.name);
    const dir = path.join(this.dir, `u${id}`);
    const upload: Upload = {
      id, owner, name, dir,
      partPath: path.join(dir, `${name}.part`),
      finalPath: path.join(dir, name),
      sizeBytes: request.sizeBytes,
      acceptedBytes: 0,
      writtenBytes: 0,
      state: 'receiving',
      file: null,
      writes: Promise.resolve(),
      stallTimer: null,
    };
    // Counted from now on (the checks above of a begin that runs meanwhile see it).
    this.uploads.set(id, upload);
    try {
      await mkdir(dir, { recursive: true });
      upload.file = await open(upload.partPath, 'wx');
    } catch (error) {
      this.uploads.delete(id);
      await rm(dir, { recursive: true, force: true });
      throw new CodedError('IO_ERROR', `The upload could not be stored in ${this.dir}: ${(error as Error).message}`);
    }
    this.armStall(upload);
    this.log.info(`upload u${id} (${name}, ${request.sizeBytes} bytes) started for ${owner}`);
    return { uploadId: id, path: upload.finalPath, chunkBytes, windowBytes, maxBytes };
  }

  /**
   * One chunk from the bridge (synchronous: it queues the write). A chunk for an upload this client does not
   * own is ignored (to it, the upload does not exist); a chunk that breaks the rules fails the upload.
   */
  chunk(owner: string, uploadId: number, offset: number, bytes: Uint8Array): void {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.owner !== owner) {
      this.log.warn(`${owner}: a chunk for upload u${uploadId}, which it does not have`);
      return;
    }
    if (upload.state !== 'receiving') return this.fail(upload, 'UPLOAD_FAILED', 'a chunk arrived after the upload was complete');
    if (offset !== upload.acceptedBytes) {
      return this.fail(upload, 'UPLOAD_FAILED', `a chunk for byte ${offset} arrived where byte ${upload.acceptedBytes} was expected (chunks must come in order)`);
    }
    if (bytes.byteLength === 0 || bytes.byteLength > this.limits.chunkBytes) {
      return this.fail(upload, 'UPLOAD_FAILED', `a chunk of ${bytes.byteLength} bytes (1 to ${this.limits.chunkBytes} allowed)`);
    }
    if (offset + bytes.byteLength > upload.sizeBytes) {
      return this.fail(upload, 'UPLOAD_FAILED', `more bytes than the ${upload.sizeBytes} announced`);
    }
    if (upload.acceptedBytes + bytes.byteLength - upload.writtenBytes > this.limits.windowBytes) {
      return this.fail(upload, 'UPLOAD_FAILED', `more than ${this.limits.windowBytes} bytes sent ahead of the acknowledgements`);
    }
    upload.acceptedBytes += bytes.byteLength;
    this.armStall(upload);
    // The frame's buffer is kept only until its write is done (bounded by the window above).
    const data = bytes;
    upload.writes = upload.writes.then(async () => {
      if (upload.state !== 'receiving' || !upload.file) return;
      let written = 0;
      while (written < data.byteLength) {
        const { bytesWritten } = await upload.file.write(data, written, data.byteLength - written, offset + written);
        written += bytesWritten;
      }
      upload.writtenBytes += data.byteLength;
      if (upload.writtenBytes === upload.sizeBytes) await this.complete(upload);
      // Read again after the awaits: a cancel or disconnect may have closed it meanwhile.
      const state = upload.state as UploadState;
      if (state === 'closed') return;
      this.emit('progress', upload.owner, { uploadId: upload.id, receivedBytes: upload.writtenBytes, sizeBytes: upload.sizeBytes, done: state === 'complete' });
    }).catch((error: unknown) => {
      if (upload.state === 'closed') return;
      const code = (error as NodeJS.ErrnoException).code === 'ENOSPC' ? 'DISK_FULL' : 'IO_ERROR';
      this.fail(upload, code, `the file could not be written (${(error as Error).message})`);
    });
  }

  /** fsync, close, rename: the file exists under its own name only once every byte is on disk. */
  private async complete(upload: Upload): Promise<void> {
    const file = upload.file!;
    upload.file = null;
    await file.sync();
    await file.close();
    await rename(upload.partPath, upload.finalPath);
    upload.state = 'complete';
    this.armStall(upload); // a complete upload nobody transcribes is dropped as well
    this.log.info(`upload u${upload.id} complete (${upload.sizeBytes} bytes)`);
  }

  /** Runs the normal file job on a complete upload; the file is deleted when the job ends, however it ends. */
  async transcribe(
    owner: string,
    uploadId: number,
    run: (path: string, options?: FileTranscribeOptions) => Promise<FileTranscript>,
    options?: FileTranscribeOptions,
  ): Promise<FileTranscript> {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.owner !== owner) throw new CodedError('NOT_FOUND', `There is no upload ${uploadId}; upload the file again.`);
    if (upload.state !== 'complete') {
      throw new CodedError('BAD_ARGUMENT', `Upload ${uploadId} has ${upload.writtenBytes} of ${upload.sizeBytes} bytes; it can be transcribed once all have arrived.`);
    }
    upload.state = 'transcribing';
    this.clearStall(upload);
    try {
      return await run(upload.finalPath, options);
    } finally {
      await this.remove(upload);
    }
  }

  /** The client cancelled: the upload's file is deleted (a running transcription is cancelled through its job). */
  async cancel(owner: string, uploadId: number): Promise<void> {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.owner !== owner || upload.state === 'transcribing') return;
    this.log.info(`upload u${uploadId} cancelled`);
    await this.remove(upload);
  }

  /** The client went away: its uploads that are not being transcribed go. */
  async dropOwner(owner: string): Promise<void> {
    const mine = [...this.uploads.values()].filter((u) => u.owner === owner && u.state !== 'transcribing');
    await Promise.all(mine.map((u) => this.remove(u)));
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.uploads.values()].map((u) => this.remove(u)));
  }

  private fail(upload: Upload, code: string, why: string): void {
    if (upload.state === 'closed') return;
    const error: IpcError = { code, message: `The upload of ${upload.name} stopped: ${why}. Nothing was kept; try again.` };
    this.log.warn(`upload u${upload.id}: ${why}`);
    const { owner } = upload;
    void this.remove(upload).finally(() => {
      this.emit('progress', owner, { uploadId: upload.id, receivedBytes: upload.writtenBytes, sizeBytes: upload.sizeBytes, done: false, error });
    });
  }

  private async remove(upload: Upload): Promise<void> {
    if (upload.state === 'closed' && !this.uploads.has(upload.id)) return;
    upload.state = 'closed';
    this.clearStall(upload);
    this.uploads.delete(upload.id);
    const file = upload.file;
    upload.file = null;
    // A write in flight finishes (or fails) first; then the handle is closed and the folder removed.
    await upload.writes.catch(() => undefined);
    await file?.close().catch(() => undefined);
    await rm(upload.dir, { recursive: true, force: true }).catch((error: unknown) => this.log.warn(`cannot remove ${upload.dir}`, error));
  }

  private armStall(upload: Upload): void {
    this.clearStall(upload);
    upload.stallTimer = setTimeout(() => {
      if (upload.state === 'receiving') this.fail(upload, 'UPLOAD_FAILED', `nothing arrived for ${Math.round(this.limits.stallMs / 1000)} s`);
      else if (upload.state === 'complete') void this.remove(upload);
    }, this.limits.stallMs);
    upload.stallTimer.unref();
  }

  private clearStall(upload: Upload): void {
    if (upload.stallTimer) clearTimeout(upload.stallTimer);
    upload.stallTimer = null;
  }
}

function formatBytes(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${n} bytes`;
}
