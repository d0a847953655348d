import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentValues } from '../../../app/main/sessions/recent-values.js';

test('RecentValues keeps the latest values and gives their nearest-rank percentiles', () => {
  const r = new RecentValues(4);
  assert.ok(Number.isNaN(r.percentile(0.5)), 'no value: NaN');
  for (const v of [100, 1, 2, 3, 4]) r.push(v);  // 100 falls out of the window
  assert.equal(r.count, 5);
  assert.equal(r.kept, 4);
  assert.equal(r.percentile(0.5), 3);
  assert.equal(r.percentile(0.95), 4);
  assert.equal(r.percentile(0), 1);
  assert.throws(() => new RecentValues(0), /capacity must be at least 1, got 0/);
});
