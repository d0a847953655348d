// How EngineHost reaches an engine: a forked Node process (tests, web mode,
// CLI), Electron's utilityProcess (electron/utility-transport.ts), or the core in this
// process (inline, app/engine-process/inline-transport.ts). The host only sees this interface, so restart and
// fall-back logic is the same for all three.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.js';
import { inlineTransport } from '../../engine-process/inline-transport.js';
import { isEngineToHost, TEST_HOOKS_ENV, type EngineToHost, type HostToEngine } from '../../engine-process/protocol.js';

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

export interface EngineTransport {
  /** OS process id, null inline. */
  readonly pid: number | null;
  readonly kind: 'process' | 'inline';
  send(message: HostToEngine): void;
  /** Ends the engine on purpose (no exit event is reported as a crash by the host, which knows it asked). */
  kill(): void;
}

export interface TransportHandlers {
  message(message: EngineToHost): void;
  exit(info: ExitInfo): void;
}

export interface TransportOptions {
  log: Logger;
}

export type TransportFactory = (handlers: TransportHandlers, options: TransportOptions) => EngineTransport;

/** The engine process's entry (app/engine-process): compiled .js under dist/, .ts when running from source under tsx. */
export function engineEntry(): { path: string; isTypeScript: boolean } {
  const isTypeScript = import.meta.url.endsWith('.ts');
  const path = fileURLToPath(new URL(`../../engine-process/engine-process.${isTypeScript ? 'ts' : 'js'}`, import.meta.url));
  return { path, isTypeScript };
}

function pipeLines(stream: NodeJS.ReadableStream | null, write: (line: string) => void): void {
  if (!stream) return;
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) write(line);
  });
}

/**
 * child_process.fork with structured-clone serialization (Float32Array survives the trip). `extraEnv` is
 * added to this process's environment, from which the test triggers' switch (TEST_HOOKS_ENV) is removed:
 * only a caller that names it (test/support/engine-triggers.ts) turns the triggers on.
 */
export function createForkTransport(extraEnv: NodeJS.ProcessEnv = {}): TransportFactory {
  return (handlers, options) => forkEngine(handlers, options, extraEnv);
}

/** The engine process as a forked Node process (test triggers off). */
export const forkTransport: TransportFactory = createForkTransport();

function forkEngine(handlers: TransportHandlers, options: TransportOptions, extraEnv: NodeJS.ProcessEnv): EngineTransport {
  const entry = engineEntry();
  if (!existsSync(entry.path)) throw new Error(`engine entry ${entry.path} is missing; run "npm run build"`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env[TEST_HOOKS_ENV];
  Object.assign(env, extraEnv);
  const child = fork(entry.path, [], {
    serialization: 'advanced',
    // From source the child needs the same TypeScript loader; never inherit --test and friends.
    execArgv: entry.isTypeScript ? ['--import', import.meta.resolve('tsx')] : [],
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  pipeLines(child.stdout, (line) => options.log.info(line));
  pipeLines(child.stderr, (line) => options.log.warn(line));
  child.on('message', (message: unknown) => {
    if (isEngineToHost(message)) handlers.message(message);
  });
  let exited = false;
  const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (exited) return;
    exited = true;
    handlers.exit({ code, signal });
  };
  child.on('exit', onExit);
  child.on('error', (error) => {
    options.log.error('engine process error', error);
    // A spawn failure produces no exit event.
    if (child.exitCode === null && child.pid === undefined) onExit(null, null);
  });
  return {
    kind: 'process',
    get pid() {
      return child.pid ?? null;
    },
    send(message) {
      if (child.connected) child.send(message);
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}

/** The engine core in this process (the `inline` setting): app/engine-process/inline-transport.ts. */
export { inlineTransport };
