// The device self-test's pure half: the fixed signal is the same every time,
// the tolerance follows the placed weight types (and the GPU precision floor),
// and the verdict fails garbage, NaN, another shape and a changed token
// sequence while passing a small precision difference.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CPU_TOLERANCE, DEVICE_TOLERANCE, SELF_TEST_RATE, formatError, judge, precisionOf, relativeL2, selfTestSignal, toleranceFor,
  type SelfTestRun,
} from '../../../app/engine-process/self-test.js';

const CPU = { name: 'the CPU', possessive: "the CPU's" };

function run(values: number[], tokens: number[] = [5, 9, 12], dim = 4): SelfTestRun {
  return { encoder: Float32Array.from(values), validFrames: values.length / dim, dim, tokens };
}

const ref = run([1, -2, 3, 0.5, 0.25, -1, 2, 4]);

test('the signal: 1 s at 16 kHz, deterministic, finite, loud enough and not clipped', () => {
  const a = selfTestSignal();
  const b = selfTestSignal();
  assert.equal(a.length, SELF_TEST_RATE);
  assert.deepEqual(a, b);
  let peak = 0;
  let energy = 0;
  for (const v of a) {
    assert.ok(Number.isFinite(v));
    peak = Math.max(peak, Math.abs(v));
    energy += v * v;
  }
  const rms = Math.sqrt(energy / a.length);
  assert.ok(peak < 1, `peak ${peak}`);
  assert.ok(rms > 0.05, `rms ${rms}`);
});

test('tolerance: the CPU against itself is strict; another device by the loosest placed weight type', () => {
  assert.equal(precisionOf({ f32: 40 }), 'float');
  assert.equal(precisionOf({ f32: 10, f16: 30, bf16: 1 }), 'float');
  assert.equal(precisionOf({ f32: 10, f16: 3, q8_0: 30 }), 'quantized');
  assert.equal(precisionOf({ f32: 10, q4_K: 0 }), 'float', 'a type with no tensors does not count');
  assert.equal(toleranceFor({ q4_K: 40 }, true), CPU_TOLERANCE);
  assert.equal(toleranceFor({ f32: 40 }, false), DEVICE_TOLERANCE.float);
  assert.equal(toleranceFor({ f32: 3, q8_0: 40 }, false), DEVICE_TOLERANCE.quantized);
  assert.ok(CPU_TOLERANCE <= 1e-4 && DEVICE_TOLERANCE.quantized < 0.5, 'garbage (≈1.4) and NaN always fail');
});

test('a small precision difference with the same tokens passes and says so', () => {
  const got = run([...ref.encoder].map((v) => v * (1 + 1e-6)));
  const verdict = judge(got, ref, 1e-4, CPU);
  assert.equal(verdict.passed, true);
  assert.ok(verdict.relL2 !== null && verdict.relL2 > 0 && verdict.relL2 < 2e-6);
  assert.equal(verdict.tokensMatch, true);
  assert.match(verdict.detail, /^matches the CPU: relative error \d\.\de-[67], same tokens$/);
});

test('garbage fails with the relative error; NaN and another shape fail without one', () => {
  const garbage = judge(run([...ref.encoder].map((v) => -v)), ref, 5e-2, CPU);
  assert.equal(garbage.passed, false);
  assert.equal(garbage.relL2, 2);
  assert.match(garbage.detail, /^its output differs from the CPU's \(relative error 2\.0, allowed 0\.050\); results on it would be wrong$/);

  const nan = judge(run([1, -2, Number.NaN, 0.5, 0.25, -1, 2, 4]), ref, 5e-2, CPU);
  assert.deepEqual([nan.passed, nan.relL2], [false, null]);
  assert.match(nan.detail, /NaN or infinity/);

  const inf = judge(run([1, -2, 3, 0.5, 0.25, -1, 2, Number.POSITIVE_INFINITY]), ref, 5e-2, CPU);
  assert.equal(inf.passed, false);

  const shape = judge(run([1, -2, 3, 0.5]), ref, 5e-2, CPU);
  assert.deepEqual([shape.passed, shape.relL2], [false, null]);
  assert.match(shape.detail, /another shape/);
});

test('tokens: one flipped near-tie passes (reported), more differences fail', () => {
  const one = judge(run([...ref.encoder], [5, 9, 13]), ref, 1e-4, CPU);
  assert.deepEqual([one.passed, one.tokensMatch], [true, false]);
  assert.match(one.detail, /one token differs/);
  const many = judge(run([...ref.encoder], [1, 1, 1, 1]), ref, 1e-4, CPU);
  assert.deepEqual([many.passed, many.tokensMatch], [false, false]);
  assert.match(many.detail, /its tokens differ from the CPU's/);
});

test("the reference's own NaN is not the device's fault: no verdict", () => {
  assert.throws(() => judge(ref, run([Number.NaN, 0, 0, 0, 0, 0, 0, 0]), 1e-4, CPU), /reference run \(the CPU\).*broken/);
});

test('relative L2 and its text', () => {
  assert.equal(relativeL2([0, 0], [0, 0], 2), 0);
  assert.equal(relativeL2([0, 0], [1, 0], 2), Number.POSITIVE_INFINITY);
  assert.equal(relativeL2([3, 4], [3, 4], 2), 0);
  assert.equal(formatError(0), '0');
  assert.equal(formatError(2.1e-7), '2.1e-7');
  assert.equal(formatError(0.8312), '0.83');
});
