// The spoken-digits test-set plan (test/support/audio/digits.ts): deterministic
// from its seed, every voice and word count in range, only the model's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digitString, planUtterances, prng, RATES, TEST_SET, VOICES } from '../../support/audio/digits.js';

const VOCAB = new Set(['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'oh']);

test('the PRNG is a fixed sequence per seed (mulberry32)', () => {
  const a = prng(42);
  const b = prng(42);
  const xs = Array.from({ length: 5 }, () => a());
  assert.deepEqual(Array.from({ length: 5 }, () => b()), xs);
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.notDeepEqual(Array.from({ length: 5 }, prng(43)), xs);
  // Pinned: a change of generator changes every cached set, so it must be deliberate (bump GENERATOR_VERSION).
  assert.equal(prng(1)().toFixed(10), '0.6270739406');
});

test('the evaluation set: same plan every time, six voices × 25, 2–10 words of the vocabulary, rates and pitches in range', () => {
  const plan = planUtterances(TEST_SET);
  assert.deepEqual(planUtterances(TEST_SET), plan);
  assert.equal(plan.length, VOICES.length * 25);
  assert.equal(new Set(plan.map((u) => u.id)).size, plan.length);
  for (const v of VOICES) assert.equal(plan.filter((u) => u.voice === v).length, 25);
  for (const u of plan) {
    const words = u.text.split(' ');
    assert.ok(words.length >= 2 && words.length <= 10, u.text);
    assert.ok(words.every((w) => VOCAB.has(w)), u.text);
    assert.ok((RATES as readonly number[]).includes(u.rate));
    assert.ok(u.pitch >= 30 && u.pitch <= 70);
  }
  // Both ways of saying 0 occur, every digit occurs.
  const all = new Set(plan.flatMap((u) => u.text.split(' ')));
  assert.deepEqual([...all].sort(), [...VOCAB].sort());
  assert.notDeepEqual(planUtterances({ ...TEST_SET, seed: TEST_SET.seed + 1 }).map((u) => u.text), plan.map((u) => u.text));
});

test('digitString gives n words', () => {
  const r = prng(7);
  for (let n = 1; n <= 12; n++) assert.equal(digitString(r, n).split(' ').length, n);
});
