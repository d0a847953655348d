// One file from the network into <models>/.downloads/<file>.partial, resumed
// with Range when bytes are already there, hashed while it is written, and
// verified (size + sha256) at the end. Knows nothing of queues or the engine.
import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ensureFreeSpace, type FreeSpaceProbe } from './disk-space.js';
import { ModelError, errnoCode, errorMessage, formatBytes, isModelError } from './errors.js';
import { hashFileInto, type OpenWritable, type WritableFile } from './file-io.js';
import type { HttpClient } from './http-client.js';
import type { PartialStore, PersistedDownload } from './partial-store.js';
import { contentLength, headerValue, probeRemote, statusError } from './probe.js';
import { backoffMs, isRetryable, toNetworkError, wait, type RetryOptions } from './retry.js';
import type { HostPolicy } from './url-policy.js';

export interface TransferContext {
  id: string;
  file: string;
  url: string;
  catalogSha256: string | null;
  catalogApproxBytes: number | null;
  store: PartialStore;
  http: HttpClient;
  policy: HostPolicy;
  freeSpace: FreeSpaceProbe;
  openWritable: OpenWritable;
  retry: RetryOptions;
  /** Refuse to download what cannot be verified (no catalog and no server hash). */
  requireHash: boolean;
  signal: AbortSignal;
  onPhase(phase: 'downloading' | 'verifying'): void;
  onProgress(receivedBytes: number, totalBytes: number | null, restarted: boolean): void;
  onExpectations(totalBytes: number | null, hashSource: 'catalog' | 'server' | null): void;
  onWarning(message: string): void;
  /** A transient failure: attempt `attempt` of `of` starts after `delayMs` (null: an attempt got going again). */
  onRetry?(retry: { attempt: number; of: number; delayMs: number; reason: string } | null): void;
}

export interface TransferResult {
  partialPath: string;
  bytes: number;
  sha256: string;
  hashSource: 'catalog' | 'server' | null;
}

/** Restarts from zero tolerated per transfer (inconsistent ranges, bad resumed bytes). */
const MAX_RESTARTS = 3;

export function parseContentRange(v: string | undefined): { start: number; end: number; total: number | null } | null {
  const m = v ? /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(v.trim()) : null;
  if (!m) return null;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? null : Number(m[3]) };
}

function hashUnavailable(host: string, file: string): ModelError {
  return new ModelError(
    'HASH_UNAVAILABLE',
    `Neither the catalog nor ${host} provides a sha256 for ${file}, so the download cannot be verified. ` +
      'Use the default Hugging Face endpoint, or download the file yourself and import it.',
    { host },
  );
}

function writeError(e: unknown, dir: string, stillToCome: number | null): ModelError {
  if (isModelError(e)) return e;
  if (errnoCode(e) === 'ENOSPC' || errnoCode(e) === 'EDQUOT') {
    return new ModelError(
      'DISK_FULL',
      `The disk holding ${dir} became full during the download` +
        (stillToCome !== null ? ` (${formatBytes(stillToCome)} still to come)` : '') +
        '. Free some space and resume: the bytes already downloaded are kept.',
      stillToCome !== null ? { bytesNeeded: stillToCome } : {},
      { cause: e },
    );
  }
  return new ModelError('IO_ERROR', `Could not write the download to ${dir}: ${errorMessage(e)}`, {}, { cause: e });
}

/** Margin over the catalog's approxBytes for a download of unannounced size (× and + bytes). */
const UNANNOUNCED_MARGIN = 1.25;
const UNANNOUNCED_SLACK_BYTES = 1 << 20;
/** Without a catalog size: above the largest Parakeet GGUF (1.1B parameters in f32, ~4.4 GB). */
const UNANNOUNCED_MAX_BYTES = 6 * 1024 ** 3;

/** Download state shared by the steps below. */
class Transfer {
  readonly host: string;
  readonly partialPath: string;
  size: number | null = null;
  sha256: string | null;
  hashSource: 'catalog' | 'server' | null;
  received = 0;
  hash: Hash = createHash('sha256');
  restarts = 0;
  failures = 0;
  /**
   * The furthest byte this transfer has held. Only bytes past it are progress: after a restart from
   * zero (a server that ignores Range) the same bytes arrive again, and if the connection keeps
   * breaking at the same point, counting them as progress would retry forever.
   */
  furthest = 0;
  /** Set when the server answered a Range request with the whole file. */
  rangeIgnored = false;
  state!: PersistedDownload;

