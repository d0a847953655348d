// Public types of the model manager service. What crosses IPC is declared in
// the bottom floor (types/models.ts) and re-exported here; the engine hook
// and the events are the service's own.
import type { DecoderHead, DownloadProgress, DownloadSnapshot, InstalledModel } from '../../../types/models.js';

export type {
  CatalogEntry, CatalogLicense, DecoderHead, DownloadProgress, DownloadSnapshot, DownloadState, ErrorInfo, FirstRunChoice,
  FirstRunProposal, InstalledModel, InstalledSource, LicenseInfo, MachineSpeed, ModelErrorDetails, ModelVariant, RecommendedFor,
} from '../../../types/models.js';

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
export interface ValidateOptions {
  /** Also run the engine's CPU known-answer self-test (a file the app converted, e.g. from a .nemo). */
  selfTest?: boolean;
}

export type ValidateModel = (path: string, signal?: AbortSignal, options?: ValidateOptions) => Promise<ValidatedModelInfo>;

export interface ModelManagerEvents {
  progress: [DownloadProgress];
  state: [DownloadSnapshot];
  /** The installed list or the active model changed; re-read listInstalled()/getActive(). */
  installed: [{ installed: InstalledModel[]; activeId: string | null }];
  /** Non-fatal notices (catalog/server hash disagreement, unknown size, …). */
  warning: [{ id: string; message: string }];
  /** A .nemo import's conversion: the fraction of its tensors written (0..1). */
  importProgress: [{ path: string; fraction: number }];
}
