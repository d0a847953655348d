// The model manager's data as it crosses IPC: catalog entries, downloads,
// installed models and the first-run proposal. Declared on the bottom floor (types/: imports nothing
// beyond it); the IPC contract re-exports them and app/main/models imports them.
import type { ErrorCode } from './errors.js';

/** Decoder heads a model file carries (detected by the engine from tensor presence). */
export type DecoderHead = 'ctc' | 'rnnt' | 'tdt';

export type DownloadState =
  | 'queued'
  | 'downloading'
  | 'paused'
  | 'verifying'
  | 'validating'
  | 'installed'
  | 'failed'
  | 'cancelled';

export interface ErrorInfo {
  code: ErrorCode | string;
  message: string;
  details?: ModelErrorDetails;
}

export interface DownloadSnapshot {
  /** Catalog id of the model being downloaded (one download per catalog id). */
  id: string;
  file: string;
  state: DownloadState;
  receivedBytes: number;
  /** Authoritative size once known from the server, else the catalog estimate, else null. */
  totalBytes: number | null;
  /** Where the expected sha256 came from ('catalog' wins over 'server'). */
  hashSource: 'catalog' | 'server' | null;
  error: ErrorInfo | null;
  /**
   * Downloading, but the connection failed and the next attempt waits: attempt n of `of`, when it starts
   * (epoch ms) and why; null while bytes flow. So a stalled bar says it is retrying instead of sitting at 0 %.
   */
  retrying?: { attempt: number; of: number; at: number; reason: string } | null;
}

export interface DownloadProgress {
  id: string;
  receivedBytes: number;
  totalBytes: number | null;
  bytesPerSecond: number;
  etaSeconds: number | null;
}

export interface LicenseInfo {
  /** SPDX id when there is one ('CC-BY-4.0'), else null. */
  spdx: string | null;
  name: string;
  url: string;
  /** True only when the licence was read from the upstream model page itself. */
  confirmed: boolean;
  /** Text the licence requires us to show (CC-BY attribution). */
  attribution: string;
}

export type InstalledSource =
  | { kind: 'catalog'; catalogId: string }
  | { kind: 'imported'; originalName: string }
  /** A file the user opened: used from where it is (never copied, never deleted by the app); `file` is its absolute path. */
  | { kind: 'linked'; path: string };

export interface InstalledModel {
  /** Catalog id for downloads; `imported/<name>` for imports; `linked/<name>` for opened files. */
  id: string;
  displayName: string;
  /** File name relative to the models folder; the absolute path of a linked file. */
  file: string;
  bytes: number;
  /** Empty for a linked file: it is the user's, not hashed (it may change under us; the size check notices). */
  sha256: string;
  source: InstalledSource;
  /** From the engine's validation. */
  architecture: string;
  decoders: DecoderHead[];
  /** Quantization variant for catalog models ('q8_0', …); null for imports. */
  variant: string | null;
  /** Licence of catalog models; null for imports (unknown to us). */
  license: LicenseInfo | null;
  installedAt: string;
}

export interface FirstRunChoice {
  kind: 'english-dictation' | 'multilingual';
  catalogId: string;
  displayName: string;
  file: string;
  /** Size to show before starting; null if neither the server nor the catalog knows it. */
  bytes: number | null;
  bytesSource: 'server' | 'catalog-estimate' | null;
  installed: boolean;
  languages: string[];
  license: LicenseInfo;
}

export interface FirstRunProposal {
  /** The option to preselect. */
  recommended: FirstRunChoice['kind'];
  choices: FirstRunChoice[];
  /** A quick measurement of this CPU (a Q8_0 matmul in the engine), when the engine could run it. */
  machine?: MachineSpeed | null;
}

/** How fast this machine's CPU runs the engine's main kernel, and what that means for each proposal. */
export interface MachineSpeed {
  gflops: number;
  threads: number;
  /** Estimated real-time factor per proposal kind (× real time; from the measured rate). */
  realTime: Record<FirstRunChoice['kind'], number>;
  speedClass: 'fast' | 'fine' | 'slow';
}

export interface ModelErrorDetails {
  status?: number;
  url?: string;
  host?: string;
  expected?: string | number;
  actual?: string | number;
  bytesNeeded?: number;
  bytesAvailable?: number;
  /** Server's Retry-After for 429/503, honoured by the retry loop. */
  retryAfterMs?: number;
}

/** Quantization variants of the catalog's files. */
export type ModelVariant = 'f16' | 'q8_0' | 'q6_k' | 'q5_k' | 'q4_k';

/** What a catalog entry is recommended for (the first-run proposal's kinds). */
export type RecommendedFor = 'english-dictation' | 'multilingual';

export interface CatalogLicense extends LicenseInfo {
  /** Where the licence statement was read. */
  source: string;
}

/** One downloadable file: a checkpoint in one quantization. */
export interface CatalogEntry {
  /** `<slug>-<variant>` = file name without `.gguf`; stable id used everywhere. */
  id: string;
  slug: string;
  variant: ModelVariant;
  file: string;
  /** Canonical download URL on huggingface.co (a mirror endpoint replaces the origin). */
  url: string;
  /** Catalog estimate; never authoritative (the server's size is). */
  approxBytes: number | null;
  sizeSource: string | null;
  /** Pinned sha256 (lowercase hex) or null when the project has not confirmed one. */
  sha256: string | null;
  recommended: RecommendedFor | null;
  notes: string | null;
  // Per-checkpoint facts, repeated on each entry for convenience.
  upstream: string;
  displayName: string;
  architecture: string;
  decoders: DecoderHead[];
  parameters: string;
  languages: string[];
  languagesNote: string | null;
  casing: boolean;
  punctuation: boolean;
  streaming: boolean;
  /** 'not-yet': the file exists but our engine cannot run it; downloads are refused. */
  engineSupport: 'supported' | 'not-yet';
  recommendedUse: string;
  license: CatalogLicense;
}