  constructor(private readonly ctx: TransferContext) {
    this.host = new URL(ctx.url).hostname;
    this.partialPath = ctx.store.partialPath(ctx.file);
    this.sha256 = ctx.catalogSha256;
    this.hashSource = ctx.catalogSha256 ? 'catalog' : null;
  }

  /**
   * The most bytes taken while the server has announced no size: the catalog's estimate with a margin
   * (estimates are a few percent off), else the largest model there is. A server streaming without end
   * (or a wrong file) is stopped there instead of filling the disk.
   */
  get unannouncedLimit(): number {
    const approx = this.ctx.catalogApproxBytes;
    return approx !== null ? Math.ceil(approx * UNANNOUNCED_MARGIN) + UNANNOUNCED_SLACK_BYTES : UNANNOUNCED_MAX_BYTES;
  }

  get shownTotal(): number | null {
    return this.size ?? this.ctx.catalogApproxBytes;
  }

  /** Retry transient failures with backoff; bytes past the furthest point reached reset the budget. */
  async retrying<T>(fn: () => Promise<T>): Promise<T> {
    const { ctx } = this;
    for (;;) {
      try {
        return await fn();
      } catch (e) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        // Anything not already a ModelError here came from the network stack.
        if (!isRetryable(e)) throw toNetworkError(e, this.host);
        this.failures += 1;
        if (this.failures > ctx.retry.attempts) {
          const err = toNetworkError(e, this.host);
          if (this.rangeIgnored) {
            throw new ModelError(
              'NETWORK',
              `${this.host} does not resume downloads (it ignores Range requests) and the connection broke ${this.failures} times ` +
                `without getting past ${formatBytes(this.furthest)} of ${ctx.file}, so every retry starts over from the beginning. ` +
                'Gave up; try again later, or use another mirror.',
              { ...err.details, host: this.host },
              { cause: e },
            );
          }
          throw new ModelError(err.code, `${err.message} (gave up after ${ctx.retry.attempts} retries without new data)`, err.details, {
            cause: e,
          });
        }
        const retryAfter = isModelError(e) ? e.details.retryAfterMs : undefined;
        const delayMs = backoffMs(this.failures, ctx.retry, retryAfter);
        ctx.onRetry?.({ attempt: this.failures + 1, of: ctx.retry.attempts + 1, delayMs, reason: toNetworkError(e, this.host).message });
        await wait(delayMs, ctx.signal);
      }
    }
  }

  adoptServerHash(sha: string | null): void {
    if (!sha) return;
    if (this.hashSource === 'catalog' && this.sha256 !== sha) {
      this.ctx.onWarning(`${this.ctx.file}: the server reports sha256 ${sha}, the catalog pins ${this.sha256}; verifying against the catalog.`);
    } else if (this.hashSource === null) {
      this.sha256 = sha;
      this.hashSource = 'server';
    }
  }

  async restartFromZero(why: string): Promise<void> {
    this.restarts += 1;
    if (this.restarts > MAX_RESTARTS) {
      throw new ModelError('HTTP_STATUS', `${this.host} keeps sending inconsistent data for ${this.ctx.file} (${why}).`, {
        host: this.host,
      });
    }
    this.ctx.onWarning(`${this.ctx.file}: ${why}; starting over from the beginning.`);
    await this.ctx.store.truncate(this.ctx.file);
    this.hash = createHash('sha256');
    this.received = 0;
    this.state.etag = null;
    this.state.lastModified = null;
    this.ctx.onProgress(0, this.shownTotal, true);
  }

  /** Keep the partial only if it belongs to the file the server has now. */
  async reconcilePartial(): Promise<void> {
    const { ctx } = this;
    const persisted = await ctx.store.load(ctx.file);
    this.received = await ctx.store.partialBytes(ctx.file);
    const stale =
      !persisted ||
      persisted.url !== ctx.url ||
      (persisted.expectedSha256 !== null && this.sha256 !== null && persisted.expectedSha256 !== this.sha256) ||
      (persisted.expectedBytes !== null && this.size !== null && persisted.expectedBytes !== this.size) ||
      (this.size !== null && this.received > this.size);
    if (this.received > 0 && stale) {
      ctx.onWarning(`${ctx.file}: the partial download does not match the server's file any more; starting over.`);
      await ctx.store.truncate(ctx.file);
      this.received = 0;
    }
    this.state = {
      version: 1,
      id: ctx.id,
      file: ctx.file,
      url: ctx.url,
      expectedBytes: this.size,
      expectedSha256: this.sha256,
      hashSource: this.hashSource,
      etag: stale ? null : (persisted?.etag ?? null),
      lastModified: stale ? null : (persisted?.lastModified ?? null),
      status: 'queued',
      error: null,
      updatedAt: '',
    };
    await ctx.store.save(this.state);
  }

  /** One GET for the bytes from `received` on. Resolves true when the file is complete. */
  async fetchRest(): Promise<boolean> {
    const { ctx } = this;
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    if (this.received > 0) {
      headers.range = `bytes=${this.received}-`;
      // If-Range: only a strong validator from the same server is usable.
      if (this.state.etag && !this.state.etag.startsWith('W/')) headers['if-range'] = this.state.etag;
      else if (this.state.lastModified) headers['if-range'] = this.state.lastModified;
    }
    const { res, linkedSize, linkedSha256 } = await ctx.http.open(ctx.url, { method: 'GET', headers, policy: ctx.policy, signal: ctx.signal });
    const status = res.statusCode ?? 0;
    if (status === 416) {
      // Nothing to send from `received` on: the partial is complete (verify it)
      // or longer than the file (start over). `bytes */<size>` gives the size.
      res.resume();
      const m = /^bytes\s+\*\/(\d+)$/i.exec(headerValue(res, 'content-range')?.trim() ?? '');
      const total = m ? Number(m[1]) : this.size;
      if (this.received > 0 && total === this.received) {
        this.size ??= total;
        return true;
      }
      await this.restartFromZero('the server rejected the resume range');
      return false;
    }
    if (status !== 200 && status !== 206) {
      res.resume();
      throw statusError(status, this.host, ctx.file, res);
    }
    this.adoptServerHash(linkedSha256);
    if (this.sha256 === null && ctx.requireHash) {
      res.destroy();
      throw hashUnavailable(this.host, ctx.file);
    }
    let mode: 'append' | 'truncate' = 'append';
    if (status === 206) {
      const cr = parseContentRange(headerValue(res, 'content-range'));
      if (!cr || cr.start !== this.received || (this.size !== null && cr.total !== null && cr.total !== this.size)) {
        res.destroy();
        await this.restartFromZero(`the server resumed at an unexpected range (${headerValue(res, 'content-range') ?? 'none'})`);
        return false;
      }
      this.size ??= cr.total ?? linkedSize;
    } else {
      if (this.received > 0) {
        // A 200 to a Range request: no range support (or If-Range failed). The
        // body is the whole file, so it replaces the partial.
        this.rangeIgnored = true;
        ctx.onWarning(`${ctx.file}: the server did not resume the download (no Range support); starting over.`);
        this.hash = createHash('sha256');
        this.received = 0;
        ctx.onProgress(0, this.shownTotal, true);
      }
      mode = 'truncate';
      const bodySize = contentLength(res);
      if (this.size !== null && bodySize !== null && bodySize !== this.size) {
        res.destroy();
        throw new ModelError('SIZE_MISMATCH', `${this.host} is sending ${bodySize} bytes for ${ctx.file} but announced ${this.size}. Try again later.`, {
          expected: this.size,
          actual: bodySize,
        });
      }
      this.size ??= linkedSize ?? bodySize;
    }
    ctx.onExpectations(this.shownTotal, this.hashSource);
    await this.rememberValidators(res);
    ctx.onPhase('downloading');
    await this.writeBody(res, mode);
    if (this.size !== null && this.received < this.size) {
      throw new ModelError('NETWORK', `${this.host} closed the connection after ${this.received} of ${this.size} bytes.`);
    }
    return true;
  }

  private async rememberValidators(res: IncomingMessage): Promise<void> {
    const etag = headerValue(res, 'etag') ?? null;
    const lastModified = headerValue(res, 'last-modified') ?? null;
    const s = this.state;
    if (etag === s.etag && lastModified === s.lastModified && s.expectedBytes === this.size && s.expectedSha256 === this.sha256) return;
    Object.assign(s, { etag, lastModified, expectedBytes: this.size, expectedSha256: this.sha256, hashSource: this.hashSource });
    await this.ctx.store.save(s);
  }

  private async writeBody(res: IncomingMessage, mode: 'append' | 'truncate'): Promise<void> {
    const { ctx } = this;
    const stillToCome = (): number | null => (this.size !== null ? this.size - this.received : null);
    let out: WritableFile;
    try {
      out = await ctx.openWritable(this.partialPath, mode);
    } catch (e) {
      res.destroy();
      throw writeError(e, ctx.store.dir, stillToCome());
    }
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        if (this.size !== null && this.received + chunk.length > this.size) {
          throw new ModelError('SIZE_MISMATCH', `${this.host} sent more than the ${this.size} bytes announced for ${ctx.file}.`, {
            expected: this.size,
          });
        }
        if (this.size === null && this.received + chunk.length > this.unannouncedLimit) {
          const known = ctx.catalogApproxBytes !== null ? `the catalog's ${formatBytes(ctx.catalogApproxBytes)}` : 'the largest model there is';
          throw new ModelError(
            'SIZE_MISMATCH',
            `${this.host} announced no size for ${ctx.file} and sent more than ${known} allows (${formatBytes(this.unannouncedLimit)}): ` +
              'stopped, and the bytes were discarded. Try again later, or use another mirror.',
            { expected: this.unannouncedLimit },
          );
        }
        try {
          await out.write(chunk);
        } catch (e) {
          throw writeError(e, ctx.store.dir, stillToCome());
        }
        this.hash.update(chunk);
        this.received += chunk.length;
        if (this.received > this.furthest) {
          this.furthest = this.received;
          this.failures = 0; // new progress: the retry budget starts again
        }
        ctx.onProgress(this.received, this.shownTotal, false);
      }
      if (!res.complete) throw new Error('aborted');
    } catch (e) {
      res.destroy();
      throw e;
    } finally {
      await out.sync().catch(() => undefined);
      await out.close().catch(() => undefined);
    }
  }
}

