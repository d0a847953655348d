// Relative-position multi-head self-attention, spec §3.4 — NeMo RelPositionMultiHeadAttention.forward
// (rel_shift, pos_bias_u/v) with the masks of ConformerEncoder._create_masks.
//
// Padded query rows (i ≥ Tv): NeMo masks the whole row, so softmax·mask gives an all-zero attention
// row, the context is zero and the output row is exactly linear_out.bias (0 when there is no bias).
// This reference follows NeMo (the engine does too: parakeet.cpp multiplies the context by 0).
import type { EncoderParams } from './hparams.js';
import { linear, optionalTensor, tensor } from './linalg.js';
import type { WeightSource } from './weights.js';

export interface AttentionWeights {
  wq: Float64Array; bq: Float64Array | null;
  wk: Float64Array; bk: Float64Array | null;
  wv: Float64Array; bv: Float64Array | null;
  wo: Float64Array; bo: Float64Array | null;
  wpos: Float64Array;
  /** [H][dk] (torch (H, dk), ggml ne [dk, H]). */
  posBiasU: Float64Array;
  posBiasV: Float64Array;
}

export function loadAttention(w: WeightSource, prefix: string, D: number, H: number): AttentionWeights {
  const dk = D / H;
  const lin = (n: string): Float64Array => tensor(w, `${prefix}${n}.weight`, [D, D]);
  const bias = (n: string): Float64Array | null => optionalTensor(w, `${prefix}${n}.bias`, [D]);
  return {
    wq: lin('linear_q'), bq: bias('linear_q'),
    wk: lin('linear_k'), bk: bias('linear_k'),
    wv: lin('linear_v'), bv: bias('linear_v'),
    wo: lin('linear_out'), bo: bias('linear_out'),
    wpos: lin('linear_pos'),
    posBiasU: tensor(w, `${prefix}pos_bias_u`, [dk, H]),
    posBiasV: tensor(w, `${prefix}pos_bias_v`, [dk, H]),
  };
}

/**
 * rel_shift by its index formula: BD[i, j] = BD_raw[i, (T−1) − i + j] for 0 ≤ i, j < T.
 * Input [T][2T−1], output [T][T]. (Equivalent to NeMo's pad/view/drop-row/view + [:, :T]; see tests.)
 */
export function relShift(bdRaw: Float64Array, T: number): Float64Array {
  const P = 2 * T - 1;
  const out = new Float64Array(T * T);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) out[i * T + j] = bdRaw[i * P + (T - 1 - i + j)];
  }
  return out;
}

export interface AttentionContext {
  /** -1 = unbounded. */
  left: number;
  right: number;
  style: 'regular' | 'chunked_limited';
}

export function attentionContextOf(enc: EncoderParams): AttentionContext {
  return { left: enc.attContextLeft, right: enc.attContextRight, style: enc.attContextStyle };
}

/**
 * Whether key j is visible from query i (before the padding mask).
 * regular: i − left ≤ j ≤ i + right (each side unbounded when negative);
 * chunked_limited: chunk = right + 1, 0 ≤ ⌊i/chunk⌋ − ⌊j/chunk⌋ ≤ ⌊left/chunk⌋ (left < 0 → unbounded).
 */
export function contextAllows(ctx: AttentionContext, i: number, j: number): boolean {
  if (ctx.style === 'chunked_limited') {
    const chunk = ctx.right + 1;
    const d = Math.floor(i / chunk) - Math.floor(j / chunk);
    if (d < 0) return false;
    return ctx.left < 0 || d <= Math.floor(ctx.left / chunk);
  }
  if (ctx.left >= 0 && j < i - ctx.left) return false;
  if (ctx.right >= 0 && j > i + ctx.right) return false;
  return true;
}

/**
 * Queries attending over a key window, as NeMo's RelPositionMultiHeadAttention sees it in both of
 * its uses: offline (queries = keys = the clip) and cache-aware streaming (keys = [cache | chunk],
 * the chunk's queries sitting after the cache; NeMo MultiHeadAttention.update_cache).
 */
