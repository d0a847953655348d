// `npm run package`: electron-builder for this platform, after saying what
// will be signed and notarized (scripts/signing-plan.mjs) and skipping what
// the environment has no identity for. Extra arguments go to electron-builder.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signingPlan } from './signing-plan.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const plan = signingPlan(process.env, process.platform);
for (const note of plan.notes) process.stdout.write(`note: ${note}\n`);
const cli = join(root, 'node_modules', 'electron-builder', 'cli.js');
const result = spawnSync(process.execPath, [cli, ...plan.overrides, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
