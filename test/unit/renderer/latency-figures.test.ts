// The latency panel on a streaming model (issue 39): the session's chunk compute (median, its share of
// a chunk's audio, p95 and how many chunks it covers) as the panel's row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamChunkFact } from '../../../renderer/components/stream-chunk-fact.js';

test('the streaming row: median chunk compute, its share of the chunk\'s audio, p95 over the chunks it covers', () => {
  const [key, label, value, note] = streamChunkFact({ chunks: 37, p50Ms: 12.4, p95Ms: 19.6, chunkAudioMs: 160, percent: 7.75 });
  assert.equal(key, 'stream-chunk');
  assert.equal(label, 'Streaming chunk compute (median)');
  assert.equal(value, '12 ms · 7.8 % of its 160 ms');
  assert.equal(note, 'p95 20 ms over the last 37 chunks');
});

test('a chunk over a second of compute reads in seconds', () => {
  const [, , value] = streamChunkFact({ chunks: 3, p50Ms: 1234, p95Ms: 1500, chunkAudioMs: 1120, percent: 110.2 });
  assert.equal(value, '1.23 s · 110.2 % of its 1120 ms');
});
