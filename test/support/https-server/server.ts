// A real HTTPS server on 127.0.0.1 for download tests: routes by path, logs
// every request (method, Range, If-Range, status, bytes actually sent) and
// offers a file responder with the failure modes the downloader must survive.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { testCertificate } from './certificate.js';

export interface RecordedRequest {
  method: string;
  path: string;
  range: string | undefined;
  ifRange: string | undefined;
  proxied: boolean;
  status: number;
  bytesSent: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, log: RecordedRequest, nth: number) => void | Promise<void>;

export class TestHttpsServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes = new Map<string, Handler>();
  private readonly counts = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private server!: https.Server;
  port = 0;

  /** PEM of the self-signed certificate (pass as the downloader's `ca`). */
  readonly ca = testCertificate().cert;

  static async start(): Promise<TestHttpsServer> {
    const s = new TestHttpsServer();
    const { key, cert } = testCertificate();
    s.server = https.createServer({ key, cert }, (req, res) => void s.dispatch(req, res));
    s.server.on('connection', (sock: Socket) => {
      s.sockets.add(sock);
      sock.once('close', () => s.sockets.delete(sock));
    });
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  get origin(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Same server under another host name (for redirect allow-list tests). */
  get localhostOrigin(): string {
    return `https://localhost:${this.port}`;
  }

  route(path: string, handler: Handler): void {
    this.routes.set(path, handler);
  }

  requestsFor(path: string, method = 'GET'): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path && r.method === method);
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const log: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      range: req.headers.range,
      ifRange: req.headers['if-range'] as string | undefined,
      proxied: false,
      status: 0,
      bytesSent: 0,
    };
    this.requests.push(log);
    const origWrite = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(chunk)) log.bytesSent += chunk.length;
      return origWrite(chunk, ...rest);
    }) as ServerResponse['write'];
    const key = `${log.method} ${log.path}`;
    const nth = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, nth);
    const handler = this.routes.get(url.pathname);
    try {
      if (!handler) {
        res.statusCode = 404;
        res.end('not found');
      } else {
        await handler(req, res, log, nth);
      }
    } catch {
      res.destroy();
    } finally {
      log.status = res.statusCode;
    }
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface ServeOptions {
  /** Answer Range requests with the whole file (200), like servers without range support. */
  ignoreRange?: boolean;
  /** Destroy the connection after this many body bytes (simulates a cut). */
  cutAfter?: number;
  /** Bytes per write and pause between writes (a slow server). */
  chunkSize?: number;
  delayMs?: number;
  /** Flip one byte at this offset (corruption in transit/storage). */
  corruptAt?: number;
  /** ETag to send (strong by default). */
  etag?: string;
  extraHeaders?: Record<string, string>;
}

/** Serve `data` with HEAD and Range support, plus the failure modes in opts. */
export async function serveBytes(req: IncomingMessage, res: ServerResponse, data: Buffer, opts: ServeOptions = {}): Promise<void> {
  const etag = opts.etag ?? `"cdn-${sha256(data).slice(0, 16)}"`;
  const headers: Record<string, string> = { 'accept-ranges': 'bytes', etag, 'content-type': 'application/octet-stream', ...opts.extraHeaders };
  let start = 0;
  let status = 200;
  const range = req.headers.range;
  const ifRange = req.headers['if-range'];
  if (range && !opts.ignoreRange && (!ifRange || ifRange === etag)) {
    const m = /^bytes=(\d+)-$/.exec(range);
    if (m) {
      start = Number(m[1]);
      if (start >= data.length) {
        res.writeHead(416, { ...headers, 'content-range': `bytes */${data.length}` });
        res.end();
        return;
      }
      status = 206;
      headers['content-range'] = `bytes ${start}-${data.length - 1}/${data.length}`;
    }
  }
  headers['content-length'] = String(data.length - start);
  res.writeHead(status, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  let body = data.subarray(start);
  if (opts.corruptAt !== undefined && opts.corruptAt >= start) {
    body = Buffer.from(body);
    const i = opts.corruptAt - start;
    body[i] = (body[i] ?? 0) ^ 0xff;
  }
  const chunk = opts.chunkSize ?? 16 * 1024;
  let sent = 0;
  for (let off = 0; off < body.length; off += chunk) {
    if (res.destroyed) return;
    let piece = body.subarray(off, off + chunk);
    if (opts.cutAfter !== undefined && sent + piece.length > opts.cutAfter) piece = piece.subarray(0, opts.cutAfter - sent);
    if (piece.length) {
      const ok = res.write(piece);
      sent += piece.length;
      if (!ok) await new Promise((r) => res.once('drain', r));
    }
    if (opts.cutAfter !== undefined && sent >= opts.cutAfter) {
      await sleep(30); // let the bytes reach the client, then cut the connection
      res.socket?.destroy();
      return;
    }
    if (opts.delayMs) await sleep(opts.delayMs);
  }
  res.end();
}

/**
 * Hugging Face's shape: GET/HEAD on the `resolve` URL answers 302 with
 * X-Linked-Size / X-Linked-Etag (sha256) / ETag, pointing at a CDN path that
 * serves the bytes.
 */
export function hfRedirect(
  cdnUrl: string,
  data: Buffer,
  opts: { linkedSha256?: string | null; linkedSize?: number | null } = {},
): Handler {
  return (_req, res) => {
    const sha = opts.linkedSha256 === undefined ? sha256(data) : opts.linkedSha256;
    const size = opts.linkedSize === undefined ? data.length : opts.linkedSize;
    const headers: Record<string, string> = { location: cdnUrl };
    if (sha) {
      headers['x-linked-etag'] = `"${sha}"`;
      headers.etag = `"${sha}"`;
    }
    if (size !== null) headers['x-linked-size'] = String(size);
    res.writeHead(302, headers);
    res.end();
  };
}
