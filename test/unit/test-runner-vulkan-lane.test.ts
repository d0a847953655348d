// scripts/test.mjs --only=vulkan: a lane that finds no vulkan-*.test.ts files to run ends with a failure in its
// counts (the final line and the --counts-out file .ci/run adds to the main run), never "0 passed, 0 failed".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const repo = resolve(import.meta.dirname, '..', '..');

test('a Vulkan lane with no test files counts as a failure', () => {
  const root = mkdtempSync(join(tmpdir(), 'parakeet-vulkan-lane-'));
  try {
    mkdirSync(join(root, 'scripts'));
    mkdirSync(join(root, 'test', 'native'), { recursive: true });
    for (const f of ['test.mjs', 'count-reporter.mjs']) copyFileSync(join(repo, 'scripts', f), join(root, 'scripts', f));
    writeFileSync(join(root, 'test', 'native', 'devices.test.ts'), '');
    const addon = join(root, 'parakeet.node');
    writeFileSync(addon, '');
    const counts = join(root, 'counts.json');
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'test.mjs'), '--only=vulkan', `--counts-out=${counts}`], {
      cwd: root, encoding: 'utf8', env: { ...process.env, PARAKEET_VULKAN_ADDON: addon, PARAKEET_EXTRA_COUNTS: '' },
    });
    assert.match(r.stdout, /\n0 passed, 1 failed, 0 skipped\n$/);
    assert.equal(r.status, 1);
    assert.equal((JSON.parse(readFileSync(counts, 'utf8')) as { failed: number }).failed, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
