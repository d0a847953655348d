// The model manager service: catalog, verified resumable downloads, import,
// installed list, active model and the first-run proposal. Plain Node (no
// Electron import); the Electron/web adapters bind it to IPC.
import fs from 'node:fs/promises';
import path from 'node:path';
import { bundledCatalog, findEntry, licenseInfo, recommendedEntry, type Catalog, type CatalogEntry, type RecommendedFor } from './catalog.js';
import { statfsFreeSpace, type FreeSpaceProbe } from './disk-space.js';
import { Downloader } from './downloader.js';
import { ModelError, errorMessage } from './errors.js';
import { openWritable as defaultOpenWritable, type OpenWritable } from './file-io.js';
import { HttpClient, type NetworkOptions } from './http-client.js';
import { importModelFile, type ImportFileOptions } from './importer.js';
import { InstalledIndex } from './installed-index.js';
import { linkModelFile } from './linker.js';
import { PartialStore } from './partial-store.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry.js';
import { TypedEmitter } from '../util/typed-emitter.js';
import type {
  DownloadSnapshot,
  FirstRunChoice,
  FirstRunProposal,
  InstalledModel,
  ModelManagerEvents,
  ValidateModel,
  ValidatedModelInfo,
} from './types.js';
import { HostPolicy, normalizeEndpoint, resolveDownloadUrl } from './url-policy.js';

export interface ModelManagerOptions {
  /** Where models live (Electron: path.join(app.getPath('userData'), 'models')). */
  modelsDir: string;
  /** The engine's check that a file is a usable model (see ValidateModel). */
  validateModel: ValidateModel;
  /** Defaults to the bundled catalog.json. */
  catalog?: Catalog;
  /** Hugging Face mirror base URL replacing https://huggingface.co (https only). */
  endpoint?: string | null;
  /** More hosts a mirror may redirect to (exact names or `*.suffix`). */
  extraAllowedHosts?: string[];
  /** TLS extra CA, proxy (explicit or resolver), timeouts. */
  network?: NetworkOptions;
  /** Free-space probe (tests inject a full disk). */
  freeSpace?: FreeSpaceProbe;
  /** How download bytes are written (tests inject ENOSPC). */
  openWritable?: OpenWritable;
  retry?: Partial<RetryOptions>;
  /** Refuse downloads that neither the catalog nor the server can vouch for (default true). */
  requireHash?: boolean;
  /** Downloads running at once; the rest wait in order (default 1). */
  maxConcurrentDownloads?: number;
  /** Minimum time between progress events of one download (default 100 ms). */
  progressIntervalMs?: number;
}

export class ModelManager extends TypedEmitter<ModelManagerEvents> {
  readonly modelsDir: string;
  private readonly catalog: Catalog;
  private readonly index: InstalledIndex;
  private readonly store: PartialStore;
  private readonly http: HttpClient;
  private readonly downloader: Downloader;
  private readonly validateModel: ValidateModel;
  private readonly freeSpace: FreeSpaceProbe;
  private readonly extraHosts: string[];
  private endpoint: string | null;
  /** Imports run one at a time (see importFile). */
  private importChain: Promise<unknown> = Promise.resolve();
  /** Aborts the import that is running (cancelImport). */
  private importAbort: AbortController | null = null;

  constructor(opts: ModelManagerOptions) {
    super();
    this.modelsDir = path.resolve(opts.modelsDir);
    this.catalog = opts.catalog ?? bundledCatalog();
    this.endpoint = normalizeEndpoint(opts.endpoint);
    this.extraHosts = opts.extraAllowedHosts ?? [];
    this.index = new InstalledIndex(this.modelsDir);
    this.store = new PartialStore(this.modelsDir);
    this.http = new HttpClient(opts.network);
    this.validateModel = opts.validateModel;
    this.freeSpace = opts.freeSpace ?? statfsFreeSpace;
    this.downloader = new Downloader({
      modelsDir: this.modelsDir,
      store: this.store,
      index: this.index,
      http: this.http,
      policy: () => this.policy(),
      urlFor: (entry) => resolveDownloadUrl(entry.url, this.endpoint),
      validateModel: this.validateModel,
      freeSpace: this.freeSpace,
      openWritable: opts.openWritable ?? defaultOpenWritable,
      retry: { ...DEFAULT_RETRY, ...opts.retry },
      requireHash: opts.requireHash ?? true,
      maxConcurrent: opts.maxConcurrentDownloads ?? 1,
      progressIntervalMs: opts.progressIntervalMs ?? 100,
      onState: (s) => this.emit('state', s),
      onProgress: (p) => this.emit('progress', p),
      onWarning: (w) => this.emit('warning', w),
      onInstalled: () => this.emitInstalled(),
    });
  }

