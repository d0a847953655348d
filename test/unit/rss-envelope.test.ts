// The meeting bench's growth figure (issue 39, item 6) is the envelope of
// per-10-minute windows, not two point samples that land on different numbers
// of live streams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rssEnvelope } from '../bench/rss-envelope.js';

const swinging = (minutes: number, slopeMBPerMinute: number): [number, number][] =>
  Array.from({ length: minutes * 6 + 1 }, (_, i) => {
    const minute = i / 6;
    // Two streams' buffers (≈ 10 MB each) come and go: ±35 MB around the floor.
    return [minute, 300 + ((i % 3) * 17.5) + slopeMBPerMinute * minute];
  });

test('a flat run whose samples swing by tens of MB has no envelope growth', () => {
  const e = rssEnvelope(swinging(60, 0), 10, 10)!;
  assert.equal(e.windows.length, 5);
  assert.deepEqual(e.windows[0], { fromMinute: 10, toMinute: 20, minMB: 300, maxMB: 335 });
  assert.equal(e.floorGrowthMB, 0);
  assert.equal(e.peakGrowthMB, 0);
});

test('a slow leak shows in both floor and peak', () => {
  const e = rssEnvelope(swinging(60, 0.5), 10, 10)!;
  assert.ok(e.floorGrowthMB >= 19 && e.floorGrowthMB <= 21, String(e.floorGrowthMB));
  assert.ok(e.peakGrowthMB >= 19 && e.peakGrowthMB <= 21, String(e.peakGrowthMB));
});

test('a run shorter than minute 10 plus one window has no envelope', () => {
  assert.equal(rssEnvelope(swinging(15, 0), 10, 10), null);
});
