// Downloads in progress live in <models>/.downloads/ (same file system as the
// models, so the final rename is atomic): `<file>.partial` holds the bytes,
// `<file>.partial.json` what is needed to resume after a restart.
import fs from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from './errors.js';
import { fileSize, readJson, removeIfExists, writeJsonAtomic } from './file-io.js';
import type { ErrorInfo } from './types.js';

export type PersistedStatus = 'queued' | 'paused' | 'failed';

export interface PersistedDownload {
  version: 1;
  id: string;
  file: string;
  /** URL the bytes came from (mirror applied); a different URL restarts from zero. */
  url: string;
  expectedBytes: number | null;
  expectedSha256: string | null;
  hashSource: 'catalog' | 'server' | null;
  /** Strong validator of the final response, sent as If-Range on resume. */
  etag: string | null;
  lastModified: string | null;
  status: PersistedStatus;
  error: ErrorInfo | null;
  updatedAt: string;
}

function isPersisted(v: unknown): v is PersistedDownload {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    o.version === 1 &&
    typeof o.id === 'string' &&
    typeof o.file === 'string' &&
    typeof o.url === 'string' &&
    (o.expectedBytes === null || typeof o.expectedBytes === 'number') &&
    (o.expectedSha256 === null || typeof o.expectedSha256 === 'string') &&
    (o.status === 'queued' || o.status === 'paused' || o.status === 'failed')
  );
}

export class PartialStore {
  readonly dir: string;

  constructor(modelsDir: string) {
    this.dir = path.join(modelsDir, '.downloads');
  }

  async init(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
  }

  partialPath(file: string): string {
    return path.join(this.dir, `${file}.partial`);
  }

  statePath(file: string): string {
    return path.join(this.dir, `${file}.partial.json`);
  }

  async partialBytes(file: string): Promise<number> {
    return (await fileSize(this.partialPath(file))) ?? 0;
  }

  async load(file: string): Promise<PersistedDownload | undefined> {
    try {
      const v = await readJson(this.statePath(file));
      return isPersisted(v) && v.file === file ? v : undefined;
    } catch {
      return undefined; // unreadable state: treated as absent (the partial is then restarted)
    }
  }

  async save(state: PersistedDownload): Promise<void> {
    await writeJsonAtomic(this.statePath(state.file), { ...state, updatedAt: new Date().toISOString() });
  }

  /** Forget a download: state file and (unless kept) its bytes. */
  async remove(file: string, opts: { keepPartial?: boolean } = {}): Promise<void> {
    if (!opts.keepPartial) await removeIfExists(this.partialPath(file));
    await removeIfExists(this.statePath(file));
  }

  async truncate(file: string): Promise<void> {
    await removeIfExists(this.partialPath(file));
  }

  /** Every persisted download (for resumePending on start-up). */
  async list(): Promise<PersistedDownload[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return [];
      throw e;
    }
    const out: PersistedDownload[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith('.partial.json')) continue;
      const state = await this.load(name.slice(0, -'.partial.json'.length));
      if (state) out.push(state);
    }
    return out;
  }
}
