// One cache-aware streaming step of the FastConformer encoder, spec §5.2 — NeMo
// ConformerEncoder.cache_aware_stream_step → forward_internal with cache_last_channel /
// cache_last_time: subsample the chunk (pre-encode cache included), drop the frames that saw the
// chunk's own zero padding, then every layer attends over [attention cache | chunk] and convolves
// over [conv cache | chunk], updating both caches.
import { contextAllows, relPositionAttentionWindow } from './attention.js';
import { conformerBlock, convGlu, convTail, depthwiseConv } from './conformer.js';
import type { EncoderWeights } from './encoder.js';
import { relPositionalEncoding } from './posenc.js';
import type { StreamSchedule } from './stream-params.js';
import { runSubsampling } from './subsampling.js';

export interface EncoderCaches {
  /** Per layer [L][D]: the last L norm_self_att outputs (cache_last_channel), oldest first. */
  attention: Float64Array[];
  /** Filled slots (the newest), the same for every layer (cache_last_channel_len). */
  attentionFilled: number;
  /** Per layer [K−1][D]: the last K−1 GLU outputs (cache_last_time); zeros at the start = causal padding. */
  conv: Float64Array[];
}

export function initialCaches(ew: EncoderWeights, s: StreamSchedule): EncoderCaches {
  const D = ew.params.dModel;
  const K = ew.params.convKernel;
  return {
    attention: ew.layers.map(() => new Float64Array(s.cacheFrames * D)),
    attentionFilled: 0,
    conv: ew.layers.map(() => new Float64Array((K - 1) * D)),
  };
}

function concatRows(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * One step on a mel window [M][n] (time fastest; the pre-encode cache first): returns the chunk's
 * encoder frames [T][D] after dropping `drop` leading frames, and updates `caches` in place.
 */
export function streamEncoderStep(
  ew: EncoderWeights,
  caches: EncoderCaches,
  s: StreamSchedule,
  mel: Float64Array,
  nMelFrames: number,
  drop: number,
): { out: Float64Array; frames: number } {
  const enc = ew.params;
  const D = enc.dModel;
  const K = enc.convKernel;
  const L = s.cacheFrames;
  // The whole window is valid: NeMo passes the chunk's length, so the subsampling masks nothing.
  const sub = runSubsampling(mel, enc.featIn, nMelFrames, nMelFrames, ew.subsampling);
  const T = Math.max(0, sub.frames - drop);
  let x: Float64Array = sub.out.slice(drop * D, (drop + T) * D);
  if (T === 0) return { out: x, frames: 0 };
  // Positions: [cache 0..L−1 | chunk L..L+T−1]; the table spans both (2(L+T)−1 rows, RelPositionalEncoding with cache_len).
  const pe = relPositionalEncoding(L + T, D);
  const ctx = { left: s.preset[0], right: s.preset[1], style: enc.attContextStyle };
  const firstFilled = L - caches.attentionFilled; // unfilled cache slots are padding (NeMo offset mask)
  for (let l = 0; l < ew.layers.length; l++) {
    const lw = ew.layers[l];
    x = conformerBlock(x, T, lw, enc, {
      attend: (xh) => {
        const keys = concatRows(caches.attention[l], xh);
        caches.attention[l] = keys.slice(keys.length - L * D);
        return relPositionAttentionWindow(
          {
            queries: xh, nQueries: T, keys, nKeys: L + T, queryOffset: L, activeQueries: T, pe,
            visible: (i, j) => j >= firstFilled && contextAllows(ctx, L + i, j),
          },
          lw.att, D, enc.nHeads,
        );
      },
      convolve: (xh) => {
        const g = concatRows(caches.conv[l], convGlu(xh, T, T, D, lw.conv));
        caches.conv[l] = g.slice(g.length - (K - 1) * D);
        return convTail(depthwiseConv(g, K - 1 + T, T, D, lw.conv, 0), T, D, lw.conv);
      },
    });
  }
  caches.attentionFilled = Math.min(L, caches.attentionFilled + T);
  return { out: x, frames: T };
}
