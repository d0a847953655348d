// Corruption fuzz over the other schemas the engine reads (an NVIDIA NeMo-Speech.cpp file, a
// parakeet.cpp bundle): truncated and byte-flipped copies load or are refused with an engine code,
// and the process never crashes (the same child as corruption-fuzz.test.ts, with its dialect bases).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeExit, runTsx } from './helpers/child.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('dialect-fuzz');
const PER_BASE = 120;

test(`dialect corruption fuzz: ${PER_BASE * 2} damaged NVIDIA-schema and bundle files never crash the process`, () => {
  const progress = join(dir, 'progress.txt');
  const r = runTsx(join('test', 'native', 'helpers', 'fuzz-child.ts'), [dir, progress, String(PER_BASE), 'dialects'], { timeoutMs: 150_000 });
  const lastCase = existsSync(progress) ? readFileSync(progress, 'utf8') : '(none started)';
  assert.ok(r.status === 0 && r.signal === null, `the fuzz child died: ${describeExit(r)}\nlast case started: ${lastCase}`);
  const s = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as {
    cases: number; loaded: number; rejected: Record<string, number>; unexpected: string[]; samples: Record<string, string>;
  };
  assert.equal(lastCase, 'done');
  assert.equal(s.cases, PER_BASE * 2);
  assert.deepEqual(s.unexpected, [], 'every failure is an engine error with a code');
  for (const code of Object.keys(s.rejected)) assert.ok(code === 'MODEL_INVALID' || code === 'OUT_OF_MEMORY', `load rejected with ${code}: ${s.samples[code]}`);
  const rejected = Object.values(s.rejected).reduce((a, b) => a + b, 0);
  assert.equal(s.loaded + rejected, s.cases);
  assert.ok(rejected >= s.cases / 4 && s.loaded > 0, `${rejected} rejected, ${s.loaded} loaded`);
});
