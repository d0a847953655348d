// The web bridge's guards. The server listens on loopback only, but any web
// page the user visits can still reach 127.0.0.1: the Host check stops DNS
// rebinding (a foreign name resolving to 127.0.0.1), the Origin check stops
// other local pages from opening the bridge, and the per-start token (handed
// to our page in the URL fragment, never sent in a request line except on the
// WebSocket upgrade) is what authorizes a client.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

/**
 * Only the loopback names the Host and Origin checks and the printed URL know. Another 127.x address is
 * loopback too, but a page served there would have every request refused (421) and its bridge blocked.
 */
export function isLoopbackBind(host: string): boolean {
  return (LOOPBACK_HOSTS as readonly string[]).includes(host);
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (both sides hashed first, so lengths never leak either). */
export function tokenMatches(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > 512) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Host header values this server answers to (anything else is a rebinding attempt or a mistake). */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function hostAllowed(host: string | undefined, port: number): boolean {
  return typeof host === 'string' && allowedHosts(port).has(host.toLowerCase());
}

/**
 * Exactly one Host header (RFC 9112 §3.2: a request with several is a 400). Node's parser keeps only the
 * first in `headers.host`, so `ours, evil.example` would pass the Host check; the raw list tells.
 */
export function singleHost(rawHeaders: readonly string[]): boolean {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') hosts += 1;
  return hosts === 1;
}

/** Origin of a WebSocket upgrade: absent (non-browser clients, which still need the token) or our own page. */
export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`].includes(origin.toLowerCase());
}

/**
 * The request target as a URL, or null when it does not parse (`//[` is a host that is not one): `new URL`
 * throws, and a throw in an HTTP server listener is uncaught, so every listener asks this instead.
 */
export function parseTarget(target: string | undefined): URL | null {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return null;
  }
}
