// Errors of the model manager. Every failure carries a stable `.code` so the
// IPC layer can forward `{code, message}` (Electron keeps only `.message` of a
// thrown Error) and the renderer can pick wording/actions by code.
import type { ModelErrorDetails } from '../../../types/models.js';

export type { ModelErrorDetails };

export const MODEL_ERROR_CODES = [
  'NETWORK', // connection failed/cut and retries ran out
  'HTTP_STATUS', // server answered with an unexpected status (see `.status`)
  'HASH_MISMATCH', // sha256 of the downloaded bytes differs from the expected one
  'HASH_UNAVAILABLE', // neither the catalog nor the server gave a sha256: cannot verify
  'SIZE_MISMATCH', // byte count differs from the expected size
  'DISK_FULL', // not enough free space (checked up front, or ENOSPC while writing)
  'CANCELLED', // the user cancelled
  'INSECURE_URL', // a non-https URL or endpoint
  'HOST_NOT_ALLOWED', // a URL or redirect to a host outside the allowlist
  'TOO_MANY_REDIRECTS',
  'MODEL_INVALID', // the engine refused the file (message is the engine's)
  'UNKNOWN_MODEL', // no such catalog id / installed id
  'UNSUPPORTED_MODEL', // in the catalog, but our engine cannot run it yet
  'IO_ERROR', // other file-system failure
  'CATALOG_INVALID', // the bundled catalog data failed validation
] as const;

export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

export class ModelError extends Error {
  readonly code: ModelErrorCode;
  readonly details: ModelErrorDetails;

  constructor(code: ModelErrorCode, message: string, details: ModelErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ModelError';
    this.code = code;
    this.details = details;
  }

  /** HTTP status for HTTP_STATUS errors (mirrors details.status for convenience). */
  get status(): number | undefined {
    return this.details.status;
  }

  /** Plain, structured-clone-safe form for IPC. */
  toJSON(): { code: ModelErrorCode; message: string; details: ModelErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export function isModelError(e: unknown): e is ModelError {
  return e instanceof ModelError;
}

/** Node fs error with a code (ENOSPC, ENOENT, …). */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e) {
    const code = (e as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

import { formatBytes } from '../../shared/bytes.js';

export { formatBytes };

export function diskFullError(bytesNeeded: number, bytesAvailable: number, dir: string, cause?: unknown): ModelError {
  return new ModelError(
    'DISK_FULL',
    `Not enough disk space in ${dir}: ${formatBytes(bytesNeeded)} needed, ${formatBytes(bytesAvailable)} free. ` +
      'Free some space (or delete an installed model) and try again; bytes already downloaded are kept.',
    { bytesNeeded, bytesAvailable },
    { cause },
  );
}
