// Proxy support for model downloads: the system proxy is honoured through
// HTTPS_PROXY/NO_PROXY (plain Node) or an explicit resolver (the Electron
// adapter feeds session.resolveProxy). HTTPS goes through an HTTP CONNECT
// tunnel, so TLS stays end-to-end and certificates are still checked.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { ModelError, errorMessage } from './errors.js';

/** A proxy URL (`http://[user:pass@]host:port` or `https://…`), or null for a direct connection. */
export type ProxyUrl = string | null;

/** Per-URL proxy lookup (e.g. from Electron's session.resolveProxy + parsePacResult). */
export type ResolveProxy = (url: string) => Promise<ProxyUrl>;

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  // Lower case first, as curl does; empty means unset.
  const v = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return v && v.trim() ? v.trim() : undefined;
}

/** NO_PROXY semantics as in curl: comma/space separated hosts, optional leading
 *  dot or `*.`, optional `:port`, `*` for everything. (CIDR ranges are not supported.) */
export function noProxyMatches(hostname: string, port: number, noProxy: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  for (const rawEntry of noProxy.split(/[\s,]+/)) {
    let entry = rawEntry.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    let entryPort: number | undefined;
    const m = /^(.*):(\d+)$/.exec(entry);
    if (m && !entry.includes(']') && (m[1] ?? '').split(':').length === 1) {
      entry = m[1] ?? '';
      entryPort = Number(m[2]);
    }
    entry = entry.replace(/^\[|\]$/g, '').replace(/^\*?\./, '');
    if (entryPort !== undefined && entryPort !== port) continue;
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

/** The proxy the environment asks for, for an https URL. */
export function envProxyFor(target: URL, env: NodeJS.ProcessEnv = process.env): ProxyUrl {
  const proxy = envValue(env, 'https_proxy') ?? envValue(env, 'all_proxy');
  if (!proxy) return null;
  const noProxy = envValue(env, 'no_proxy');
  const port = Number(target.port || 443);
  if (noProxy && noProxyMatches(target.hostname, port, noProxy)) return null;
  return proxy.includes('://') ? proxy : `http://${proxy}`;
}

/**
 * Turn a PAC-style answer (what Electron's `session.resolveProxy` returns,
 * e.g. "PROXY proxy:8080; DIRECT") into a proxy URL. SOCKS is not supported:
 * rather than silently bypassing a configured proxy we fail with a clear error.
 */
export function parsePacResult(pac: string): ProxyUrl {
  for (const part of pac.split(';')) {
    const [kind, hostPort] = part.trim().split(/\s+/, 2);
    if (!kind) continue;
    const k = kind.toUpperCase();
    if (k === 'DIRECT') return null;
    if ((k === 'PROXY' || k === 'HTTP') && hostPort) return `http://${hostPort}`;
    if (k === 'HTTPS' && hostPort) return `https://${hostPort}`;
    if (k.startsWith('SOCKS')) {
      throw new ModelError(
        'NETWORK',
        `The system proxy for downloads is a SOCKS proxy (${part.trim()}), which model downloads do not support. ` +
          'Use an HTTP proxy, or import the model file manually.',
      );
    }
  }
  return null;
}

export interface TunnelAgentOptions {
  proxy: URL;
  /** TLS trust for the origin (and for an https:// proxy); default: Node's roots. */
  secureContext?: tls.SecureContext;
  timeoutMs?: number;
}

/**
 * https.Agent whose sockets are TLS connections running inside an HTTP
 * CONNECT tunnel through `proxy`. One tunnel per request (no keep-alive),
 * which is plenty for a handful of large downloads.
 */
export class TunnelAgent extends https.Agent {
  private readonly proxy: URL;
  private readonly secureContext: tls.SecureContext | undefined;
  private readonly timeoutMs: number;

  constructor(opts: TunnelAgentOptions) {
    super({ keepAlive: false, secureContext: opts.secureContext });
    if (opts.proxy.protocol !== 'http:' && opts.proxy.protocol !== 'https:') {
      throw new ModelError('NETWORK', `Unsupported proxy scheme ${opts.proxy.protocol} (use http:// or https://).`);
    }
    this.proxy = opts.proxy;
    this.secureContext = opts.secureContext;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const done = callback ?? (() => undefined);
    const host = options.host ?? options.hostname ?? 'localhost';
    const port = Number(options.port ?? 443);
    const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const headers: http.OutgoingHttpHeaders = { host: target };
    if (this.proxy.username) {
      const cred = `${decodeURIComponent(this.proxy.username)}:${decodeURIComponent(this.proxy.password)}`;
      headers['proxy-authorization'] = `Basic ${Buffer.from(cred).toString('base64')}`;
    }
    const lib = this.proxy.protocol === 'https:' ? https : http;
    const req = lib.request({
      host: this.proxy.hostname.replace(/^\[|\]$/g, ''),
      port: Number(this.proxy.port || (this.proxy.protocol === 'https:' ? 443 : 80)),
      method: 'CONNECT',
      path: target,
      headers,
      agent: false,
      timeout: this.timeoutMs,
      ...(this.proxy.protocol === 'https:' && this.secureContext ? { secureContext: this.secureContext } : {}),
    });
    let settled = false;
    const settle = (err: Error | null, stream?: Duplex): void => {
      if (settled) return;
      settled = true;
      if (err) done(err, undefined as unknown as Duplex);
      else if (stream) done(null, stream);
    };
    req.once('connect', (res, socket, head) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        settle(
          new ModelError(
            'NETWORK',
            `The proxy ${this.proxy.host} refused to open a tunnel to ${target} (HTTP ${res.statusCode}). Check the proxy settings.`,
            { status: res.statusCode },
          ),
        );
        return;
      }
      if (head.length) socket.unshift(head);
      const secure = tls.connect({
        socket,
        servername: typeof options.servername === 'string' ? options.servername : host,
        secureContext: this.secureContext,
        ALPNProtocols: ['http/1.1'],
      });
      settle(null, secure);
    });
    req.once('timeout', () => req.destroy(new Error(`proxy ${this.proxy.host} did not answer within ${this.timeoutMs} ms`)));
    req.once('error', (e) =>
      settle(new ModelError('NETWORK', `Could not reach the proxy ${this.proxy.host}: ${errorMessage(e)}`, {}, { cause: e })),
    );
    req.end();
    return undefined;
  }
}