export async function runTransfer(ctx: TransferContext): Promise<TransferResult> {
  const t = new Transfer(ctx);

  // 1. Ask the server what it will send (authoritative size and sha256).
  const facts = await t.retrying(() => probeRemote(ctx.http, ctx.url, ctx.file, ctx.policy, ctx.signal));
  if (facts) {
    t.size = facts.size;
    t.adoptServerHash(facts.sha256);
    // The GET would carry the same headers: refuse before transferring anything.
    if (t.sha256 === null && ctx.requireHash) throw hashUnavailable(t.host, ctx.file);
  }
  ctx.onExpectations(t.shownTotal, t.hashSource);

  // 2. Reuse the bytes on disk if they belong to this file; check for room.
  await t.reconcilePartial();
  await ensureFreeSpace(ctx.freeSpace, ctx.store.dir, (t.shownTotal ?? 0) - t.received);

  // 3. Re-hash the kept bytes (the hash covers the whole file).
  const resumedFromDisk = t.received > 0;
  if (resumedFromDisk) t.received = await hashFileInto(t.hash, t.partialPath, t.received, ctx.signal);
  t.furthest = t.received;
  ctx.onProgress(t.received, t.shownTotal, true);

  for (let freshRetry = false; ; ) {
    // 4. Fetch the rest (nothing if the kept bytes are already the whole file).
    while (!(t.size !== null && t.received === t.size)) {
      if (await t.retrying(() => t.fetchRest())) break;
    }

    // 5. Verify size and sha256.
    ctx.onPhase('verifying');
    ctx.onProgress(t.received, t.size, false);
    if (t.size !== null && t.received !== t.size) {
      throw new ModelError('SIZE_MISMATCH', `${ctx.file} has ${t.received} bytes, expected ${t.size}. It was discarded.`, {
        expected: t.size,
        actual: t.received,
      });
    }
    if (t.sha256 === null && ctx.requireHash) throw hashUnavailable(t.host, ctx.file);
    const sha256 = t.hash.digest('hex');
    if (t.sha256 === null || sha256 === t.sha256) {
      return { partialPath: t.partialPath, bytes: t.received, sha256, hashSource: t.hashSource };
    }
    if (resumedFromDisk && !freshRetry) {
      // The bad bytes may be the ones an earlier run left (a crash can leave
      // garbage at the end of a file): download once more from scratch.
      freshRetry = true;
      await t.restartFromZero('the resumed file did not verify');
      ctx.onPhase('downloading');
      continue;
    }
    throw new ModelError(
      'HASH_MISMATCH',
      `The downloaded ${ctx.file} is corrupted (sha256 ${sha256.slice(0, 12)}… instead of ${t.sha256.slice(0, 12)}…). ` +
        'It was discarded; download it again.',
      { expected: t.sha256, actual: sha256 },
    );
  }
}
