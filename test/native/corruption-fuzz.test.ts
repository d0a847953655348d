// Corruption fuzz: hundreds of truncated and byte-flipped copies of valid tiny
// models (F32 hybrid, Q8_0 TDT, Q4_0 CTC). Each load must succeed or reject with
// a known engine code, models that load must transcribe or reject cleanly, and
// the process must never crash. The loop runs in a child process, so a crash
// (signal or abnormal exit) fails this test and names the case.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeExit, runTsx } from './helpers/child.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('fuzz');
const PER_BASE = 200; // × 3 bases = 600 copies
/** Codes a corrupted file may legitimately produce at load. */
const LOAD_CODES = new Set(['MODEL_INVALID', 'OUT_OF_MEMORY']);
/** Codes a loaded-but-corrupt model may produce when transcribing (e.g. NaN weights are still computed, not rejected). */
const TRANSCRIBE_CODES = new Set(['BAD_ARGUMENT', 'OUT_OF_MEMORY']);

interface Summary {
  cases: number;
  loaded: number;
  rejected: Record<string, number>;
  transcribed: number;
  transcribeRejected: Record<string, number>;
  unexpected: string[];
  kinds: Record<string, number>;
  samples: Record<string, string>;
}

test(`corruption fuzz: ${PER_BASE * 3} damaged model files never crash the process`, () => {
  const progress = join(dir, 'progress.txt');
  const r = runTsx(join('test', 'native', 'helpers', 'fuzz-child.ts'), [dir, progress, String(PER_BASE)], { timeoutMs: 150_000 });
  const lastCase = existsSync(progress) ? readFileSync(progress, 'utf8') : '(none started)';
  assert.ok(
    r.status === 0 && r.signal === null,
    `the fuzz child died: ${describeExit(r)}\nlast case started: ${lastCase}`,
  );
  const line = r.stdout.trim().split('\n').pop() ?? '';
  const s = JSON.parse(line) as Summary;
  console.log(
    `fuzz: ${s.cases} copies (${JSON.stringify(s.kinds)}), ${s.loaded} loaded, rejected ${JSON.stringify(s.rejected)}; ` +
      `${s.transcribed} transcriptions ran, ${JSON.stringify(s.transcribeRejected)} rejected; child ${(r.ms / 1000).toFixed(1)} s`,
  );
  for (const [code, message] of Object.entries(s.samples)) console.log(`  e.g. ${code}: ${message.split('\n')[0]}`);
  assert.equal(lastCase, 'done');
  assert.ok(s.cases >= 300, `${s.cases} cases`);
  assert.equal(s.cases, PER_BASE * 3);
  assert.deepEqual(s.unexpected, [], 'every failure is an engine error with a code');
  for (const code of Object.keys(s.rejected)) assert.ok(LOAD_CODES.has(code), `load rejected with ${code}: ${s.samples[code]}`);
  for (const code of Object.keys(s.transcribeRejected)) assert.ok(TRANSCRIBE_CODES.has(code), `transcribe rejected with ${code}`);
  const rejected = Object.values(s.rejected).reduce((a, b) => a + b, 0);
  assert.equal(s.loaded + rejected, s.cases);
  // The fuzz exercised both outcomes: damaged metadata is rejected, some data flips still load.
  assert.ok(rejected >= s.cases / 4, `only ${rejected} rejections: the corruption did not reach the metadata`);
  assert.ok((s.kinds.truncate ?? 0) >= 30 && (s.kinds.flip ?? 0) >= 150, JSON.stringify(s.kinds));
});
