// Which failures are worth retrying, and how long to wait between attempts.
import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelError, errnoCode, errorMessage, isModelError } from './errors.js';

export interface RetryOptions {
  /** Consecutive failed attempts (without any new byte) before giving up. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000 };

const RETRYABLE_ERRNO = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND', // also seen briefly after wake-up or a network switch
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
]);

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

export function isRetryable(e: unknown): boolean {
  if (isModelError(e)) {
    if (e.code === 'NETWORK') return e.details.status !== 407; // wrong proxy credentials will not fix themselves
    return e.code === 'HTTP_STATUS' && e.status !== undefined && isRetryableStatus(e.status);
  }
  const code = errnoCode(e);
  if (code && RETRYABLE_ERRNO.has(code)) return true;
  // Node reports a body cut mid-stream as Error('aborted') / 'socket hang up'.
  const msg = errorMessage(e);
  return msg === 'aborted' || msg.includes('socket hang up') || msg.includes('Premature close');
}

/** A raw network error as a ModelError the user can act on. */
export function toNetworkError(e: unknown, host: string): ModelError {
  if (isModelError(e)) return e;
  const code = errnoCode(e) ?? '';
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/.test(code)) {
    return new ModelError(
      'NETWORK',
      `The certificate of ${host} is not trusted (${code}). If a corporate proxy or antivirus inspects HTTPS, ` +
        'its certificate must be installed; certificate checks are never switched off for model downloads.',
      { host },
      { cause: e },
    );
  }
  if (code === 'ENOTFOUND') {
    return new ModelError('NETWORK', `The host ${host} could not be found. Check your internet connection, proxy or mirror setting.`, { host }, { cause: e });
  }
  return new ModelError(
    'NETWORK',
    `The connection to ${host} failed (${errorMessage(e)}). Check your internet connection or proxy; the download can be resumed.`,
    {},
    { cause: e },
  );
}

export function backoffMs(attempt: number, opts: RetryOptions, retryAfter?: number): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exp / 2 + Math.random() * (exp / 2);
  return retryAfter !== undefined ? Math.min(opts.maxDelayMs, Math.max(retryAfter, jittered)) : jittered;
}

export function retryAfterMs(headers: IncomingHttpHeaders): number | undefined {
  const v = headers['retry-after'];
  if (typeof v !== 'string') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

export async function wait(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw signal.reason;
  }
}
