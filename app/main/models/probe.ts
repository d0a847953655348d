// What the server says about a file before we download it: its size and
// sha256. On Hugging Face both come from the `resolve` hop (X-Linked-Size,
// X-Linked-Etag); elsewhere from Content-Length of the final HEAD.
import type { IncomingMessage } from 'node:http';
import { ModelError } from './errors.js';
import type { HttpClient } from './http-client.js';
import { isRetryableStatus, retryAfterMs } from './retry.js';
import type { HostPolicy } from './url-policy.js';

export interface RemoteFacts {
  size: number | null;
  sha256: string | null;
}

export function headerValue(res: IncomingMessage, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function contentLength(res: IncomingMessage): number | null {
  const len = headerValue(res, 'content-length');
  return len && /^\d+$/.test(len) ? Number(len) : null;
}

export function statusError(status: number, host: string, file: string, res?: IncomingMessage): ModelError {
  const hint =
    status === 404
      ? `The file ${file} was not found on ${host}. The catalog may be out of date, or the mirror does not have it.`
      : status === 401 || status === 403
        ? `${host} refused access to ${file} (HTTP ${status}). If you use a mirror, check that it serves this repository.`
        : status >= 500
          ? `${host} had a server error (HTTP ${status}). Try again later; the download can be resumed.`
          : `${host} answered HTTP ${status} for ${file}.`;
  const retryAfter = res && isRetryableStatus(status) ? retryAfterMs(res.headers) : undefined;
  return new ModelError('HTTP_STATUS', hint, { status, host, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) });
}

/**
 * HEAD the download URL. Resolves null when the server does not do HEAD
 * (405/501: the GET will tell); rejects with HTTP_STATUS for error statuses
 * and with the raw error for network failures (the caller retries those).
 */
export async function probeRemote(
  http: HttpClient,
  url: string,
  file: string,
  policy: HostPolicy,
  signal?: AbortSignal,
): Promise<RemoteFacts | null> {
  const { res, linkedSize, linkedSha256, finalUrl } = await http.open(url, {
    method: 'HEAD',
    policy,
    signal,
    stopWhenLinked: true,
  });
  res.resume();
  const status = res.statusCode ?? 0;
  if (linkedSize !== null) return { size: linkedSize, sha256: linkedSha256 };
  if (status === 405 || status === 501) return null;
  if (status < 200 || status >= 300) throw statusError(status, finalUrl.hostname, file, res);
  return { size: contentLength(res), sha256: linkedSha256 };
}
