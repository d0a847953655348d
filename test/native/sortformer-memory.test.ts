// A live diarizer stream's memory stays flat over a long meeting: ten minutes of a meeting-like track
// through one stream of a generated model of diar_streaming_sortformer_4spk-v2's shapes (17 × 512
// FastConformer, 18 × 192 transformer, chunk 188 and speaker cache 188 frames: the published geometry, so
// the per-chunk buffers have their real sizes), fed in 100 ms blocks as a microphone would, no frames kept.
// The RSS, sampled after a garbage collection each minute, may not grow from minutes 2–3 to minutes 9–10:
// a stream keeping its activities, a FIFO or cache that never pops, a graph or compute buffer made per
// chunk, or per-chunk host buffers fragmenting malloc's arenas (the stream keeps its own: sortformer.cpp)
// would all show here.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateSortformer, SHAPE_SORTFORMER_4SPK_V2 } from '../support/model/sortformer.js';
import { cleanEnv, describeExit, runTsx } from './helpers/child.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('sortformer-memory');
const MINUTES = 10;
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

test('ten minutes through one diarizer stream: RSS grows by less than 4 MB from minutes 2–3 to 9–10', () => {
  const path = join(dir, 'sortformer-4spk-v2-shape.gguf');
  generateSortformer(path, SHAPE_SORTFORMER_4SPK_V2);
  const r = runTsx(join('test', 'native', 'helpers', 'sortformer-memory-child.ts'), [path, String(MINUTES), '100'], {
    env: cleanEnv({ NODE_OPTIONS: '--expose-gc' }), timeoutMs: 900_000,
  });
  assert.equal(r.status, 0, describeExit(r));
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { rssMb: number[]; frames: number; gc: boolean };
  assert.ok(out.gc, 'the child could collect garbage before measuring');
  assert.equal(out.rssMb.length, MINUTES);
  // 12.5 frames a second: every frame of the ten minutes came out, none twice.
  assert.equal(out.frames, MINUTES * 60 * 12.5);
  // Two minutes at each end, so that one minute's allocator noise (± 2 MB) is not read as growth.
  const growth = mean(out.rssMb.slice(MINUTES - 2)) - mean(out.rssMb.slice(1, 3));
  console.log(`RSS by minute (MB): ${out.rssMb.map((v) => v.toFixed(1)).join(' ')}; growth ${growth.toFixed(1)} MB`);
  assert.ok(growth < 4, `RSS grew ${growth.toFixed(1)} MB from minutes 2–3 to minutes ${MINUTES - 1}–${MINUTES}`);
});
