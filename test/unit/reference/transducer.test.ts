import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TransducerModel, reliableTokenCount, rnntGreedy, tdtGreedy } from '../../reference/index.js';

/**
 * Hand-built transducer: V = 3 tokens (0, 1, 2), blank = 3, durations [0, 1, 2]. The prediction
 * "state" is the number of tokens emitted so far; the joint is a script keyed by (frame, emitted count)
 * returning (token, duration); unscripted cells give blank with duration 1.
 */
function scripted(script: Record<string, [number, number]>, nDur = 3): TransducerModel<number> {
  return {
    blank: 3,
    initialState: () => 0,
    predict: (token, state) => {
      const s = token === null ? state : state + 1;
      return { output: Float64Array.of(s), state: s };
    },
    joint: (t, g) => {
      const [k, d] = script[`${t}:${g[0]}`] ?? [3, 1];
      const logits = new Float64Array(4 + nDur).fill(-5);
      logits[k] = 1;
      logits[4 + d] = 1; // durations [0,1,2] → index = value
      return logits;
    },
  };
}

const durations = [0, 1, 2];

test('TDT: the max_symbols-th emission with duration > 0 separates greedy from greedy_batch', () => {
  // max_symbols = 2. Frame 0: token 0 (d=0), then token 1 (d=1) — the 2nd decision on the frame emits with d>0.
  // greedy: t = 0 + 1 and, because symbols == max_symbols, +1 more → frame 2.
  // greedy_batch: only the duration → frame 1.
  const m = scripted({ '0:0': [0, 0], '0:1': [1, 1], '1:2': [2, 1], '2:2': [2, 1] });
  const g = tdtGreedy(m, 3, durations, 2, 'greedy');
  const b = tdtGreedy(m, 3, durations, 2, 'greedy_batch');
  assert.deepEqual(g.tokens.map((t) => [t.id, t.frame, t.duration]), [[0, 0, 0], [1, 0, 1], [2, 2, 1]]);
  assert.deepEqual(b.tokens.map((t) => [t.id, t.frame, t.duration]), [[0, 0, 0], [1, 0, 1], [2, 1, 1]]);
});

test('TDT: max_symbols emissions with duration 0 advance one frame in both variants', () => {
  const m = scripted({ '0:0': [0, 0], '0:1': [1, 0], '0:2': [2, 0], '1:2': [0, 2] });
  for (const rule of ['greedy', 'greedy_batch'] as const) {
    const r = tdtGreedy(m, 4, durations, 2, rule);
    // Two tokens on frame 0, then forced to frame 1 where (state 2) emits 0 with d=2 → frame 3: blank.
    assert.deepEqual(r.tokens.map((t) => [t.id, t.frame]), [[0, 0], [1, 0], [0, 1]], rule);
  }
});

test('TDT: blank with duration 0 advances one frame; blank with d>0 jumps; greedy counts blanks toward max_symbols', () => {
  // Frame 0 (state 0): token 0 d=0; then blank d=2 → both variants jump to frame 2 … but with
  // max_symbols = 2 the blank is greedy's 2nd symbol on the frame, so greedy adds +1 (frame 3).
  const m = scripted({ '0:0': [0, 0], '0:1': [3, 2], '2:1': [1, 1], '3:1': [2, 1] });
  const g = tdtGreedy(m, 5, durations, 2, 'greedy');
  const b = tdtGreedy(m, 5, durations, 2, 'greedy_batch');
  // greedy_batch lands on frame 2 (state 1: token 1), then frame 3 (state 2: blank) …
  assert.deepEqual(b.tokens.map((t) => [t.id, t.frame]), [[0, 0], [1, 2]]);
  // … greedy skips frame 2 and lands on frame 3 with state 1 (token 2).
  assert.deepEqual(g.tokens.map((t) => [t.id, t.frame]), [[0, 0], [2, 3]]);
  // blank with duration 0 → advance 1 (no infinite loop) in both
  const z = scripted({ '0:0': [3, 0], '1:0': [1, 1] });
  for (const rule of ['greedy', 'greedy_batch'] as const) {
    assert.deepEqual(tdtGreedy(z, 3, durations, 10, rule).tokens.map((t) => [t.id, t.frame]), [[1, 1]], rule);
  }
});

test('TDT greedy_batch keeps a token whose duration jumps past the end', () => {
  const m = scripted({ '0:0': [3, 1], '1:0': [2, 2] });
  const b = tdtGreedy(m, 2, durations, 10, 'greedy_batch');
  assert.deepEqual(b.tokens.map((t) => [t.id, t.frame, t.duration]), [[2, 1, 2]]);
  const g = tdtGreedy(m, 2, durations, 10, 'greedy');
  assert.deepEqual(g.tokens.map((t) => [t.id, t.frame, t.duration]), [[2, 1, 2]]);
});

test('TDT steps record token and duration margins', () => {
  const m = scripted({ '0:0': [1, 1] });
  const r = tdtGreedy(m, 2, durations, 10);
  assert.equal(r.steps[0].tokenMargin, 6);
  assert.equal(r.steps[0].durationMargin, 6);
  assert.equal(r.steps[0].emitted, true);
  assert.equal(r.tokens[0].margin, 6);
  assert.equal(reliableTokenCount(r.steps), 1);
});

test('RNNT greedy: at most max_symbols per frame, span 1, blank ends the frame', () => {
  const m: TransducerModel<number> = {
    blank: 3,
    initialState: () => 0,
    predict: (token, s) => ({ output: Float64Array.of(token === null ? s : s + 1), state: token === null ? s : s + 1 }),
    // frame 0 always says token 2; frame 1 says token 1 once, then blank
    joint: (t, g) => {
      const l = new Float64Array(4).fill(-1);
      if (t === 0) l[2] = 1;
      else if (t === 1 && g[0] === 3) l[1] = 1;
      else l[3] = 1;
      return l;
    },
  };
  const r = rnntGreedy(m, 3, 3);
  assert.deepEqual(r.tokens.map((t) => [t.id, t.frame, t.duration]), [[2, 0, 1], [2, 0, 1], [2, 0, 1], [1, 1, 1]]);
  // 3 emissions on frame 0 (no blank step), frame 1: emit + blank, frame 2: blank
  assert.equal(r.steps.length, 3 + 2 + 1);
});
