// One HTTPS request with redirects followed under the host policy. Keeps the
// Hugging Face "linked" headers from whichever hop carried them: the
// huggingface.co hop of an LFS/Xet file answers with X-Linked-Size and
// X-Linked-Etag ("<sha256>") before redirecting to the CDN.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { ModelError } from './errors.js';
import { TunnelAgent, envProxyFor, type ProxyUrl, type ResolveProxy } from './proxy.js';
import type { HostPolicy } from './url-policy.js';

export interface NetworkOptions {
  /** Extra CA certificate(s) trusted in addition to Node's bundled roots. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Explicit proxy for every request (null = direct). Ignored when resolveProxy is given. */
  proxy?: ProxyUrl;
  /** Per-URL proxy resolver (Electron: session.resolveProxy → parsePacResult). */
  resolveProxy?: ResolveProxy;
  /** Socket inactivity limit (connect, headers and body). */
  idleTimeoutMs?: number;
  maxRedirects?: number;
  /** Environment for HTTPS_PROXY/NO_PROXY (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  userAgent?: string;
}

export interface LinkedInfo {
  /** X-Linked-Size from the Hugging Face hop, else null. */
  linkedSize: number | null;
  /** sha256 from X-Linked-Etag (or the HF hop's ETag when it is a bare sha256). */
  linkedSha256: string | null;
}

export interface OpenResult extends LinkedInfo {
  res: IncomingMessage;
  finalUrl: URL;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const SHA256_RE = /^[0-9a-f]{64}$/;

/** `"abc…"` / `W/"abc…"` → `abc…` if it is a sha256, else null. */
export function sha256FromEtag(value: string | string[] | undefined): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
  return SHA256_RE.test(v) ? v : null;
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Node's rejectUnauthorized stays on; `ca` is added to (not substituted for) the bundled roots. */
export function withRootCAs(ca: NetworkOptions['ca']): Array<string | Buffer> | undefined {
  if (ca === undefined) return undefined;
  const extra = Array.isArray(ca) ? ca : [ca];
  // tls.rootCertificates is Node's bundled Mozilla store. (NODE_EXTRA_CA_CERTS is
  // applied by Node itself, but only when no `ca` is passed at all.)
  return [...rootCertificates, ...extra];
}

export class HttpClient {
  private readonly opts: NetworkOptions;
  // Parsed once: building a context from ~150 root PEMs costs ~100 ms, far too
  // much to repeat for every connection.
  private readonly secureContext: SecureContext | undefined;
  private readonly directAgent: https.Agent;

  constructor(opts: NetworkOptions = {}) {
    this.opts = opts;
    const ca = withRootCAs(opts.ca);
    this.secureContext = ca ? createSecureContext({ ca }) : undefined;
    this.directAgent = new https.Agent({ keepAlive: false, secureContext: this.secureContext });
  }

  private async proxyFor(url: URL): Promise<ProxyUrl> {
    if (this.opts.resolveProxy) return this.opts.resolveProxy(url.href);
    if (this.opts.proxy !== undefined) return this.opts.proxy;
    return envProxyFor(url, this.opts.env ?? process.env);
  }

  private async agentFor(url: URL): Promise<https.Agent> {
    const proxy = await this.proxyFor(url);
    if (!proxy) return this.directAgent;
    let proxyUrl: URL;
    try {
      proxyUrl = new URL(proxy);
    } catch {
      throw new ModelError('NETWORK', `The proxy setting "${proxy}" is not a valid URL.`);
    }
    return new TunnelAgent({ proxy: proxyUrl, secureContext: this.secureContext, timeoutMs: this.opts.idleTimeoutMs });
  }

  /**
   * Send `method` to `url`, following redirects allowed by `policy`. Resolves
   * with the first non-redirect response (any status); the caller reads or
   * discards its body. Network failures reject with the raw error (the
   * caller classifies retryable ones); policy violations with ModelError.
   */
  async open(
    url: string,
    init: {
      method: 'GET' | 'HEAD';
      headers?: OutgoingHttpHeaders;
      policy: HostPolicy;
      signal?: AbortSignal;
      /** Return the redirect itself once it carried X-Linked-Size: a probe needs
       *  nothing more, and signed CDN URLs may refuse HEAD. */
      stopWhenLinked?: boolean;
    },
  ): Promise<OpenResult> {
    let current = init.policy.check(url);
    let method = init.method;
    let linkedSize: number | null = null;
    let linkedSha256: string | null = null;
    const maxRedirects = this.opts.maxRedirects ?? 8;
    for (let hop = 0; ; hop += 1) {
      const res = await this.once(current, method, init.headers ?? {}, init.signal);
      const size = header(res.headers, 'x-linked-size');
      if (linkedSize === null && size && /^\d+$/.test(size)) linkedSize = Number(size);
      linkedSha256 ??= sha256FromEtag(header(res.headers, 'x-linked-etag'));
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        res.resume(); // discard the redirect body
        // HF's resolve hop sends ETag = sha256 for LFS files even without X-Linked-Etag.
        if (hop === 0 && current.hostname.endsWith('huggingface.co')) linkedSha256 ??= sha256FromEtag(res.headers.etag);
        if (init.stopWhenLinked && linkedSize !== null) return { res, finalUrl: current, linkedSize, linkedSha256 };
        const location = header(res.headers, 'location');
        if (!location) throw new ModelError('HTTP_STATUS', `The server answered ${status} without a Location header.`, { status });
        if (hop + 1 > maxRedirects) {
          throw new ModelError('TOO_MANY_REDIRECTS', `Too many redirects while downloading ${url}.`, { url });
        }
        current = init.policy.check(new URL(location, current).href, 'redirect');
        if (status === 303) method = 'GET';
        continue;
      }
      return { res, finalUrl: current, linkedSize, linkedSha256 };
    }
  }

  private async once(url: URL, method: string, headers: OutgoingHttpHeaders, signal?: AbortSignal): Promise<IncomingMessage> {
    const agent = await this.agentFor(url);
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = https.request(url, {
        method,
        agent,
        signal,
        headers: { 'user-agent': this.opts.userAgent ?? 'parakeet-desktop-model-manager', ...headers },
      });
      const idle = this.opts.idleTimeoutMs ?? 30_000;
      // Socket inactivity applies to the whole exchange, body included.
      req.setTimeout(idle, () => req.destroy(new ModelError('NETWORK', `No data from ${url.hostname} for ${Math.round(idle / 1000)} s.`)));
      const release = (): void => {
        if (agent !== this.directAgent) agent.destroy(); // one-shot tunnel agents
      };
      req.once('response', (res) => {
        res.once('close', release);
        resolve(res);
      });
      req.once('error', (e) => {
        release();
        reject(e);
      });
      req.end();
    });
  }
}
