// `npm start` builds only what changed (issue 44 item 10): a step is stale without a stamp, fresh after one,
// and stale again when a file it reads is newer than its stamp; other steps stay fresh.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without types (it runs before any build)
import { stampPath, staleSteps } from '../../scripts/build-plan.mjs';

interface Step { name: string; inputs: string[]; command: string[] }

test('only the steps whose inputs are newer than their stamp are rebuilt', () => {
  const root = mkdtempSync(join(tmpdir(), 'parakeet-build-plan-'));
  try {
    const steps: Step[] = [
      { name: 'ts', inputs: ['app'], command: ['tsc'] },
      { name: 'renderer', inputs: ['renderer'], command: ['vite'] },
    ];
    mkdirSync(join(root, 'app'));
    mkdirSync(join(root, 'renderer', 'views'), { recursive: true });
    writeFileSync(join(root, 'app', 'a.ts'), '');
    writeFileSync(join(root, 'renderer', 'views', 'v.tsx'), '');
    const names = (): string[] => (staleSteps(root, steps) as Step[]).map((s) => s.name);
    assert.deepEqual(names(), ['ts', 'renderer'], 'never built');

    const past = new Date(Date.now() - 60_000);
    for (const file of ['app/a.ts', 'renderer/views/v.tsx', 'app', 'renderer', 'renderer/views']) utimesSync(join(root, file), past, past);
    mkdirSync(join(root, 'dist'));
    for (const step of steps) writeFileSync(stampPath(root, step) as string, 'built');
    assert.deepEqual(names(), [], 'nothing changed since the stamps');

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'renderer', 'views', 'v.tsx'), later, later);
    assert.deepEqual(names(), ['renderer'], 'a renderer file changed, deep in a folder');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
