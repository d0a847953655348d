// A model that a validation loaded, kept for a short while so the activation
// that usually follows (import or download → "use this model") adopts it
// instead of loading the file a second time. Files are matched by identity
// (device, inode, size, modification time), not by path: a download or an
// import is validated under a temporary name and renamed afterwards, which
// keeps all four. Used at most once; dropped after `ttlMs` so a validation
// nobody activates does not hold a model's memory.
import { stat } from 'node:fs/promises';
import type { LoadOptions, Model } from '../../native/index.js';

/** The load options that decide how a model was placed (and so whether another request can use it). */
export type PlacementOptions = Pick<LoadOptions, 'device' | 'threads' | 'weightType'>;

export interface Staged {
  model: Model;
  identity: string;
  options: PlacementOptions;
}

/** "dev:ino:size:mtime" of the file at `path`, or null when it cannot be read (the load then says why). */
export async function fileIdentity(path: string): Promise<string | null> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return null;
  }
}

export class StagedModel {
  private staged: Staged | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly ttlMs: number) {}

  /** Keeps `entry` (a previous one is freed). */
  keep(entry: Staged): void {
    this.clear();
    this.staged = entry;
    this.timer = setTimeout(() => this.clear(), this.ttlMs);
    this.timer.unref?.();
  }

  /**
   * The kept model when it is of the file `identity` and `fits` it; it then belongs to the caller. A model
   * of another file is freed (that validation's activation did not come); one of this file that does not
   * fit stays (a later request of the same activation may use it, e.g. the self-test's CPU reference).
   */
  take(identity: string | null, fits: (entry: Staged) => boolean): Model | null {
    const entry = this.staged;
    if (!entry) return null;
    if (identity === null || entry.identity !== identity) {
      this.clear();
      return null;
    }
    if (!fits(entry) || entry.model.disposed) return null;
    this.release();
    return entry.model;
  }

  /** Frees the kept model, if any. */
  clear(): void {
    const entry = this.staged;
    this.release();
    entry?.model.dispose();
  }

  private release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.staged = null;
  }
}
