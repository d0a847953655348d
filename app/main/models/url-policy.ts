// Which URLs the downloader may fetch: HTTPS only, and only hosts we trust to
// serve the catalog's files (Hugging Face and its CDNs, plus the user's mirror).
import { ModelError } from './errors.js';

/** Hugging Face serves `resolve` URLs from huggingface.co and redirects LFS/Xet
 *  files to CDN hosts (cdn-lfs*.hf.co, cas-bridge.xethub.hf.co, *.huggingface.co). */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = ['huggingface.co', '*.huggingface.co', 'hf.co', '*.hf.co'];

export const CANONICAL_ORIGIN = 'https://huggingface.co';

export function parseHttpsUrl(raw: string, what = 'URL'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ModelError('INSECURE_URL', `The ${what} "${raw}" is not a valid URL. Use an https:// address.`, { url: raw });
  }
  if (url.protocol !== 'https:') {
    throw new ModelError(
      'INSECURE_URL',
      `The ${what} "${raw}" does not use HTTPS. Only https:// addresses are allowed, so that downloads cannot be tampered with on the way.`,
      { url: raw },
    );
  }
  if (url.username || url.password) {
    throw new ModelError('INSECURE_URL', `The ${what} must not contain a user name or password.`, { url: url.origin });
  }
  return url;
}

/**
 * Validate a mirror endpoint (the "Hugging Face mirror" setting): a base URL
 * that replaces https://huggingface.co. Returns the normalised base without a
 * trailing slash, or null for "no mirror".
 */
export function normalizeEndpoint(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined || raw.trim() === '') return null;
  const url = parseHttpsUrl(raw.trim(), 'mirror endpoint');
  if (url.search || url.hash) {
    throw new ModelError('INSECURE_URL', 'The mirror endpoint must be a plain base address without ?query or #fragment.', {
      url: url.origin,
    });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Download URL for a catalog URL, with the mirror endpoint (if any) in place of huggingface.co. */
export function resolveDownloadUrl(catalogUrl: string, endpoint: string | null): string {
  if (!endpoint) return catalogUrl;
  if (!catalogUrl.startsWith(`${CANONICAL_ORIGIN}/`)) return catalogUrl;
  return `${endpoint}${catalogUrl.slice(CANONICAL_ORIGIN.length)}`;
}

export class HostPolicy {
  private readonly patterns: string[];

  constructor(patterns: readonly string[]) {
    this.patterns = patterns.map((p) => p.toLowerCase());
  }

  static create(endpoint: string | null, extraHosts: readonly string[] = []): HostPolicy {
    const hosts = [...DEFAULT_ALLOWED_HOSTS, ...extraHosts];
    if (endpoint) hosts.push(new URL(endpoint).hostname);
    return new HostPolicy(hosts);
  }

  allows(hostname: string): boolean {
    const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
    return this.patterns.some((p) => (p.startsWith('*.') ? host.endsWith(p.slice(1)) : host === p));
  }

  /** Throws INSECURE_URL / HOST_NOT_ALLOWED; returns the parsed URL. */
  check(raw: string, context: 'request' | 'redirect' = 'request'): URL {
    const url = parseHttpsUrl(raw, context === 'redirect' ? 'redirect target' : 'download URL');
    if (!this.allows(url.hostname)) {
      throw new ModelError(
        'HOST_NOT_ALLOWED',
        context === 'redirect'
          ? `The server redirected the download to ${url.hostname}, which is not a Hugging Face host or your mirror. ` +
              'The download was stopped. If you use a mirror whose files live on another host, add that host in the settings.'
          : `Downloads are only allowed from Hugging Face or your mirror, not from ${url.hostname}.`,
        { host: url.hostname, url: url.origin },
      );
    }
    return url;
  }
}
