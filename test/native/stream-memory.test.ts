// Memory stays flat over a long stream (issue 39: parakeet.cpp's streaming leaks 19–35 MB per second of
// audio): ten minutes of audio through one stream of a tiny EOU-family model (3750 chunks), the RSS
// of minutes 2–4 and of minutes 8–10 (medians) within a few MB. Graphs and buffers are made for the first chunk
// of each shape only; a leak of even one chunk's activations or a graph per chunk would show here.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, describeExit, runTsx } from './helpers/child.js';
import { familyModel } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('stream-memory');

test('ten minutes through one stream: RSS grows by less than 8 MB after minute 2', () => {
  const path = familyModel(dir, 'eou', 'q8_0').path;
  const r = runTsx(join('test', 'native', 'helpers', 'stream-memory-child.ts'), [path, '10'], {
    env: cleanEnv({ NODE_OPTIONS: '--expose-gc' }), timeoutMs: 600_000,
  });
  assert.equal(r.status, 0, describeExit(r));
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { rssMb: number[]; chunks: number; tokens: number; gc: boolean };
  assert.ok(out.gc, 'the child could collect garbage before measuring');
  assert.equal(out.rssMb.length, 10);
  assert.ok(out.chunks >= 3700, `every chunk ran (${out.chunks})`);
  // Medians of minutes 2–4 and 8–10, not single samples: one sample swings by a few MB with what the allocator
  // holds at that instant (a CI run read 84.0 at minute 2 and 88.9 at minute 10 around a flat 87.1), while a leak
  // moves every later sample.
  const median3 = (v: number[]) => [...v].sort((a, b) => a - b)[1];
  const growth = median3(out.rssMb.slice(7, 10)) - median3(out.rssMb.slice(1, 4));
  console.log(`RSS by minute (MB): ${out.rssMb.map((v) => v.toFixed(1)).join(' ')}; ${out.chunks} chunks, ${out.tokens} tokens`);
  // 8 MB: the allocator's holdings step by ~1.5 MB at a time (a fresh-clone CI run read 91.8 → 96.2, medians, while a
  // 40-minute run of the same stream stayed at 81–86 MB throughout); a leak of 2 KB per chunk still fails here, and
  // parakeet.cpp's stream leaks 19–35 MB per second of audio.
  assert.ok(growth < 8, `RSS grew ${growth.toFixed(1)} MB from minutes 2–4 to minutes 8–10 (medians)`);
});
