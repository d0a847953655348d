import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detokenize, pieceKind, tokenText } from '../../reference/index.js';

const pieces = ['<unk>', '▁well', ',', '▁I', '▁don', "'", 't', 'ing', '▁', '<s>', '</s>', '<pad>', '<EOU>', '<en-US>', '▁go', '.', '<0x41>', 'x▁y'];
const id = (p: string): number => {
  const i = pieces.indexOf(p);
  assert.ok(i >= 0, p);
  return i;
};
const ids = (...ps: string[]): number[] => ps.map(id);

test('leading ▁ of the first piece is removed; other ▁ become spaces; punctuation glues', () => {
  assert.equal(detokenize(pieces, ids('▁well', ',', '▁I', '▁don', "'", 't', '▁go', 'ing', '.')), "well, I don't going.");
  assert.equal(detokenize(pieces, ids('ing', '▁go')), 'ing go');
  assert.equal(detokenize(pieces, ids('x▁y')), 'x y');
  assert.equal(detokenize(pieces, []), '');
});

test('control and bracketed special pieces are dropped (and do not consume the leading-space rule)', () => {
  assert.equal(detokenize(pieces, ids('<s>', '▁well', '<EOU>', '▁go', '</s>', '<pad>', '<en-US>')), 'well go');
  assert.equal(detokenize(pieces, ids('<0x41>', '▁go')), 'go');
  assert.equal(pieceKind('<EOB>'), 'special');
  assert.equal(pieceKind('<s>'), 'control');
  assert.equal(pieceKind('<unk>'), 'unk');
  assert.equal(pieceKind('<'), 'text');
});

test('<unk> renders as " ⁇ " like SentencePiece decode_ids', () => {
  // sentencepiece 0.1.97: [unk, ▁well, …] → " ⁇  well …" (the unk surface keeps its spaces)
  assert.equal(detokenize(pieces, ids('<unk>', '▁well', '▁go')), ' \u2047  well go');
  assert.equal(detokenize(pieces, ids('▁well', '<unk>', '▁go')), 'well \u2047  go');
  assert.equal(detokenize(pieces, ids('▁well', '<unk>', 'ing')), 'well \u2047 ing');
});

test('a lone ▁ piece at the start yields nothing and the next piece keeps its text', () => {
  assert.equal(detokenize(pieces, ids('▁', '▁go')), 'go');
  assert.equal(detokenize(pieces, ids('▁go', '▁', 'ing')), 'go ing');
  assert.equal(tokenText(pieces, id('▁well')), 'well');
  assert.throws(() => detokenize(pieces, [pieces.length]), RangeError);
});
