// Download jobs: queue → transfer (verified .partial) → engine validation →
// atomic rename into the models folder → installed index. A job's state is
// persisted next to its .partial so pause, failures and app restarts resume
// from the bytes already on disk. "Installed" means verified AND validated.
// A run that stopped between the rename and the index (a crash, a failed
// index write) leaves the finished file unlisted: the next run adopts it when
// its size and sha256 are the ones persisted, after the engine validates it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { licenseInfo, type CatalogEntry } from './catalog.js';
import type { FreeSpaceProbe } from './disk-space.js';
import { DownloadQueue } from './download-queue.js';
import { ModelError, errorMessage, isModelError } from './errors.js';
import { fileSize, fsyncDir, sha256File, type OpenWritable } from './file-io.js';
import type { HttpClient } from './http-client.js';
import type { InstalledIndex } from './installed-index.js';
import type { PartialStore, PersistedDownload, PersistedStatus } from './partial-store.js';
import { ProgressMeter } from './progress-meter.js';
import type { RetryOptions } from './retry.js';
import { runTransfer, type TransferResult } from './transfer.js';
import type {
  DownloadProgress,
  DownloadSnapshot,
  DownloadState,
  ErrorInfo,
  InstalledModel,
  ValidateModel,
  ValidatedModelInfo,
} from './types.js';
import type { HostPolicy } from './url-policy.js';

/** Why a running job was stopped on purpose (the AbortSignal's reason). */
class StopRequest {
  constructor(readonly kind: 'pause' | 'cancel' | 'shutdown') {}
}

/** The engine refused the file (carried through the catch below). */
class EngineRefusal {
  constructor(readonly info: ErrorInfo) {}
}

export interface DownloaderDeps {
  modelsDir: string;
  store: PartialStore;
  index: InstalledIndex;
  http: HttpClient;
  /** Current host policy and download URL (they follow the mirror setting). */
  policy: () => HostPolicy;
  urlFor: (entry: CatalogEntry) => string;
  validateModel: ValidateModel;
  freeSpace: FreeSpaceProbe;
  openWritable: OpenWritable;
  retry: RetryOptions;
  requireHash: boolean;
  maxConcurrent: number;
  progressIntervalMs: number;
  onState: (s: DownloadSnapshot) => void;
  onProgress: (p: DownloadProgress) => void;
  onWarning: (w: { id: string; message: string }) => void;
  onInstalled: (m: InstalledModel) => void;
}

interface Job {
  entry: CatalogEntry;
  state: DownloadState;
  received: number;
  total: number | null;
  hashSource: 'catalog' | 'server' | null;
  error: ErrorInfo | null;
  controller: AbortController | null;
  meter: ProgressMeter;
  retrying?: DownloadSnapshot['retrying'];
}

const SETTLED: ReadonlySet<DownloadState> = new Set(['installed', 'failed', 'cancelled', 'paused']);

/** Errors after which the bytes on disk are worthless (re-downloading gives new ones). */
function discardsPartial(e: ErrorInfo): boolean {
  if (e.code === 'HASH_MISMATCH' || e.code === 'SIZE_MISMATCH' || e.code === 'MODEL_INVALID') return true;
  if (e.code === 'HTTP_STATUS') {
    const status = e.details?.status ?? 0;
    return status >= 400 && status < 500 && status !== 408 && status !== 429;
  }
  return false;
}

export function errorInfo(e: unknown): ErrorInfo {
  if (isModelError(e)) return { code: e.code, message: e.message, details: e.details };
  const code =
    typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string'
      ? (e as { code: string }).code
      : 'IO_ERROR';
  return { code, message: errorMessage(e) };
}

/**
 * The engine's refusal, passed through: MODEL_INVALID (or an error without a
 * code) means the file is bad. Other engine codes (OUT_OF_MEMORY, BUSY, …)
 * say nothing about the file and keep the verified bytes for a retry.
 */
export function engineError(e: unknown): ErrorInfo {
  const info = errorInfo(e);
  if (info.code === 'IO_ERROR' || info.code === 'MODEL_INVALID') {
    return { code: 'MODEL_INVALID', message: info.message };
  }
  return info;
}

export class Downloader {
  private readonly jobs = new Map<string, Job>();
  private readonly queue: DownloadQueue;
  private readonly waiters = new Map<string, Array<(s: DownloadSnapshot) => void>>();
  private readonly enqueuing = new Map<string, Promise<DownloadSnapshot>>();
  private disposed = false;

  constructor(private readonly deps: DownloaderDeps) {
    this.queue = new DownloadQueue(deps.maxConcurrent, (id) => this.run(id));
  }

  snapshot(id: string): DownloadSnapshot | undefined {
    const job = this.jobs.get(id);
    return job ? this.snap(job) : undefined;
  }

