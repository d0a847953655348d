// Errors of the model manager. Every failure carries a stable `.code` so the
// IPC layer can forward `{code, message}` (Electron keeps only `.message` of a
// thrown Error) and the renderer can pick wording/actions by code.
import { MODEL_ERROR_CODES, type ModelErrorCode } from '../../../types/errors.js';
import type { ModelErrorDetails } from '../../../types/models.js';

export type { ModelErrorDetails };

/** The model manager's codes are part of the one list (types/errors.ts). */
export { MODEL_ERROR_CODES, type ModelErrorCode };

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
