// Running TypeScript in a child process (node --import tsx), so a native crash
// or a hang is observed from outside and reported as a failed test.
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

export interface ChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Set when spawning failed or the timeout killed the child. */
  error?: Error;
  ms: number;
}

export function runTsx(
  script: string,
  args: readonly string[] = [],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): ChildResult {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
    input: options.input,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error, ms: performance.now() - t0 };
}

/** One line describing how a child ended, for assertion messages. */
export function describeExit(r: ChildResult): string {
  const how = r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
  const err = r.error ? ` (${r.error.message})` : '';
  return `${how}${err}; stderr tail: ${r.stderr.slice(-2000)}`;
}

/** Environment without PARAKEET_DEVICE (tests set it explicitly where they mean to). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('PARAKEET_DEVICE' in extra)) delete env.PARAKEET_DEVICE;
  return env;
}

/** Like runTsx, without blocking the event loop (for running several children at once). */
export function runTsxAsync(
  script: string,
  args: readonly string[] = [],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ChildResult> {
  const t0 = performance.now();
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 120_000,
    });
    let stdout = '';
    let stderr = '';
    let error: Error | undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => (error = e));
    child.on('close', (status, signal) => resolvePromise({ status, signal, stdout, stderr, error, ms: performance.now() - t0 }));
  });
}
