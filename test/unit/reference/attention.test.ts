import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  contextAllows,
  loadAttention,
  relPositionAttention,
  relPositionalEncoding,
  relShift,
} from '../../reference/index.js';
import { makeRandomWeightSource, makeRng } from '../../reference/testing/random-weights.js';

/**
 * NeMo rel_shift done literally (spec §3.4 step 4): left-pad one zero column → [T, 2T], view as
 * [2T, T], drop the first row, view back as [T, 2T−1], keep the first T columns.
 */
function relShiftLiteral(bdRaw: Float64Array, T: number): Float64Array {
  const P = 2 * T - 1;
  const padded = new Float64Array(T * 2 * T); // [T][2T]
  for (let i = 0; i < T; i++) {
    padded[i * 2 * T] = 0;
    for (let c = 0; c < P; c++) padded[i * 2 * T + 1 + c] = bdRaw[i * P + c];
  }
  // view [2T][T]; drop row 0 → flat buffer starting at offset T, (2T−1)·T = T·(2T−1) elements.
  const dropped = padded.subarray(T);
  // view [T][2T−1], keep columns 0..T−1.
  const out = new Float64Array(T * T);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) out[i * T + j] = dropped[i * P + j];
  return out;
}

test('rel_shift index formula equals the literal pad/view/drop/view procedure', () => {
  for (const T of [1, 2, 3, 5, 8]) {
    const P = 2 * T - 1;
    const raw = new Float64Array(T * P);
    for (let i = 0; i < T; i++) for (let c = 0; c < P; c++) raw[i * P + c] = 1000 * i + c + 1; // all distinct, non-zero
    const lit = relShiftLiteral(raw, T);
    const fast = relShift(raw, T);
    assert.deepEqual(Array.from(fast), Array.from(lit), `T=${T}`);
    // and BD[i, j] = BD_raw[i, (T−1) − i + j]: the row whose relative position is i − j.
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) assert.equal(fast[i * T + j], 1000 * i + (T - 1 - i + j) + 1);
  }
});

test('positional table: rows run +(T−1) … −(T−1), sin/cos interleaved', () => {
  const T = 4;
  const D = 8;
  const pe = relPositionalEncoding(T, D);
  assert.equal(pe.length, (2 * T - 1) * D);
  for (let p = 0; p < 2 * T - 1; p++) {
    const pos = T - 1 - p;
    for (let i = 0; i < D / 2; i++) {
      const div = Math.pow(10000, -(2 * i) / D);
      assert.ok(Math.abs(pe[p * D + 2 * i] - Math.sin(pos * div)) < 1e-14);
      assert.ok(Math.abs(pe[p * D + 2 * i + 1] - Math.cos(pos * div)) < 1e-14);
    }
  }
  // centre row = relative position 0: sin 0 = 0, cos 0 = 1.
  for (let i = 0; i < D / 2; i++) {
    assert.equal(pe[(T - 1) * D + 2 * i], 0);
    assert.equal(pe[(T - 1) * D + 2 * i + 1], 1);
  }
});

function setup(T: number, D: number, H: number, seed: number) {
  const w = makeRandomWeightSource({ dModel: D, nHeads: H, nLayers: 1, seed });
  const aw = loadAttention(w, 'encoder.layers.0.self_attn.', D, H);
  const rng = makeRng(seed + 1);
  const x = new Float64Array(T * D).map(() => 2 * rng() - 1);
  return { aw, x, pe: relPositionalEncoding(T, D) };
}

test('padded query rows output exactly linear_out.bias; valid rows ignore padded keys', () => {
  const T = 7;
  const Tv = 5;
  const D = 16;
  const H = 2;
  const { aw, x, pe } = setup(T, D, H, 11);
  const y = relPositionAttention(x, T, Tv, pe, aw, D, H);
  assert.ok(aw.bo !== null);
  for (let i = Tv; i < T; i++) for (let c = 0; c < D; c++) assert.equal(y[i * D + c], aw.bo[c]);
  // Change the padded rows of the input: valid rows must not move at all.
  const x2 = Float64Array.from(x);
  for (let i = Tv * D; i < T * D; i++) x2[i] = 123.456 - i;
  const y2 = relPositionAttention(x2, T, Tv, pe, aw, D, H);
  for (let i = 0; i < Tv * D; i++) assert.equal(y2[i], y[i]);
});

test('attention equals a direct per-score computation with BD_raw at column (T−1) − i + j', () => {
  const T = 6;
  const D = 8;
  const H = 2;
  const dk = D / H;
  const { aw, x, pe } = setup(T, D, H, 5);
  const y = relPositionAttention(x, T, T, pe, aw, D, H);
  const proj = (W: Float64Array, b: Float64Array | null, src: Float64Array, rows: number) => {
    const o = new Float64Array(rows * D);
    for (let r = 0; r < rows; r++)
      for (let a = 0; a < D; a++) {
        let s = b ? b[a] : 0;
        for (let c = 0; c < D; c++) s += W[a * D + c] * src[r * D + c];
        o[r * D + a] = s;
      }
    return o;
  };
  const q = proj(aw.wq, aw.bq, x, T);
  const k = proj(aw.wk, aw.bk, x, T);
  const v = proj(aw.wv, aw.bv, x, T);
  const p = proj(aw.wpos, null, pe, 2 * T - 1);
  const ctx = new Float64Array(T * D);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < T; i++) {
      const sc: number[] = [];
      for (let j = 0; j < T; j++) {
        let ac = 0;
        let bd = 0;
        const rel = T - 1 - i + j; // row with relative position i − j
        assert.equal(T - 1 - rel, i - j);
        for (let d = 0; d < dk; d++) {
          ac += (q[i * D + h * dk + d] + aw.posBiasU[h * dk + d]) * k[j * D + h * dk + d];
          bd += (q[i * D + h * dk + d] + aw.posBiasV[h * dk + d]) * p[rel * D + h * dk + d];
        }
        sc.push((ac + bd) / Math.sqrt(dk));
      }
      const m = Math.max(...sc);
      const e = sc.map((s) => Math.exp(s - m));
      const z = e.reduce((a, b) => a + b, 0);
      for (let j = 0; j < T; j++) for (let d = 0; d < dk; d++) ctx[i * D + h * dk + d] += (e[j] / z) * v[j * D + h * dk + d];
    }
  }
  const want = proj(aw.wo, aw.bo, ctx, T);
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(want[i] - y[i]) < 1e-12, `i=${i}`);
});

test('limited context masks: regular band and chunked_limited', () => {
  const reg = { left: 2, right: 1, style: 'regular' as const };
  assert.equal(contextAllows(reg, 5, 3), true);
  assert.equal(contextAllows(reg, 5, 2), false);
  assert.equal(contextAllows(reg, 5, 6), true);
  assert.equal(contextAllows(reg, 5, 7), false);
  // chunk = right + 1 = 2, left_chunks = floor(2/2) = 1 → the current and the previous chunk.
  const ch = { left: 2, right: 1, style: 'chunked_limited' as const };
  assert.equal(contextAllows(ch, 4, 5), true); // same chunk [4,5]
  assert.equal(contextAllows(ch, 4, 6), false); // future chunk
  assert.equal(contextAllows(ch, 4, 2), true); // previous chunk
  assert.equal(contextAllows(ch, 4, 1), false); // two chunks back
  assert.equal(contextAllows({ left: -1, right: -1, style: 'regular' }, 0, 100), true);
});
