// Main's side of the key-hook process: starts it (a forked Node process, or
// Electron's utilityProcess through the factory the adapter passes), checks
// its messages and turns its death into a reason in words. The process may be
// restarted (after resume); each start is a new KeyHook.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WATCH_ENV, isKeyHookMessage, type KeyHookMessage } from './key-hook-protocol.js';

export interface KeyHookHandlers {
  key(down: boolean, code: string, at: number): void;
  /** The hook runs (keys will come). */
  ready(): void;
  /** The hook failed to start or died; `reason` says what happened. */
  failed(reason: string): void;
}

export interface KeyHookProcess {
  kill(): void;
  /** The last line the process wrote to stderr (libuiohook says what failed there), or null. */
  lastError(): string | null;
}

/** Starts the entry file as a process whose messages reach `onMessage`; `onExit` once it is gone. */
export type KeyHookSpawner = (
  entry: string,
  env: NodeJS.ProcessEnv,
  onMessage: (message: unknown) => void,
  onExit: (code: number | null, signal: string | null) => void,
) => KeyHookProcess;

export function keyHookEntry(): { path: string; isTypeScript: boolean } {
  const isTypeScript = import.meta.url.endsWith('.ts');
  return { path: fileURLToPath(new URL(`./key-hook-process.${isTypeScript ? 'ts' : 'js'}`, import.meta.url)), isTypeScript };
}

/** child_process.fork (tests, and Node without Electron). */
export const forkKeyHook: KeyHookSpawner = (entry, env, onMessage, onExit) => {
  const child = fork(entry, [], {
    execArgv: entry.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [],
    env,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    // libuiohook's own complaint ("XOpenDisplay failure!") names the cause; keep its last line, bounded.
    stderr = (stderr + chunk).slice(-2000);
  });
  child.on('message', onMessage);
  let exited = false;
  const exit = (code: number | null, signal: string | null): void => {
    if (exited) return;
    exited = true;
    const last = stderr.trim().split('\n').pop();
    onExit(code, signal ? `${signal}${last ? `: ${last}` : ''}` : last ?? null);
  };
  child.on('exit', exit);
  child.on('error', () => exit(null, null));
  return {
    kill: () => child.kill('SIGKILL'),
    lastError: () => stderr.trim().split('\n').pop() || null,
  };
};

/**
 * How long the hook may take to start. uiohook's start() returns within milliseconds when the hook runs;
 * when its thread cannot open the display it usually aborts the process, but it can also wait forever.
 */
export const HOOK_START_TIMEOUT_MS = 8000;

export class KeyHook {
  private process: KeyHookProcess | null;
  private stopped = false;
  private isReady = false;
  private readonly startTimer: NodeJS.Timeout | null = null;

  /** `watch`: the key codes the process names (WATCH_ENV); every other key comes as OTHER_KEY. */
  constructor(
    spawn: KeyHookSpawner,
    env: NodeJS.ProcessEnv,
    private readonly handlers: KeyHookHandlers,
    watch: readonly string[],
    timeoutMs = HOOK_START_TIMEOUT_MS,
  ) {
    const entry = keyHookEntry();
    if (!existsSync(entry.path)) {
      this.process = null;
      queueMicrotask(() => handlers.failed(`the key hook's entry ${entry.path} is missing; run "npm run build"`));
      return;
    }
    const childEnv = { ...env, [WATCH_ENV]: watch.join(',') };
    this.process = spawn(entry.path, childEnv, (m) => this.onMessage(m), (code, signal) => this.onExit(code, signal));
    this.startTimer = setTimeout(() => {
      if (this.isReady || this.stopped || !this.process) return;
      const said = this.process.lastError();
      this.process.kill();
      this.process = null;
      this.fail(`the key hook did not start within ${timeoutMs / 1000} s${said ? ` (${said})` : ''}`);
    }, timeoutMs);
    this.startTimer.unref();
  }

  get ready(): boolean {
    return this.isReady;
  }

  stop(): void {
    this.stopped = true;
    if (this.startTimer) clearTimeout(this.startTimer);
    this.process?.kill();
    this.process = null;
  }

  private failedOnce = false;

  private fail(reason: string): void {
    if (this.failedOnce || this.stopped) return;
    this.failedOnce = true;
    this.handlers.failed(reason);
  }

  private onMessage(message: unknown): void {
    if (!isKeyHookMessage(message) || this.stopped) return;
    const m: KeyHookMessage = message;
    if (m.type === 'ready') {
      this.isReady = true;
      if (this.startTimer) clearTimeout(this.startTimer);
      this.handlers.ready();
    } else if (m.type === 'failed') this.fail(m.message);
    else this.handlers.key(m.down, m.code, m.at);
  }

  private onExit(code: number | null, signal: string | null): void {
    this.process = null;
    this.isReady = false;
    if (this.stopped) return;
    const how = signal ? `(${signal})` : `(exit code ${code})`;
    this.fail(`the key hook stopped ${how}`);
  }
}
