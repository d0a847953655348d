// A meeting on a streaming model keeps the engine's memory flat (issue 39 item 6): each track begins a
// stream per segment, and each stream of parakeet_realtime_eou_120m-v1's shapes (17 × 512, generated at
// the real size so its caches and compute buffers have their real sizes, about 10 MB) is made, fed in
// 40 ms blocks, ended and disposed while the rest of the process makes small blocks. With glibc's
// dynamic mmap threshold those buffers came from the heap arenas and the small blocks split the holes
// they left: the RSS grew by about a stream's buffers per segment, without bound (21.8 GB after 45
// minutes of a meeting). The RSS after a garbage collection may not grow from rounds 2–3 to rounds 9–10.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateModel } from '../support/model/generate.js';
import { cleanEnv, describeExit, runTsx } from './helpers/child.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('stream-segments-memory');
const ROUNDS = 10;
const SEGMENTS_PER_ROUND = 10; // per track
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

test('two tracks of short streamed segments: RSS grows by less than 8 MB from rounds 2–3 to 9–10', () => {
  const path = join(dir, 'eou-120m-shape-q8_0.gguf');
  generateModel(path, { preset: 'shapeEou120m', family: 'eou', weightType: 'q8_0', seed: 7 });
  const r = runTsx(join('test', 'native', 'helpers', 'stream-segments-memory-child.ts'), [path, String(ROUNDS), String(SEGMENTS_PER_ROUND)], {
    env: cleanEnv({ NODE_OPTIONS: '--expose-gc' }), timeoutMs: 900_000,
  });
  assert.equal(r.status, 0, describeExit(r));
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { rssMb: number[]; segments: number; gc: boolean };
  assert.ok(out.gc, 'the child could collect garbage before measuring');
  assert.equal(out.rssMb.length, ROUNDS);
  assert.equal(out.segments, 2 * ROUNDS * SEGMENTS_PER_ROUND);
  // Two rounds at each end, so that one round's allocator noise is not read as growth; each round is 20
  // streams: before the fix the RSS grew by tens of MB a round; a buffer kept per stream would add ~200 MB.
  const growth = mean(out.rssMb.slice(ROUNDS - 2)) - mean(out.rssMb.slice(1, 3));
  console.log(`RSS by round (MB): ${out.rssMb.map((v) => v.toFixed(1)).join(' ')}; growth ${growth.toFixed(1)} MB`);
  assert.ok(growth < 8, `RSS grew ${growth.toFixed(1)} MB from rounds 2–3 to rounds ${ROUNDS - 1}–${ROUNDS}`);
});
