// Builds the app (TypeScript, preload bundle, renderer). `--changed`: only the steps whose sources changed
// since their last build (build-plan.mjs), so `npm start` after no edit starts at once. The tools run
// directly, not through nested `npm run`s (each of which re-read the project's .npmrc and repeated its warnings).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STEPS, staleSteps, stampPath } from './build-plan.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const changedOnly = process.argv.includes('--changed');
const steps = changedOnly ? staleSteps(root) : STEPS;
if (changedOnly && steps.length === 0) process.stdout.write('The app is up to date: nothing to build.\n');
for (const step of steps) {
  const [tool, ...args] = step.command;
  const bin = tool === 'node' ? process.execPath : join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${tool}.cmd` : tool);
  process.stdout.write(`building ${step.name}…\n`);
  const run = spawnSync(bin, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' && tool !== 'node' });
  if (run.status !== 0) {
    process.stderr.write(`build step ${step.name} failed (${run.error?.message ?? `exit ${run.status}`})\n`);
    process.exit(run.status ?? 1);
  }
  mkdirSync(dirname(stampPath(root, step)), { recursive: true });
  writeFileSync(stampPath(root, step), `${new Date().toISOString()}\n`);
}
