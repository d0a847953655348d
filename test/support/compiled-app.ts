// The compiled app (dist/app, dist/native and dist/types, what Electron and bin/parakeet.js
// run): `tsc -p tsconfig.build.json` when missing or older than the
// TypeScript it comes from, so the tests that load it need no build first.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(path) : st.mtimeMs);
  }
  return newest;
}

/** Compiles when dist/app/<probe> is missing or older than app/, types/ and native/index.ts. */
export function ensureAppCompiled(probe = join('main', 'electron', 'main.js')): void {
  const output = join(REPO, 'dist', 'app', probe);
  const sources = Math.max(newestMtime(join(REPO, 'app')), newestMtime(join(REPO, 'types')), statSync(join(REPO, 'native', 'index.ts')).mtimeMs);
  if (existsSync(output) && statSync(output).mtimeMs >= sources) return;
  execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
}
