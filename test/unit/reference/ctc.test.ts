import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ctcGreedy, reliableTokenCount } from '../../reference/index.js';

/** Frames of one-hot-ish log-probs: each frame's argmax is the given class. */
function frames(classes: number[], nClasses: number, margin = 2): Float64Array {
  const lp = new Float64Array(classes.length * nClasses).fill(-margin - 1);
  classes.forEach((c, t) => (lp[t * nClasses + c] = -1));
  return lp;
}

const B = 4; // blank for nClasses = 5 (V = 4)

test('CTC greedy collapses repeats, drops blanks, keeps a token repeated across a blank', () => {
  const seq = [B, 0, 0, B, 0, 1, 1, B, B, 2, 2];
  const r = ctcGreedy(frames(seq, 5), seq.length, 5);
  assert.deepEqual(r.tokens.map((t) => t.id), [0, 0, 1, 2]);
  assert.deepEqual(r.tokens.map((t) => t.frame), [1, 4, 5, 9]);
  // span = next token frame − frame; last token 1
  assert.deepEqual(r.tokens.map((t) => t.duration), [3, 1, 4, 1]);
  assert.equal(r.steps.length, seq.length);
  assert.deepEqual(r.steps.map((s) => s.emitted), seq.map((_, t) => [1, 4, 5, 9].includes(t)));
});

test('CTC greedy: only the first Tv frames are decoded; ties resolve to the lowest index', () => {
  const seq = [0, B, 1, 2];
  const r = ctcGreedy(frames(seq, 5), 2, 5);
  assert.deepEqual(r.tokens.map((t) => t.id), [0]);
  const lp = new Float64Array(5).fill(-9);
  lp[3] = -1;
  lp[1] = -1; // tie between 1 and 3
  const tie = ctcGreedy(lp, 1, 5);
  assert.equal(tie.tokens[0].id, 1);
  assert.equal(tie.steps[0].margin, 0);
  assert.equal(reliableTokenCount(tie.steps), 0);
});

test('CTC confidence is max_prob (α=1) at the token frames, min over its repeated frames', () => {
  const N = 5;
  const lp = new Float64Array(2 * N);
  // frame 0: p(2) = 0.6, others 0.1; frame 1: p(2) = 0.8, others 0.05
  [0.1, 0.1, 0.6, 0.1, 0.1, 0.05, 0.05, 0.8, 0.05, 0.05].forEach((p, i) => (lp[i] = Math.log(p)));
  const r = ctcGreedy(lp, 2, N);
  assert.equal(r.tokens.length, 1);
  const conf = (p: number) => (N * p - 1) / (N - 1);
  assert.ok(Math.abs(r.tokens[0].confidence - conf(0.6)) < 1e-12);
  assert.ok(Math.abs(r.tokens[0].margin - Math.log(6)) < 1e-12);
});
