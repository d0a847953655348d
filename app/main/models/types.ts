// Public types of the model manager service. Electron-free and
// structured-clone friendly: everything here can cross IPC as is.
import type { ModelErrorCode, ModelErrorDetails } from './errors.js';

/** Decoder heads a model file carries (detected by the engine from tensor presence). */
export type DecoderHead = 'ctc' | 'rnnt' | 'tdt';

/**
 * What the engine reports after it loaded a file successfully. The engine
 * owner fills this from the GGUF (`parakeet.arch`, tensors present, …).
 */
export interface ValidatedModelInfo {
  /** `parakeet.arch` as written in the file, e.g. 'hybrid_tdt_ctc'. */
  architecture: string;
  /** Decoder heads the engine can run from this file. */
  decoders: DecoderHead[];
  /** `general.name`, when present. */
  name?: string;
  vocabSize?: number;
  sampleRate?: number;
  /** Cache-aware streaming checkpoint (att_context_style != regular). */
  streaming?: boolean;
}

/**
 * Engine hook: load the file once and prove it is a usable model. Must reject
 * with an Error whose `.code` is 'MODEL_INVALID' (or another engine code) and
 * whose message says what is wrong; the manager passes the message through.
 * Must not care about the file extension (downloads are validated while still
 * named `<file>.partial`).
 */
export type ValidateModel = (path: string, signal?: AbortSignal) => Promise<ValidatedModelInfo>;

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
  code: ModelErrorCode | string;
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
  | { kind: 'imported'; originalName: string };

export interface InstalledModel {
  /** Catalog id for downloads; `imported/<name>` for imports. */
  id: string;
  displayName: string;
  /** File name relative to the models folder. */
  file: string;
  bytes: number;
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

export interface ModelManagerEvents {
  progress: [DownloadProgress];
  state: [DownloadSnapshot];
  /** The installed list or the active model changed; re-read listInstalled()/getActive(). */
  installed: [{ installed: InstalledModel[]; activeId: string | null }];
  /** Non-fatal notices (catalog/server hash disagreement, unknown size, …). */
  warning: [{ id: string; message: string }];
}