export interface AttentionWindow {
  /** Query input x̂ [nQueries][D]. */
  queries: Float64Array;
  nQueries: number;
  /** Key/value input x̂ [nKeys][D]. */
  keys: Float64Array;
  nKeys: number;
  /** Key position of query 0 (query i sits at key position queryOffset + i). */
  queryOffset: number;
  /** Queries i ≥ this are padding: zero context, output linear_out.bias (NeMo masks the whole row). */
  activeQueries: number;
  /** Positional table [2·nKeys−1][D] (relPositionalEncoding(nKeys, D)). */
  pe: Float64Array;
  /** Whether query i may see key j (context and padding masks together). */
  visible(i: number, j: number): boolean;
}

/**
 * Relative-position attention over a window. The positional term of query i and key j uses the
 * table row of relative position (queryOffset + i) − j, i.e. row nKeys − 1 − (queryOffset + i − j);
 * for the square offline case that is NeMo's rel_shift (see relShift). Returns [nQueries][D].
 */
export function relPositionAttentionWindow(win: AttentionWindow, aw: AttentionWeights, D: number, H: number): Float64Array {
  const dk = D / H;
  const { nQueries: Tq, nKeys: Tk } = win;
  const P = 2 * Tk - 1;
  // 1. projections.
  const q = linear(win.queries, Tq, D, aw.wq, D, aw.bq);
  const k = linear(win.keys, Tk, D, aw.wk, D, aw.bk);
  const v = linear(win.keys, Tk, D, aw.wv, D, aw.bv);
  const p = linear(win.pe, P, D, aw.wpos, D, null);
  const context = new Float64Array(Tq * D); // padded query rows stay zero (NeMo)
  const invSqrtDk = 1 / Math.sqrt(dk);
  const qu = new Float64Array(dk);
  const qv = new Float64Array(dk);
  const scores = new Float64Array(Tk);
  const allowed = new Uint8Array(Tk);
  const active = Math.min(Tq, win.activeQueries);
  for (let h = 0; h < H; h++) {
    const ho = h * dk;
    for (let i = 0; i < active; i++) {
      // 2–4. AC = (q + pos_bias_u)·kᵀ, BD = (q + pos_bias_v)·p[row of i − j]ᵀ.
      for (let d = 0; d < dk; d++) {
        qu[d] = q[i * D + ho + d] + aw.posBiasU[ho + d];
        qv[d] = q[i * D + ho + d] + aw.posBiasV[ho + d];
      }
      const rowOfKey0 = Tk - 1 - (win.queryOffset + i);
      let max = -Infinity;
      for (let j = 0; j < Tk; j++) {
        allowed[j] = win.visible(i, j) ? 1 : 0;
        if (!allowed[j]) continue;
        let ac = 0;
        const ko = j * D + ho;
        for (let d = 0; d < dk; d++) ac += qu[d] * k[ko + d];
        let bd = 0;
        const po = (rowOfKey0 + j) * D + ho;
        for (let d = 0; d < dk; d++) bd += qv[d] * p[po + d];
        const s = (ac + bd) * invSqrtDk;
        scores[j] = s;
        if (s > max) max = s;
      }
      // 5. softmax over visible keys (masked keys contribute exactly 0, as after NeMo's masked_fill).
      let sum = 0;
      for (let j = 0; j < Tk; j++) {
        if (!allowed[j]) continue;
        scores[j] = Math.exp(scores[j] - max);
        sum += scores[j];
      }
      const co = i * D + ho;
      for (let j = 0; j < Tk; j++) {
        if (!allowed[j]) continue;
        const a = scores[j] / sum;
        const vo = j * D + ho;
        for (let d = 0; d < dk; d++) context[co + d] += a * v[vo + d];
      }
    }
  }
  // merge heads (already channel h*dk + d) and linear_out.
  return linear(context, Tq, D, aw.wo, D, aw.bo);
}

/**
 * Offline attention: x̂ [T][D] (already norm_self_att'ed), valid length Tv, positional table
 * pe [2T−1][D]. Keys j ≥ Tv are masked; query rows i ≥ Tv are padding. Returns [T][D].
 */
export function relPositionAttention(
  xh: Float64Array,
  T: number,
  Tv: number,
  pe: Float64Array,
  aw: AttentionWeights,
  D: number,
  H: number,
  ctx: AttentionContext = { left: -1, right: -1, style: 'regular' },
): Float64Array {
  return relPositionAttentionWindow(
    {
      queries: xh, nQueries: T, keys: xh, nKeys: T, queryOffset: 0, activeQueries: Tv, pe,
      visible: (i, j) => j < Tv && contextAllows(ctx, i, j),
    },
    aw, D, H,
  );
}