  list(): DownloadSnapshot[] {
    return [...this.jobs.values()].map((j) => this.snap(j));
  }

  private snap(job: Job): DownloadSnapshot {
    return {
      id: job.entry.id,
      file: job.entry.file,
      state: job.state,
      receivedBytes: job.received,
      totalBytes: job.total,
      hashSource: job.hashSource,
      error: job.error,
      retrying: job.state === 'downloading' ? job.retrying ?? null : null,
    };
  }

  /**
   * A failure as the user reads it: the model's own file in the models folder, never the internal
   * `.downloads/<file>.partial` the bytes go to first (the engine's and the file system's messages name it).
   */
  private shownError(error: ErrorInfo, file: string): ErrorInfo {
    const { store, modelsDir } = this.deps;
    const finalPath = path.join(modelsDir, file);
    const message = error.message
      .split(store.statePath(file)).join(finalPath)
      .split(store.partialPath(file)).join(finalPath)
      .split(store.dir).join(modelsDir)
      .split(`${file}.partial`).join(file);
    return message === error.message ? error : { ...error, message };
  }

  private setState(job: Job, state: DownloadState, error: ErrorInfo | null = null): void {
    job.state = state;
    job.error = error && this.shownError(error, job.entry.file);
    const s = this.snap(job);
    this.deps.onState(s);
    if (SETTLED.has(state)) {
      const ws = this.waiters.get(job.entry.id) ?? [];
      this.waiters.delete(job.entry.id);
      for (const w of ws) w(s);
    }
  }

  /** Resolves at the next settled state (installed, failed, cancelled, paused). */
  waitForSettled(id: string): Promise<DownloadSnapshot> {
    const job = this.jobs.get(id);
    if (!job) return Promise.reject(new ModelError('UNKNOWN_MODEL', `No download ${id}.`));
    if (SETTLED.has(job.state)) return Promise.resolve(this.snap(job));
    return new Promise((resolve) => {
      const ws = this.waiters.get(id) ?? [];
      ws.push(resolve);
      this.waiters.set(id, ws);
    });
  }

  private newJob(entry: CatalogEntry, state: DownloadState, received = 0, total: number | null = null): Job {
    const job: Job = {
      entry,
      state,
      received,
      total: total ?? entry.approxBytes,
      hashSource: entry.sha256 ? 'catalog' : null,
      error: null,
      controller: null,
      meter: new ProgressMeter(entry.id, this.deps.progressIntervalMs),
    };
    this.jobs.set(entry.id, job);
    return job;
  }

  private async persistStatus(job: Job, status: PersistedStatus, error: ErrorInfo | null = null): Promise<void> {
    const existing = await this.deps.store.load(job.entry.file);
    const state: PersistedDownload = existing ?? {
      version: 1,
      id: job.entry.id,
      file: job.entry.file,
      url: this.deps.urlFor(job.entry),
      expectedBytes: null,
      expectedSha256: null,
      hashSource: null,
      etag: null,
      lastModified: null,
      status,
      error: null,
      updatedAt: '',
    };
    await this.deps.store.save({ ...state, status, error });
  }

  /** Queue a download (or resume a paused/failed one). */
  enqueue(entry: CatalogEntry): Promise<DownloadSnapshot> {
    // Two quick clicks must not create two jobs for one file.
    const pending = this.enqueuing.get(entry.id);
    if (pending) return pending;
    const p = this.doEnqueue(entry).finally(() => this.enqueuing.delete(entry.id));
    this.enqueuing.set(entry.id, p);
    return p;
  }

  private async doEnqueue(entry: CatalogEntry): Promise<DownloadSnapshot> {
    if (this.disposed) throw new ModelError('CANCELLED', 'The model manager is shutting down.');
    let job = this.jobs.get(entry.id);
    if (job && !SETTLED.has(job.state)) return this.snap(job); // already queued or running
    if (!(await this.deps.store.load(entry.file))) {
      // Bytes without a state file have unknown origin: never reuse them.
      await this.deps.store.truncate(entry.file);
    }
    const received = await this.deps.store.partialBytes(entry.file);
    job ??= this.newJob(entry, 'queued');
    job.received = received;
    job.controller = null;
    await this.persistStatus(job, 'queued');
    this.setState(job, 'queued');
    this.queue.enqueue(entry.id);
    return this.snap(job);
  }

