// Static files of the built renderer, with the strict CSP and no way out of
// the renderer folder: encoded or literal '..' segments, backslashes and NUL
// are refused outright, and the resolved real path must stay inside the root
// (a symlink pointing elsewhere is refused too).
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wav': 'audio/wav',
};

const PLACEHOLDER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parakeet</title></head>
<body><h1>Parakeet Desktop</h1>
<p>The web bridge is running, but the user interface is not built. Run <code>npm run build</code> and reload this page.</p>
</body></html>
`;

export interface StaticOptions {
  root: string;
  /** Headers every response carries (CSP, nosniff, …). */
  headers: Record<string, string>;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The file a request path names inside root, or an HTTP status refusing it. */
export async function resolveStatic(root: string, urlPath: string): Promise<{ file: string } | { status: number; reason: string }> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { status: 400, reason: 'malformed path' };
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return { status: 400, reason: 'forbidden character in path' };
  const segments = decoded.split('/');
  if (segments.some((s) => s === '..' || s === '.')) return { status: 403, reason: 'path traversal refused' };
  const relative = segments.filter(Boolean).join('/') || 'index.html';
  const rootReal = await fs.realpath(root).catch(() => null);
  if (!rootReal) return { status: 404, reason: 'no renderer' };
  let candidate = path.resolve(rootReal, relative);
  // Paths without an extension are app routes: serve the page.
  if (!path.extname(relative)) candidate = path.join(rootReal, 'index.html');
  const real = await fs.realpath(candidate).catch(() => null);
  if (!real) return { status: 404, reason: 'not found' };
  const rel = path.relative(rootReal, real);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return { status: 403, reason: 'outside the renderer folder' };
  const stat = await fs.stat(real).catch(() => null);
  if (!stat?.isFile()) return { status: 404, reason: 'not found' };
  return { file: real };
}

/** `pathname`: the request target's path, parsed by the caller (which answers 400 when it does not parse). */
export async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string, opts: StaticOptions): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, 'method not allowed', { ...opts.headers, allow: 'GET, HEAD' });
    return;
  }
  const found = await resolveStatic(opts.root, pathname);
  if ('status' in found) {
    if (found.status === 404 && found.reason === 'no renderer') {
      res.writeHead(200, { ...opts.headers, 'content-type': TYPES['.html']!, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : PLACEHOLDER);
      return;
    }
    send(res, found.status, found.reason, opts.headers);
    return;
  }
  const ext = path.extname(found.file).toLowerCase();
  const stat = await fs.stat(found.file);
  res.writeHead(200, {
    ...opts.headers,
    'content-type': TYPES[ext] ?? 'application/octet-stream',
    'content-length': stat.size,
    // Hashed asset names may be cached; the page itself never (it names the current assets).
    'cache-control': ext === '.html' ? 'no-store' : 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(found.file).on('error', () => res.destroy()).pipe(res);
}
