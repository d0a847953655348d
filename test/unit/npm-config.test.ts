// The project's npm configuration: no key npm does not know (npm 11 warns on each, on every command: issue 44
// item 10), and the install-script policy lives in package.json's allowScripts, which npm ≥ 11.16 honours.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean>; engines?: Record<string, string> };

test('npm reads the project configuration without a warning', () => {
  const npm = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['config', 'get', 'registry'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32', timeout: 60_000 });
  assert.equal(npm.status, 0, npm.stderr);
  assert.doesNotMatch(npm.stderr, /npm warn/i, `npm warned while reading this project's configuration:\n${npm.stderr}`);
});

test('dependencies whose install scripts download what the app never uses are denied in allowScripts', () => {
  // onnxruntime-node's postinstall fetches CUDA providers from api.nuget.org (the peer bench uses its CPU binaries);
  // Electron's fetches its binary, which scripts/start.mjs fetches on first start instead (offline: web mode).
  assert.equal(pkg.allowScripts?.['onnxruntime-node'], false);
  assert.equal(pkg.allowScripts?.electron, false);
  const [major, minor] = (/>=\s*(\d+)\.(\d+)/.exec(pkg.engines?.npm ?? '') ?? []).slice(1).map(Number);
  assert.ok(major! > 11 || (major === 11 && minor! >= 16), `engines.npm names the first npm that honours allowScripts (11.16), got ${pkg.engines?.npm}`);
});