  /** Construct and initialise (create folders, load and check the installed list). */
  static async create(opts: ModelManagerOptions): Promise<ModelManager> {
    const m = new ModelManager(opts);
    await m.init();
    return m;
  }

  async init(): Promise<void> {
    await fs.mkdir(this.modelsDir, { recursive: true });
    await this.store.init();
    await this.index.load();
    await this.index.prune();
    // Leftovers of an import interrupted by a crash.
    for (const name of await fs.readdir(this.store.dir)) {
      if (name.startsWith('import-')) await fs.rm(path.join(this.store.dir, name), { force: true });
    }
  }

  private policy(): HostPolicy {
    return HostPolicy.create(this.endpoint, this.extraHosts);
  }

  private emitInstalled(): void {
    this.emit('installed', { installed: this.index.list(), activeId: this.index.activeId });
  }

  // ---- catalog & settings ----

  getCatalog(): CatalogEntry[] {
    return this.catalog.entries.map((e) => ({ ...e }));
  }

  getEndpoint(): string | null {
    return this.endpoint;
  }

  /** Set the mirror endpoint (https only; null = huggingface.co). Applies to downloads started afterwards. */
  setEndpoint(endpoint: string | null): string | null {
    this.endpoint = normalizeEndpoint(endpoint);
    return this.endpoint;
  }

  private entryOrThrow(id: string): CatalogEntry {
    const entry = findEntry(this.catalog, id);
    if (!entry) throw new ModelError('UNKNOWN_MODEL', `There is no model "${id}" in the catalog.`);
    return entry;
  }

  // ---- downloads ----

  /** Queue the download of a catalog model. Resolves once it is queued (not when it finishes). */
  async download(catalogId: string): Promise<DownloadSnapshot> {
    const entry = this.entryOrThrow(catalogId);
    if (entry.engineSupport !== 'supported') {
      throw new ModelError(
        'UNSUPPORTED_MODEL',
        `${entry.displayName} is a streaming model that this version of the app cannot run yet, so it is not downloaded.`,
      );
    }
    const installed = this.index.get(entry.id);
    if (installed) {
      return {
        id: entry.id,
        file: entry.file,
        state: 'installed',
        receivedBytes: installed.bytes,
        totalBytes: installed.bytes,
        hashSource: entry.sha256 ? 'catalog' : 'server',
        error: null,
      };
    }
    return this.downloader.enqueue(entry);
  }

  pause(id: string): Promise<DownloadSnapshot | undefined> {
    return this.downloader.pause(id);
  }

  /** Resume a paused or failed download (reusing the bytes on disk). */
  resume(id: string): Promise<DownloadSnapshot> {
    return this.download(id);
  }

  cancel(id: string): Promise<DownloadSnapshot | undefined> {
    return this.downloader.cancel(id);
  }

  listDownloads(): DownloadSnapshot[] {
    return this.downloader.list();
  }

  /** Resolves at the download's next settled state: installed, failed, cancelled or paused. */
  waitForDownload(id: string): Promise<DownloadSnapshot> {
    return this.downloader.waitForSettled(id);
  }

  /** Call once at start-up: restarts downloads that were running or queued when the app last quit. */
  resumePending(): Promise<DownloadSnapshot[]> {
    return this.downloader.resumePending((id) => findEntry(this.catalog, id));
  }

  // ---- import ----

  /**
   * Copy a local .gguf in, have the engine validate it, then list it. Imports run one after another: two at
   * once would pick the same free name for files called alike (the second rename replacing the first
   * file) and would both miss the other's identical bytes. The engine validates one file at a time anyway.
   */
  async importFile(srcPath: string, options: ImportFileOptions = {}): Promise<InstalledModel> {
    const { signal } = options;
    const run = async (): Promise<InstalledModel> => {
      const abort = new AbortController();
      const forward = (): void => abort.abort();
      signal?.addEventListener('abort', forward);
      this.importAbort = abort;
      try {
        return await importModelFile(
          {
            modelsDir: this.modelsDir,
            tempDir: this.store.dir,
            index: this.index,
            validateModel: this.validateModel,
            freeSpace: this.freeSpace,
            onProgress: (fraction) => this.emit('importProgress', { path: srcPath, fraction }),
          },
          srcPath,
          { ...options, signal: abort.signal },
        );
      } finally {
        signal?.removeEventListener('abort', forward);
        if (this.importAbort === abort) this.importAbort = null;
      }
    };
    const turn = this.importChain.then(run, run);
    this.importChain = turn.catch(() => undefined);
    const model = await turn;
    this.emitInstalled();
    return model;
  }

  /** Cancels the running import (a .nemo conversion stops between tensors); false when none runs. */
  cancelImport(): boolean {
    if (!this.importAbort) return false;
    this.importAbort.abort();
    return true;
  }

