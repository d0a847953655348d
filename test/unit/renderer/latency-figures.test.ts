// The latency panel on a streaming model (issue 39): the session's chunk compute (median, its share of
// a chunk's audio, p95 and how many chunks it covers) as the panel's row; Settings' latency preset in figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamChunkFact } from '../../../renderer/components/stream-chunk-fact.js';
import { ACCURACY_UNMEASURED, presetChunkMs, presetLatencyText } from '../../../renderer/views/settings/preset-latency.js';

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

test('Settings › the latency preset: waiting for the chunk + the compute measured for that chunk length = first text', () => {
  const measured = { chunks: 37, p50Ms: 12.4, p95Ms: 19.6, chunkAudioMs: 160, percent: 7.75 };
  assert.equal(presetChunkMs([70, 1], 0.08), 160);
  assert.equal(presetChunkMs([70, 13], 0.08), 1120);
  const text = presetLatencyText(160, measured);
  assert.equal(text.latency, 'First text ≈ 80 ms waiting for the chunk (at most 160 ms) + 12 ms compute = ≈ 92 ms after a word is spoken.');
  assert.equal(text.source, 'Measured in the last dictation: 12 ms a chunk (median of 37, 7.8 % of its audio), p95 20 ms.');
  assert.equal(text.accuracy, ACCURACY_UNMEASURED);
});

test('Settings › a preset whose chunk length was not the one measured, or nothing measured yet, gets no compute figure of its own', () => {
  const other = presetLatencyText(560, { chunks: 37, p50Ms: 12.4, p95Ms: 19.6, chunkAudioMs: 160, percent: 7.75 });
  assert.equal(other.latency, 'First text ≈ 280 ms waiting for the chunk (at most 560 ms) + the engine\'s compute per chunk.');
  assert.match(other.source, /^The last dictation ran 160 ms chunks \(12 ms compute each\); dictate once with this preset to measure it\.$/);
  assert.match(presetLatencyText(560, null).source, /^Compute not measured yet/);
});
