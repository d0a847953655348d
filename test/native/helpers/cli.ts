// Runs the `parakeet` CLI (app/cli/main.ts) through tsx in a child process.
import { join } from 'node:path';
import { cleanEnv, runTsx, runTsxAsync, type ChildResult } from './child.js';

export const CLI = join('app', 'cli', 'main.ts');

export function parakeet(args: readonly string[], timeoutMs = 120_000): ChildResult {
  return runTsx(CLI, args, { env: cleanEnv(), timeoutMs });
}

/** Several CLI runs, at most `parallel` at a time; results in input order. */
export async function parakeetMany(runs: readonly (readonly string[])[], parallel = 3): Promise<ChildResult[]> {
  const results: ChildResult[] = new Array(runs.length);
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const i = next++;
      results[i] = await runTsxAsync(CLI, runs[i], { env: cleanEnv(), timeoutMs: 120_000 });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, runs.length) }, worker));
  return results;
}
