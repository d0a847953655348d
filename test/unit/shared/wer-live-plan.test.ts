// The live WER bench's pure parts (test/bench/wer-live-plan.ts): the sweep
// planner changes one setting per run and runs the base once; finals are
// placed on the strings they cover, merges and splits counted; two runs'
// finals compared cut by cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_DICTATION } from '../../../app/ipc/settings.js';
import { alignFinals, finalsDiffer, planSweep, type FinalCut, type SpokenString } from '../../bench/wer-live-plan.js';

const base = { ...DEFAULT_DICTATION, preRollMs: 0 };

test('the sweep changes one setting per run from the base, and runs the base once per audio and speed', () => {
  const runs = planSweep({
    base, speed: 16,
    axes: { pauseMs: [300, base.pauseMs, 1000], vadThresholdDb: [6, base.vadThresholdDb, 16] },
    audioOf: { vadThresholdDb: 'floor' },
  });
  // pause 300, base (clean), pause 1000, threshold 6 (floor), base (floor), threshold 16 (floor).
  assert.deepEqual(runs.map((r) => `${r.audio}: ${r.label}`), [
    'clean: pause 300 ms', 'clean: base', 'clean: pause 1000 ms', 'floor: VAD threshold 6 dB', 'floor: base', 'floor: VAD threshold 16 dB',
  ]);
  for (const r of runs) {
    const changed = (Object.keys(base) as (keyof typeof base)[]).filter((k) => r.settings[k] !== base[k]);
    assert.deepEqual(changed, r.axis ? [r.axis] : [], r.label);
    assert.equal(r.speed, 16);
  }
  assert.equal(runs.find((r) => r.label === 'pause 1000 ms')?.settings.pauseMs, 1000);
});

test('the same base on the same audio and speed is one run, even when two axes reach it', () => {
  const runs = planSweep({ base, speed: 16, axes: { pauseMs: [base.pauseMs, 400], partialIntervalMs: [base.partialIntervalMs, 100] } });
  assert.deepEqual(runs.map((r) => r.label), ['base', 'pause 400 ms', 'partials every 100 ms']);
  // A different speed for an axis is another base run.
  const real = planSweep({ base, speed: 16, axes: { pauseMs: [base.pauseMs], partialIntervalMs: [base.partialIntervalMs] }, speedOf: { partialIntervalMs: 1 } });
  assert.deepEqual(real.map((r) => [r.label, r.speed]), [['base', 16], ['base', 1]]);
});

const R = 16_000;
const strings: SpokenString[] = [
  { text: 'one two', start: 1, end: 2 },
  { text: 'three four five', start: 3, end: 4.5 },
  { text: 'six', start: 6, end: 6.5 },
];
const cut = (text: string, a: number, b: number): FinalCut => ({ text, startSample: Math.round(a * R), endSample: Math.round(b * R) });

test('one final per string, each its words: every string exact, nothing merged or split', () => {
  const al = alignFinals([cut('one two', 0.9, 2.3), cut('three four five', 2.9, 4.8), cut('six', 5.9, 6.8)], strings, R);
  assert.deepEqual(al, { perString: ['one two', 'three four five', 'six'], exact: 3, merged: 0, split: 0, stray: 0 });
});

test('a final over two strings is one merge, its text goes to the string it covers most, the other reads as missed', () => {
  const al = alignFinals([cut('one two three four five', 0.9, 4.8), cut('six', 5.9, 6.8)], strings, R);
  assert.equal(al.merged, 1);
  assert.deepEqual(al.perString, ['', 'one two three four five', 'six']);
  assert.equal(al.exact, 1);
});

test('two finals on one string are a split; a pre-roll reaching into the previous string is not a merge; a final in silence is stray', () => {
  const al = alignFinals([
    cut('one two', 0.9, 2.3),
    cut('three', 1.95, 3.6), // starts 50 ms inside string 0: under minOverlapSec
    cut('four five', 3.6, 4.8),
    cut('oh', 5.0, 5.5), // between strings
    cut('', 5.9, 6.8), // an empty final on "six": the string is missed, not split
  ], strings, R);
  assert.equal(al.merged, 0);
  assert.equal(al.split, 1);
  assert.equal(al.stray, 1);
  assert.deepEqual(al.perString, ['one two', 'three four five', '']);
  assert.equal(al.exact, 2);
});

test('finals compared cut by cut: a moved cut, a changed text and a missing final each count once', () => {
  const a = [cut('one two', 0.9, 2.3), cut('three four five', 2.9, 4.8), cut('six', 5.9, 6.8)];
  assert.equal(finalsDiffer(a, a.map((f) => ({ ...f, text: ` ${f.text} ` }))), 0);
  assert.equal(finalsDiffer(a, [a[0]!, { ...a[1]!, endSample: a[1]!.endSample + 320 }, a[2]!]), 1);
  assert.equal(finalsDiffer(a, [a[0]!, { ...a[1]!, text: 'three four' }]), 2);
});
