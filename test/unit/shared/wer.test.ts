// WER/CER: normalisation and the edit-distance alignment, on hand-checked cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { align, chars, errorRates, normalizeText, rate, sumCounts, words } from '../../../app/shared/wer.js';

test('normalisation: NFKC, lowercase, apostrophes deleted, other punctuation a space, whitespace collapsed', () => {
  assert.equal(normalizeText('  Four, TWO... seven!  '), 'four two seven');
  assert.equal(normalizeText("Don't stop"), 'dont stop');
  assert.equal(normalizeText('don’t'), 'dont');
  assert.equal(normalizeText('one-two\tthree\nfour'), 'one two three four');
  assert.equal(normalizeText('ﬁve'), 'five'); // NFKC: the ligature is two letters
  assert.equal(normalizeText('¿Qué?'), 'qué');
  assert.equal(normalizeText(' ... '), '');
  assert.deepEqual(words(''), []);
  assert.deepEqual(words('Oh, one.'), ['oh', 'one']);
  assert.deepEqual(chars('Oh, one.'), ['o', 'h', ' ', 'o', 'n', 'e']);
});

test('identical after normalisation: WER and CER 0', () => {
  const r = errorRates('Four two seven, oh one.', 'four two seven oh one');
  assert.equal(r.wer, 0);
  assert.equal(r.cer, 0);
  assert.deepEqual(r.word, { n: 5, hits: 5, substitutions: 0, deletions: 0, insertions: 0, errors: 0 });
});

test('substitutions, deletions and insertions (hand-aligned)', () => {
  // ref: four two  seven oh  one  —       hyp: four five seven one one nine
  //      hit  sub  hit   sub hit  ins  → 3 edits: S(two→five), S(oh→one), I(nine).
  const a = align(['four', 'two', 'seven', 'oh', 'one'], ['four', 'five', 'seven', 'one', 'one', 'nine']);
  assert.equal(a.counts.errors, 3);
  assert.deepEqual([a.counts.substitutions, a.counts.deletions, a.counts.insertions, a.counts.hits], [2, 0, 1, 3]);
  assert.deepEqual(a.ops.map((o) => o.op), ['hit', 'sub', 'hit', 'sub', 'hit', 'ins']);

  const d = align(['nine', 'nine', 'four'], ['nine', 'four']);
  assert.deepEqual([d.counts.substitutions, d.counts.deletions, d.counts.insertions], [0, 1, 0]);
  assert.equal(rate(d.counts), 1 / 3);

  const i = align(['two'], ['two', 'two', 'two']);
  assert.deepEqual([i.counts.substitutions, i.counts.deletions, i.counts.insertions], [0, 0, 2]);
  assert.equal(rate(i.counts), 2); // WER can pass 100 % with insertions
});

test('empty sides', () => {
  assert.deepEqual(align([], []).counts, { n: 0, hits: 0, substitutions: 0, deletions: 0, insertions: 0, errors: 0 });
  const allDeleted = errorRates('one two three', '');
  assert.equal(allDeleted.word.deletions, 3);
  assert.equal(allDeleted.wer, 1);
  assert.equal(allDeleted.char.deletions, 13); // "one two three": 11 letters + 2 spaces
  assert.equal(allDeleted.cer, 1);
  assert.equal(errorRates('', '').wer, 0);
  const fromNothing = errorRates('', 'four');
  assert.equal(fromNothing.word.insertions, 1);
  assert.equal(fromNothing.wer, 1);
});

test('CER counts character edits including the space between words', () => {
  // "seven" → "eleven": 2 edits (s→e, insert l).
  const r = errorRates('seven', 'eleven');
  assert.equal(r.char.errors, 2);
  assert.equal(r.cer, 2 / 5);
  assert.equal(r.wer, 1);
  // A dropped word costs its letters and one space: "four two" → "four" is 4 of 8 characters.
  const d = errorRates('four two', 'four');
  assert.equal(d.char.errors, 4);
  assert.equal(d.cer, 0.5);
  assert.equal(d.wer, 0.5);
});

test('classic kitten → sitting: 3 edits (2 S, 1 I)', () => {
  const a = align([...'kitten'], [...'sitting']);
  assert.deepEqual([a.counts.substitutions, a.counts.deletions, a.counts.insertions], [2, 0, 1]);
});

test('the backtrace prefers a substitution over a deletion + insertion, and a deletion over an insertion on ties', () => {
  const a = align(['a', 'b'], ['c', 'b']);
  assert.deepEqual(a.ops.map((o) => o.op), ['sub', 'hit']);
  const b = align(['x', 'y'], ['y', 'x']);
  // Cost 2 as two substitutions or as del+hit+ins; from the end the backtrace takes the diagonal.
  assert.equal(b.counts.errors, 2);
  assert.deepEqual(b.ops.map((o) => o.op), ['sub', 'sub']);
});

test('pooled counts: Σ errors / Σ N, not the mean of per-file rates', () => {
  const a = errorRates('one', 'two').word; // 1/1
  const b = errorRates('one two three four five six seven eight nine', 'one two three four five six seven eight nine').word; // 0/9
  const total = sumCounts([a, b]);
  assert.equal(total.n, 10);
  assert.equal(total.errors, 1);
  assert.equal(rate(total), 0.1); // the mean of rates would be 0.5
});
