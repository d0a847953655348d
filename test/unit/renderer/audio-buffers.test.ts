// Pre-roll ring, worklet framing, frame routing and level mapping: the parts
// of the capture path that decide whether a sample is kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CaptureRouter } from '../../../renderer/audio/capture-router.js';
import { FrameAccumulator, mixToMono } from '../../../renderer/audio/frame-accumulator.js';
import { levelFromRms, rms, smoothLevel } from '../../../renderer/audio/level.js';
import { SampleRing } from '../../../renderer/audio/ring-buffer.js';

const ramp = (from: number, n: number): Float32Array => Float32Array.from({ length: n }, (_, i) => from + i);

describe('SampleRing', () => {
  test('keeps the newest samples in order across wrap-around', () => {
    const ring = new SampleRing(5);
    ring.push(ramp(0, 3));
    ring.push(ramp(3, 4));
    assert.deepEqual([...ring.peek()], [2, 3, 4, 5, 6]);
    assert.equal(ring.dropped, 2);
    assert.deepEqual([...ring.drain()], [2, 3, 4, 5, 6]);
    assert.equal(ring.length, 0);
  });

  test('a push longer than the ring keeps its tail', () => {
    const ring = new SampleRing(4);
    ring.push(ramp(0, 10));
    assert.deepEqual([...ring.peek()], [6, 7, 8, 9]);
  });

  test('rejects a non-positive capacity', () => {
    assert.throws(() => new SampleRing(0), RangeError);
  });
});

describe('FrameAccumulator', () => {
  test('regroups 128-sample quanta into fixed frames without losing or reordering samples', () => {
    const frames: Float32Array[] = [];
    const acc = new FrameAccumulator(640, (f) => frames.push(f));
    for (let q = 0; q < 12; q++) acc.push(ramp(q * 128, 128));
    assert.equal(frames.length, 2);
    assert.equal(acc.pending, 12 * 128 - 2 * 640);
    acc.flush();
    const all = frames.flatMap((f) => [...f]);
    assert.deepEqual(all, [...ramp(0, 12 * 128)]);
    assert.equal(frames[2].length, 12 * 128 - 2 * 640);
  });

  test('emitted frames are independent buffers (safe to transfer)', () => {
    const frames: Float32Array[] = [];
    const acc = new FrameAccumulator(4, (f) => frames.push(f));
    acc.push(ramp(0, 8));
    assert.notEqual(frames[0].buffer, frames[1].buffer);
  });

  test('flush with nothing pending emits nothing', () => {
    let n = 0;
    new FrameAccumulator(4, () => n++).flush();
    assert.equal(n, 0);
  });

  test('mixToMono averages channels', () => {
    assert.deepEqual([...mixToMono([Float32Array.of(1, 0), Float32Array.of(0, 1)])], [0.5, 0.5]);
    assert.equal(mixToMono([]).length, 0);
  });
});

describe('CaptureRouter', () => {
  test('armed: pre-roll holds the newest samples; attach sends pre-roll, then queued, then live frames in order', () => {
    const router = new CaptureRouter(4);
    router.push(ramp(0, 3));
    router.push(ramp(3, 3)); // ring keeps 2..5
    assert.equal(router.latch(), 4);
    router.push(ramp(6, 2)); // queued while dictation:start is in flight
    const sent: number[] = [];
    const starts: number[] = [];
    router.attach((f, start) => {
      starts.push(start);
      sent.push(...f);
    });
    router.push(ramp(8, 2));
    assert.deepEqual(sent, [2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(starts, [0, 4, 6], 'each frame carries the index of its first sample');
    assert.equal(router.samplesSent, 8);
    assert.equal(router.state, 'streaming');
  });

  test('latched before the first frame (mic opened by Start): nothing is evicted while waiting', () => {
    const router = new CaptureRouter(2);
    router.latch();
    for (let i = 0; i < 10; i++) router.push(ramp(i * 3, 3));
    assert.equal(router.samplesHeld, 30);
    const sent: number[] = [];
    router.attach((f) => sent.push(...f));
    assert.deepEqual(sent, [...ramp(0, 30)]);
  });

  test('a long pre-roll is split into bounded frames', () => {
    const router = new CaptureRouter(10_000);
    router.push(new Float32Array(10_000));
    router.latch();
    const sizes: number[] = [];
    router.attach((f) => sizes.push(f.length), 4096);
    assert.deepEqual(sizes, [4096, 4096, 1808]);
  });

  test('detach returns to pre-roll mode and forgets the session', () => {
    const router = new CaptureRouter(4);
    router.latch();
    let sent = 0;
    router.attach(() => sent++);
    router.detach();
    router.push(ramp(0, 2));
    assert.equal(sent, 0);
    assert.equal(router.state, 'armed');
    assert.equal(router.samplesHeld, 2);
  });
});

describe('level', () => {
  test('RMS maps to 0..1 over -60..0 dBFS', () => {
    assert.equal(levelFromRms(0), 0);
    assert.equal(levelFromRms(1), 1);
    assert.ok(Math.abs(levelFromRms(0.1) - 2 / 3) < 1e-9); // -20 dBFS
    assert.ok(Math.abs(rms(Float32Array.of(0.5, -0.5)) - 0.5) < 1e-9);
  });

  test('rises at once, falls slowly', () => {
    assert.equal(smoothLevel(0.2, 0.8), 0.8);
    assert.ok(Math.abs(smoothLevel(0.8, 0, 0.1) - 0.7) < 1e-9);
  });
});
