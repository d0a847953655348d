import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupWords, isPunctuationPiece, refineTokenFrames } from '../../reference/index.js';

const pieces = ['<unk>', '▁Well', ',', '▁I', '▁don', "'", 't', '▁wish', '.', '<EOU>', 'ing', '▁?', '$'];
const P = (p: string): number => pieces.indexOf(p);
const tok = (p: string, frame: number, duration: number, confidence = 0.9) => ({ id: P(p), frame, duration, confidence });
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);

test('punctuation detection: single ASCII category-P characters (optionally after ▁)', () => {
  assert.ok(isPunctuationPiece(','));
  assert.ok(isPunctuationPiece('▁?'));
  assert.ok(isPunctuationPiece("'"));
  assert.ok(!isPunctuationPiece('$')); // category Sc
  assert.ok(!isPunctuationPiece('▁Well'));
  assert.ok(!isPunctuationPiece('<EOU>'));
  assert.ok(!isPunctuationPiece('¿'));
});

test('word grouping, punctuation gluing, refined times and min confidence', () => {
  const tokens = [
    tok('▁Well', 6, 2, 0.99),
    tok(',', 11, 1, 0.7), // predicted late: pinned to the previous token's end (frame 8)
    tok('▁I', 10, 1),
    tok('▁don', 12, 1, 0.95),
    tok("'", 13, 0, 0.5),
    tok('t', 13, 1, 0.8),
    tok('<EOU>', 14, 1), // event, not a word
    tok('▁wish', 15, 2, 0.6),
    tok('ing', 17, 1, 0.9),
    tok('.', 30, 1, 0.97),
  ];
  const refined = refineTokenFrames(pieces, tokens.filter((t) => t.id !== P('<EOU>')));
  assert.deepEqual(refined[1], { start: 8, end: 8 });
  const words = groupWords(pieces, tokens, 0.08);
  assert.deepEqual(words.map((w) => w.text), ['Well,', 'I', "don't", 'wishing.']);
  close(words[0].start, 0.48);
  close(words[0].end, 0.64);
  close(words[0].confidence, 0.7);
  close(words[1].start, 0.8);
  close(words[1].end, 0.88);
  close(words[2].start, 12 * 0.08);
  close(words[2].end, 14 * 0.08);
  close(words[2].confidence, 0.5);
  close(words[3].start, 15 * 0.08);
  close(words[3].end, 18 * 0.08); // '.' pinned to the end of 'ing'
  close(words[3].confidence, 0.6);
});

test('leading punctuation starts a word; <unk> starts a word; empty input', () => {
  const words = groupWords(pieces, [tok(',', 3, 1), tok('ing', 4, 1), tok('<unk>', 5, 1), tok('▁I', 6, 1)], 0.08);
  assert.deepEqual(words.map((w) => w.text), [',ing', '⁇', 'I']);
  close(words[0].start, 0.24);
  assert.deepEqual(groupWords(pieces, [], 0.08), []);
  assert.deepEqual(groupWords(pieces, [tok('<EOU>', 1, 1)], 0.08), []);
});