  async pause(id: string): Promise<DownloadSnapshot | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (job.state === 'queued' && this.queue.remove(id)) {
      await this.persistStatus(job, 'paused');
      this.setState(job, 'paused');
    } else if (job.state === 'downloading') {
      job.controller?.abort(new StopRequest('pause'));
      await this.waitForSettled(id);
    }
    // verifying/validating: nearly done, a pause would only throw work away.
    return this.snap(job);
  }

  async cancel(id: string): Promise<DownloadSnapshot | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (job.controller) {
      job.controller.abort(new StopRequest('cancel'));
      await this.waitForSettled(id);
      return this.snap(job);
    }
    if (job.state === 'installed' || job.state === 'cancelled') return this.snap(job);
    this.queue.remove(id);
    await this.deps.store.remove(job.entry.file);
    job.received = 0;
    this.setState(job, 'cancelled');
    return this.snap(job);
  }

  /**
   * On start-up: bring back every download persisted by an earlier run.
   * Queued ones (including those running when the app quit or crashed) start
   * again from their .partial; paused and failed ones wait for the user.
   */
  async resumePending(lookup: (id: string) => CatalogEntry | undefined): Promise<DownloadSnapshot[]> {
    const out: DownloadSnapshot[] = [];
    for (const p of await this.deps.store.list()) {
      const entry = lookup(p.id);
      if (!entry || entry.file !== p.file || this.deps.index.get(p.id)) {
        // Unknown to this catalog, or finished just before a crash: nothing to resume.
        await this.deps.store.remove(p.file);
        continue;
      }
      if (this.jobs.has(entry.id)) continue;
      const received = await this.deps.store.partialBytes(p.file);
      // A finished file left unlisted (see the header) is taken up whatever the status said.
      if (p.status === 'queued' || (await this.finishedFileSize(entry, p)) !== null) {
        const job = this.newJob(entry, 'queued', received, p.expectedBytes);
        this.setState(job, 'queued');
        this.queue.enqueue(entry.id);
        out.push(this.snap(job));
      } else {
        const job = this.newJob(entry, p.status, received, p.expectedBytes);
        job.error = p.error;
        out.push(this.snap(job));
        this.deps.onState(this.snap(job));
      }
    }
    return out;
  }

  /** Stop transfers without losing them: the next start resumes them. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const job of this.jobs.values()) job.controller?.abort(new StopRequest('shutdown'));
    await this.queue.drain();
  }

  private async run(id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job || job.state !== 'queued' || this.disposed) return;
    const controller = new AbortController();
    job.controller = controller;
    const { deps } = this;
    const entry = job.entry;
    this.setState(job, 'downloading');
    const finalPath = path.join(deps.modelsDir, entry.file);
    /** The file is at its final path (renamed there, or adopted from an earlier run), not yet listed. */
    let inPlace = false;
    try {
      const adopted = await this.adoptFinishedFile(job, controller.signal);
      const result = adopted ?? await runTransfer({
        id,
        file: entry.file,
        url: deps.urlFor(entry),
        catalogSha256: entry.sha256,
        catalogApproxBytes: entry.approxBytes,
        store: deps.store,
        http: deps.http,
        policy: deps.policy(),
        freeSpace: deps.freeSpace,
        openWritable: deps.openWritable,
        retry: deps.retry,
        requireHash: deps.requireHash,
        signal: controller.signal,
        onPhase: (phase) => {
          if (job.state !== phase) this.setState(job, phase);
        },
        onRetry: (retry) => {
          job.retrying = retry ? { attempt: retry.attempt, of: retry.of, at: Date.now() + retry.delayMs, reason: retry.reason } : null;
          if (job.state === 'downloading') this.deps.onState(this.snap(job));
        },
        onProgress: (received, total, restarted) => {
          if (job.retrying) {
            job.retrying = null;
            this.deps.onState(this.snap(job));
          }
          job.received = received;
          job.total = total;
          if (restarted) job.meter.reset(received);
          const p = restarted ? job.meter.flush(received, total) : job.meter.update(received, total);
          if (p) deps.onProgress(p);
        },
        onExpectations: (total, hashSource) => {
          job.total = total;
          job.hashSource = hashSource;
        },
        onWarning: (message) => deps.onWarning({ id, message }),
      });
      if (controller.signal.aborted) throw controller.signal.reason;

      this.setState(job, 'validating');
      let info: ValidatedModelInfo;
      try {
        info = await deps.validateModel(result.partialPath, controller.signal);
      } catch (e) {
        if (controller.signal.aborted) throw controller.signal.reason;
        const refusal = engineError(e);
        // An adopted file the engine refuses is discarded like a refused download.
        if (adopted && discardsPartial(refusal)) await fs.rm(finalPath, { force: true });
        // A sentinel caught by this job's own handler below (it carries the engine's ErrorInfo), never rethrown.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw new EngineRefusal(refusal);
      }
      if (controller.signal.aborted) throw controller.signal.reason;

      // Install: rename (atomic, same file system), make it durable, then list it.
      if (!adopted) {
        await fs.rename(result.partialPath, finalPath);
        await fsyncDir(deps.modelsDir);
      }
      inPlace = true;
      const model: InstalledModel = {
        id: entry.id,
        displayName: `${entry.displayName} · ${entry.variant.toUpperCase()}`,
        file: entry.file,
        bytes: result.bytes,
        sha256: result.sha256,
        source: { kind: 'catalog', catalogId: entry.id },
        architecture: info.architecture,
        decoders: info.decoders,
        variant: entry.variant,
        license: licenseInfo(entry.license),
        installedAt: new Date().toISOString(),
      };
      await deps.index.upsert(model);
      await deps.store.remove(entry.file);
      job.received = result.bytes;
      job.total = result.bytes;
      deps.onProgress(job.meter.flush(result.bytes, result.bytes));
      this.setState(job, 'installed');
      deps.onInstalled(model);
    } catch (e) {
      await this.settleFailure(job, e, controller.signal, inPlace);
    } finally {
      job.controller = null;
    }
  }

  /** Size of the file at the model's final path when it is the persisted expectation's size (else null). */
  private async finishedFileSize(entry: CatalogEntry, persisted: PersistedDownload | undefined): Promise<number | null> {
    const expectedSha256 = entry.sha256 ?? persisted?.expectedSha256 ?? null;
    if (!expectedSha256) return null; // nothing could vouch for the bytes
    const expectedBytes = persisted?.expectedBytes ?? null;
    const size = await fileSize(path.join(this.deps.modelsDir, entry.file)).catch(() => null);
    if (size === null || (expectedBytes !== null && size !== expectedBytes)) return null;
    return size;
  }

  /**
   * The verified file an earlier run renamed into place but never listed, as a transfer result, when its
   * size and sha256 are the expected ones; it then goes through the engine's validation like a download.
   */
  private async adoptFinishedFile(job: Job, signal: AbortSignal): Promise<TransferResult | null> {
    const { entry } = job;
    if (this.deps.index.get(entry.id)) return null;
    const persisted = await this.deps.store.load(entry.file);
    if ((await this.finishedFileSize(entry, persisted)) === null) return null;
    const finalPath = path.join(this.deps.modelsDir, entry.file);
    this.setState(job, 'verifying');
    const { sha256, bytes } = await sha256File(finalPath, signal);
    const expected = (entry.sha256 ?? persisted?.expectedSha256 ?? '').toLowerCase();
    if (sha256 !== expected) {
      this.deps.onWarning({ id: entry.id, message: `${entry.file}: the file in the models folder is not the expected one; downloading it again.` });
      return null;
    }
    job.received = bytes;
    job.total = bytes;
    job.hashSource = entry.sha256 ? 'catalog' : persisted?.hashSource ?? 'server';
    return { partialPath: finalPath, bytes, sha256, hashSource: job.hashSource };
  }

  private async settleFailure(job: Job, e: unknown, signal: AbortSignal, inPlace = false): Promise<void> {
    const stop = e instanceof StopRequest ? e : signal.reason instanceof StopRequest ? signal.reason : null;
    const file = job.entry.file;
    try {
      if (stop?.kind === 'shutdown') return; // leave the persisted state as it is: resumed on next start
      if (inPlace && !stop) {
        // The file is in place but could not be listed: keep what identifies it, so a retry or the next
        // start adopts it instead of downloading it again.
        const info = isModelError(e) ? errorInfo(e) : errorInfo(fsFailure(e));
        await this.persistStatus(job, 'failed', info);
        this.setState(job, 'failed', info);
        return;
      }
      if (stop?.kind === 'pause') {
        job.received = await this.deps.store.partialBytes(file);
        await this.persistStatus(job, 'paused');
        this.setState(job, 'paused');
        return;
      }
      if (stop?.kind === 'cancel') {
        await this.deps.store.remove(file);
        job.received = 0;
        this.setState(job, 'cancelled');
        return;
      }
      const info =
        e instanceof EngineRefusal ? e.info : isModelError(e) ? errorInfo(e) : errorInfo(fsFailure(e));
      if (discardsPartial(info)) {
        await this.deps.store.remove(file);
        job.received = 0;
      } else {
        job.received = await this.deps.store.partialBytes(file);
        if (job.received > 0) await this.persistStatus(job, 'failed', info);
        else await this.deps.store.remove(file);
      }
      this.setState(job, 'failed', info);
    } catch (cleanupError) {
      // Even if cleanup fails the job must settle, or waiters hang forever.
      this.setState(job, 'failed', errorInfo(cleanupError));
    }
  }
}

function fsFailure(e: unknown): ModelError {
  return new ModelError('IO_ERROR', `A file operation failed: ${errorMessage(e)}`, {}, { cause: e });
}