  /**
   * List a file the user opened (the engine loaded it already, `info` is what it saw) by reference, and make
   * it the active model: it shows under Installed and is loaded again at the next start (linker.ts).
   */
  async linkFile(file: string, info: ValidatedModelInfo): Promise<InstalledModel> {
    const model = await linkModelFile(this.index, file, info);
    await this.index.setActive(model.id);
    this.emitInstalled();
    return model;
  }

  // ---- installed models ----

  /** Installed (verified and validated) models; entries whose file vanished are dropped. */
  async listInstalled(): Promise<InstalledModel[]> {
    const gone = await this.index.prune();
    if (gone.length) this.emitInstalled();
    return this.index.list();
  }

  /** Absolute path of an installed model, for the engine. */
  modelPath(id: string): string {
    const m = this.index.get(id);
    if (!m) throw new ModelError('UNKNOWN_MODEL', `The model "${id}" is not installed.`);
    return this.index.filePath(m);
  }

  getActive(): string | null {
    return this.index.activeId;
  }

  async setActive(id: string | null): Promise<void> {
    if (id !== null && !this.index.get(id)) {
      throw new ModelError('UNKNOWN_MODEL', `The model "${id}" is not installed, so it cannot be made active.`);
    }
    await this.index.setActive(id);
    this.emitInstalled();
  }

  /**
   * Delete an installed model (unload it from the engine first). It leaves the
   * list before its file is removed, so a failure never leaves a listed model
   * without a file; `fileRemoved` is false if the OS kept the file (in use). A linked file (one the user
   * opened) only leaves the list: the file is the user's.
   */
  async remove(id: string): Promise<{ removed: boolean; fileRemoved: boolean }> {
    const model = await this.index.remove(id);
    if (!model) return { removed: false, fileRemoved: false };
    if (model.source.kind === 'linked') {
      this.emitInstalled();
      return { removed: true, fileRemoved: false };
    }
    let fileRemoved = true;
    try {
      await fs.rm(this.index.filePath(model), { force: true });
    } catch (e) {
      fileRemoved = false;
      this.emit('warning', { id, message: `The file of ${model.displayName} could not be deleted: ${errorMessage(e)}` });
    }
    this.emitInstalled();
    return { removed: true, fileRemoved };
  }

  // ---- first run ----

  /**
   * The two defaults to offer on first run, with the size to show before the
   * user starts: the server's size (one HEAD each, bounded by timeoutMs), else
   * the catalog's estimate. `locale` (e.g. app.getLocale()) picks which one is
   * preselected: English dictation unless the UI language is another language
   * the multilingual model knows.
   */
  async firstRunProposal(opts: { locale?: string; timeoutMs?: number } = {}): Promise<FirstRunProposal> {
    const kinds: RecommendedFor[] = ['english-dictation', 'multilingual'];
    const choices = await Promise.all(
      kinds.map(async (kind): Promise<FirstRunChoice | undefined> => {
        const entry = recommendedEntry(this.catalog, kind);
        if (!entry) return undefined;
        const serverBytes = await this.remoteSize(entry, opts.timeoutMs ?? 5000);
        const bytes = serverBytes ?? entry.approxBytes;
        return {
          kind,
          catalogId: entry.id,
          displayName: entry.displayName,
          file: entry.file,
          bytes,
          bytesSource: serverBytes !== null ? 'server' : bytes !== null ? 'catalog-estimate' : null,
          installed: !!this.index.get(entry.id),
          languages: entry.languages,
          license: licenseInfo(entry.license),
        };
      }),
    );
    const present = choices.filter((c): c is FirstRunChoice => c !== undefined);
    const lang = (opts.locale ?? 'en').toLowerCase().split(/[-_]/)[0] ?? 'en';
    const multi = present.find((c) => c.kind === 'multilingual');
    const recommended = lang !== 'en' && multi?.languages.includes(lang) ? 'multilingual' : 'english-dictation';
    return { recommended, choices: present };
  }

  /** The server's size for a catalog file, or null (offline, timeout, no header). */
  async remoteSize(entry: CatalogEntry, timeoutMs: number): Promise<number | null> {
    try {
      const { res, linkedSize } = await this.http.open(resolveDownloadUrl(entry.url, this.endpoint), {
        method: 'HEAD',
        policy: this.policy(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      res.resume();
      if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return null;
      const len = res.headers['content-length'];
      return linkedSize ?? (len && /^\d+$/.test(len) ? Number(len) : null);
    } catch {
      return null;
    }
  }

  /** Stop transfers, keeping them resumable (call on app quit). */
  dispose(): Promise<void> {
    return this.downloader.dispose();
  }
}

