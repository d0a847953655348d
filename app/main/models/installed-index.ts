// The list of installed models (<models>/installed.json). A model is in this
// list only after its bytes were verified and the engine loaded it; the file
// is renamed into place first, then this index is rewritten atomically.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileSize, readJson, writeJsonAtomic } from './file-io.js';
import type { InstalledModel } from './types.js';

interface IndexFile {
  version: 1;
  activeId: string | null;
  models: InstalledModel[];
}

function isInstalledModel(v: unknown): v is InstalledModel {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.id === 'string' &&
    typeof o.file === 'string' &&
    typeof o.bytes === 'number' &&
    typeof o.sha256 === 'string' &&
    typeof o.architecture === 'string' &&
    Array.isArray(o.decoders) &&
    typeof o.source === 'object' &&
    o.source !== null
  );
}

export class InstalledIndex {
  readonly modelsDir: string;
  readonly indexPath: string;
  private data: IndexFile = { version: 1, activeId: null, models: [] };
  // Writes are serialised so two completions never interleave their renames.
  private writeChain: Promise<void> = Promise.resolve();

  constructor(modelsDir: string) {
    this.modelsDir = modelsDir;
    this.indexPath = path.join(modelsDir, 'installed.json');
  }

  async load(): Promise<void> {
    let raw: unknown;
    try {
      raw = await readJson(this.indexPath);
    } catch {
      // Corrupt index: keep it aside for diagnosis and start empty rather than
      // listing anything we cannot vouch for.
      await fs.rename(this.indexPath, `${this.indexPath}.corrupt-${Date.now()}`).catch(() => undefined);
      raw = undefined;
    }
    const o = (raw ?? {}) as Partial<IndexFile>;
    const models = Array.isArray(o.models) ? o.models.filter(isInstalledModel) : [];
    const activeId = typeof o.activeId === 'string' && models.some((m) => m.id === o.activeId) ? o.activeId : null;
    this.data = { version: 1, activeId, models };
  }

  list(): InstalledModel[] {
    return this.data.models.map((m) => ({ ...m }));
  }

  get(id: string): InstalledModel | undefined {
    const m = this.data.models.find((x) => x.id === id);
    return m ? { ...m } : undefined;
  }

  findBySha256(sha256: string): InstalledModel | undefined {
    return this.data.models.find((x) => x.sha256 !== '' && x.sha256 === sha256);
  }

  /** The entry whose file is this path (downloaded, imported or linked). */
  findByPath(file: string): InstalledModel | undefined {
    const wanted = path.resolve(file);
    return this.data.models.find((x) => path.resolve(this.filePath(x)) === wanted);
  }

  get activeId(): string | null {
    return this.data.activeId;
  }

  filePath(model: Pick<InstalledModel, 'file'>): string {
    // A linked model (a file the user opened) is listed by its absolute path.
    return path.isAbsolute(model.file) ? model.file : path.join(this.modelsDir, model.file);
  }

  private persist(mutate: (d: IndexFile) => void): Promise<void> {
    const run = async (): Promise<void> => {
      const next: IndexFile = { ...this.data, models: [...this.data.models] };
      mutate(next);
      await writeJsonAtomic(this.indexPath, next);
      this.data = next; // only after the file is durable
    };
    const p = this.writeChain.then(run, run);
    this.writeChain = p.catch(() => undefined);
    return p;
  }

  upsert(model: InstalledModel): Promise<void> {
    return this.persist((d) => {
      d.models = [...d.models.filter((m) => m.id !== model.id), model];
    });
  }

  /** Remove an entry (and the active pointer if it pointed there). */
  async remove(id: string): Promise<InstalledModel | undefined> {
    const existing = this.get(id);
    if (!existing) return undefined;
    await this.persist((d) => {
      d.models = d.models.filter((m) => m.id !== id);
      if (d.activeId === id) d.activeId = null;
    });
    return existing;
  }

  setActive(id: string | null): Promise<void> {
    return this.persist((d) => {
      d.activeId = id;
    });
  }

  /** Drop entries whose file vanished or changed size (deleted by hand, disk trouble). */
  async prune(): Promise<InstalledModel[]> {
    const gone: InstalledModel[] = [];
    for (const m of this.data.models) {
      const size = await fileSize(this.filePath(m)).catch(() => null);
      if (size !== m.bytes) gone.push(m);
    }
    if (gone.length) {
      const ids = new Set(gone.map((m) => m.id));
      await this.persist((d) => {
        d.models = d.models.filter((m) => !ids.has(m.id));
        if (d.activeId && ids.has(d.activeId)) d.activeId = null;
      });
    }
    return gone;
  }
}
