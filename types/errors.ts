// The one list of error codes. Every failure that crosses a boundary (the addon, the engine process, IPC,
// the web bridge) carries one of these as `.code`, so a caller picks wording and actions by code, never by
// message. Part of the bottom floor (types/): imports nothing, and everything may import it.

/** Errors the native engine throws (native/index.ts: `err.code`). */
export const ENGINE_ERROR_CODES = [
  'MODEL_INVALID', 'DEVICE_UNAVAILABLE', 'OUT_OF_MEMORY', 'ABORTED', 'BUSY', 'BAD_AUDIO', 'BAD_ARGUMENT', 'INTERNAL', 'ENGINE_MISSING',
] as const;

/** The engine host (app/main/engine): the engine process died, or nothing is loaded. */
export const HOST_ERROR_CODES = ['ENGINE_CRASHED', 'NO_MODEL'] as const;

/** The model manager (app/main/models/errors.ts: ModelError). */
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

/** IPC, sessions, files, meetings, the user-data folder. */
export const REQUEST_ERROR_CODES = [
  'INVALID_PAYLOAD', 'UNKNOWN_CHANNEL', 'AUDIO_TOO_FAST', 'SESSION_NOT_FOUND', 'NOT_FOUND', 'PERMISSION_DENIED', 'UNAUTHORIZED',
  'NOT_SUPPORTED', 'MEETING_RECORDING', 'MEETING_SOURCE_UNAVAILABLE', 'FILE_CHANGED', 'NO_VAD', 'USER_DATA_IN_USE',
] as const;

/** Speaker diarization (Settings › Speakers, Files › Speakers): no speaker model, a file that is not one, a run that gave nothing. */
export const DIARIZER_ERROR_CODES = ['NO_DIARIZER', 'DIARIZER_INVALID', 'DIARIZER_FAILED'] as const;

/** Notices (Notice.code): something degraded or changed without a request failing. */
export const NOTICE_CODES = [
  'ENGINE_RESTARTED', 'SETTINGS_RESET', 'RESTART_REQUIRED', 'MODEL_WARNING', 'DEVICE_SELF_TEST_FAILED', 'DEVICE_FAILED', 'DEVICE_SLOWER_THAN_CPU',
  'DEVICE_SELF_TEST_INCOMPLETE', 'HISTORY_WRITE_FAILED', 'HISTORY_UNREADABLE', 'HISTORY_RECOVERED', 'MEETING_RECOVERED', 'NO_SANDBOX',
  'DIAGNOSTICS_COPIED', 'VAD_FALLBACK', 'DEVICE_NO_ROOM',
] as const;

/** What the page itself reports (the microphone, the connection, the clipboard): never sent by main. */
export const PAGE_NOTICE_CODES = ['MIC_ENDED', 'MIC_FALLBACK', 'SESSION_INTERRUPTED', 'DISCONNECTED', 'CLIPBOARD'] as const;

/** Inserting text into other apps, the global hotkey; web mode's uploads. */
export const DESKTOP_ERROR_CODES = ['INSERT_FAILED', 'INSERT_COPIED', 'HOTKEY_UNAVAILABLE', 'UPLOAD_FAILED'] as const;

export const ERROR_CODES = [
  ...new Set([
    ...ENGINE_ERROR_CODES, ...HOST_ERROR_CODES, ...MODEL_ERROR_CODES, ...REQUEST_ERROR_CODES, ...DIARIZER_ERROR_CODES, ...NOTICE_CODES,
    ...DESKTOP_ERROR_CODES, ...PAGE_NOTICE_CODES,
  ]),
] as const;

export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];
export type ErrorCode =
  | EngineErrorCode | (typeof HOST_ERROR_CODES)[number] | ModelErrorCode | (typeof REQUEST_ERROR_CODES)[number] | (typeof DIARIZER_ERROR_CODES)[number]
  | (typeof NOTICE_CODES)[number] | (typeof DESKTOP_ERROR_CODES)[number] | (typeof PAGE_NOTICE_CODES)[number];

/** An error as it crosses IPC: a stable code and a message that says what to do. */
export interface CodedErrorData {
  code: ErrorCode | string;
  message: string;
}

/** A throwable Error that keeps its code (the IpcError of a Result, or an engine-process reply). */
export class CodedError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'CodedError';
  }

  static from(error: CodedErrorData): CodedError {
    return new CodedError(String(error.code), error.message);
  }
}
