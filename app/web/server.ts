// Web mode: the main-process services behind a loopback-only, token-protected
// WebSocket bridge, serving the built renderer. It is how the end-to-end tests
// run where Electron cannot, and a way to use the app from a browser.
//
//   node dist/app/web/server.js [--port N] [--host 127.0.0.1] [--user-data DIR] [--model PATH] [--inline] [--log]
//   (or under tsx: node --import tsx app/web/server.ts …)
//
// Prints one line `PARAKEET_WEB_URL=http://127.0.0.1:PORT/#token=TOKEN` and
// serves until SIGINT/SIGTERM.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WebSocketServer } from 'ws';
import { BRIDGE_PATH } from '../ipc/web-protocol.js';
import { rendererCsp } from '../main/csp.js';
import { WEB_MEDIA_PREFIX } from '../main/media/media-url.js';
import { createServices, defaultUserDataDir, type Services, type ServicesOptions } from '../main/services.js';
import { appRoot } from '../main/util/app-root.js';
import { Bridge } from './bridge.js';
import { hostAllowed, isLoopbackBind, newToken, originAllowed, parseTarget, singleHost, tokenMatches } from './security.js';
import { isMediaPath, serveMedia } from './media.js';
import { rememberedPort, rememberPort } from './port-memory.js';
import { serveStatic } from './static.js';

export interface WebServerOptions {
  /** 0 = any free port. */
  port?: number;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  userDataDir: string;
  /** Default: <app>/dist/renderer. */
  rendererDir?: string;
  engineMode?: 'process' | 'inline';
  /** Load this .gguf at start (resolves after it loaded). */
  modelPath?: string;
  extraCa?: string;
  /** Mirror base URL for model downloads (tests point it at a local HTTPS server). */
  modelEndpoint?: string;
  /** Mirror log lines to stderr. */
  log?: boolean;
  /** Use this token instead of a random one (tests that must know it up front). */
  token?: string;
  /** More service options (tests: crash trigger, retained audio, model manager timing). */
  services?: Partial<Omit<ServicesOptions, 'userDataDir' | 'mode'>>;
}

export interface WebServer {
  url: string;
  port: number;
  token: string;
  services: Services;
  close(): Promise<void>;
}

function reject(socket: Socket, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`);
  socket.destroy();
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackBind(host)) {
    throw new Error(`refusing to listen on ${host}: the web bridge serves loopback only, on 127.0.0.1, ::1 or localhost ` +
      '(the only names its Host and Origin checks accept)');
  }
  const token = options.token ?? newToken();
  const rendererDir = path.resolve(options.rendererDir ?? path.join(appRoot(), 'dist', 'renderer'));
  const services = await createServices({
    ...options.services,
    userDataDir: options.userDataDir,
    mode: 'web',
    engineMode: options.engineMode ?? options.services?.engineMode,
    modelPath: options.modelPath,
    extraCa: options.extraCa,
    modelEndpoint: options.modelEndpoint,
    logToStderr: options.log ?? options.services?.logToStderr,
  });
  const log = services.log.child('web');
  const bridge = new Bridge(services);
  const sockets = new Set<Socket>();
  let port = 0;
  let headers: Record<string, string> = {};

  const server = http.createServer((req, res) => {
    const target = parseTarget(req.url);
    if (!target) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('bad request target');
      return;
    }
    if (!singleHost(req.rawHeaders)) {
      res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' });
      res.end('bad request: exactly one Host header is allowed');
      return;
    }
    if (!hostAllowed(req.headers.host, port)) {
      res.writeHead(421, { 'content-type': 'text/plain' });
      res.end('misdirected request: this server only answers to 127.0.0.1 / localhost');
      return;
    }
    const served = isMediaPath(target.pathname)
      ? serveMedia(req, res, target, { history: services.history, key: services.mediaKey, headers })
      : serveStatic(req, res, target.pathname, { root: rendererDir, headers });
    served.catch((error: unknown) => {
      log.warn('static file error', error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  server.on('upgrade', (req, socket: Socket, head) => {
    const url = parseTarget(req.url);
    if (!url || !singleHost(req.rawHeaders)) return reject(socket, 400, 'Bad Request');
    if (!hostAllowed(req.headers.host, port)) return reject(socket, 421, 'Misdirected Request');
    if (url.pathname !== BRIDGE_PATH) return reject(socket, 404, 'Not Found');
    if (!originAllowed(req.headers.origin, port)) return reject(socket, 403, 'Forbidden');
    if (!tokenMatches(url.searchParams.get('token'), token)) {
      log.warn(`refused a bridge connection without a valid token (origin ${req.headers.origin ?? 'none'})`);
      return reject(socket, 401, 'Unauthorized');
    }
    try {
      wss.handleUpgrade(req, socket, head, (ws) => bridge.attach(ws));
    } catch (error) {
      log.warn('bridge upgrade failed', error);
      socket.destroy();
    }
  });
  // A socket error (a peer resetting mid-request) must not become an uncaught 'error' event.
  server.on('connection', (socket: Socket) => socket.on('error', () => socket.destroy()));

  try {
    await new Promise<void>((resolve, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', rejectListen);
        resolve();
      });
    });
  } catch (error) {
    await services.dispose();
    throw error;
  }
  port = (server.address() as AddressInfo).port;
  headers = {
    'content-security-policy': rendererCsp({
      bridgeOrigins: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`],
      mediaSources: [`http://127.0.0.1:${port}${WEB_MEDIA_PREFIX}`, `http://localhost:${port}${WEB_MEDIA_PREFIX}`],
    }),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'permissions-policy': 'microphone=(self), camera=(), geolocation=()',
  };
  const urlHost = host === '::1' ? '[::1]' : host === 'localhost' ? 'localhost' : '127.0.0.1';
  const url = `http://${urlHost}:${port}/#token=${token}`;
  log.info(`web bridge on http://${urlHost}:${port}/ (renderer ${rendererDir})`);
  if (options.modelPath) await services.ready;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      bridge.close();
      wss.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      await services.dispose();
    })();
    return closing;
  };
  return { url, port, token, services, close };
}

// ---------------------------------------------------------------- command line

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'user-data': { type: 'string' },
      model: { type: 'string' },
      renderer: { type: 'string' },
      inline: { type: 'boolean' },
      log: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write('usage: server.js [--port N] [--host 127.0.0.1] [--user-data DIR] [--model PATH] [--renderer DIR] [--inline] [--log]\n');
    return;
  }
  const userDataDir = path.resolve(values['user-data'] ?? defaultUserDataDir());
  // Without --port: the last run's port when it is free, so an open tab's address stays right.
  const port = values.port === undefined ? await rememberedPort(userDataDir, values.host ?? '127.0.0.1') : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  const web = await startWebServer({
    port,
    host: values.host,
    userDataDir,
    rendererDir: values.renderer,
    modelPath: values.model,
    engineMode: values.inline ? 'inline' : undefined,
    log: values.log,
  });
  await rememberPort(userDataDir, web.port);
  process.stdout.write(`PARAKEET_WEB_URL=${web.url}\n`);
  const stop = (signal: string): void => {
    process.stderr.write(`\n${signal}: shutting down\n`);
    web.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main().catch((error: unknown) => {
    process.stderr.write(`parakeet web: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
