// NeMo SortformerModules.streaming_update (synchronous, batch of one) in float64: the FIFO, the speaker
// cache, _get_silence_profile and _compress_spkcache (log scores, low-score disabling, boosts, top-k).
export interface SortformerCacheParams {
  fcDModel: number;
  spkcacheLen: number;
  fifoLen: number;
  spkcacheUpdatePeriod: number;
  spkcacheSilFramesPerSpk: number;
  silThreshold: number;
  predScoreThreshold: number;
  scoresBoostLatest: number;
  strongBoostRate: number;
  weakBoostRate: number;
  minPosScoresRate: number;
  useLearnableSilEmb: boolean;
  nSpeakers: number;
}

export interface SortformerCache {
  dim: number;
  nSpeakers: number;
  spkcache: Float64Array;
  spkcachePreds: Float64Array;
  spkcacheFrames: number;
  compressed: boolean;
  fifo: Float64Array;
  fifoFrames: number;
  meanSilEmb: Float64Array;
  nSilFrames: number;
}

export function initialSortformerCache(dim: number, nSpeakers: number): SortformerCache {
  return {
    dim, nSpeakers, spkcache: new Float64Array(0), spkcachePreds: new Float64Array(0), spkcacheFrames: 0, compressed: false,
    fifo: new Float64Array(0), fifoFrames: 0, meanSilEmb: new Float64Array(dim), nSilFrames: 0,
  };
}

function concat(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Indices of the n largest values (ties: lower index first), as torch.topk's set. */
function topIndices(values: Float64Array, n: number): number[] {
  const order = Array.from(values.keys());
  order.sort((a, b) => (values[b] - values[a]) || (a - b));
  return order.slice(0, Math.min(n, order.length));
}

function updateSilenceProfile(p: SortformerCacheParams, c: SortformerCache, embs: Float64Array, preds: Float64Array, frames: number): void {
  const S = c.nSpeakers;
  const sum = new Float64Array(c.dim);
  let count = 0;
  for (let t = 0; t < frames; t++) {
    let total = 0;
    for (let s = 0; s < S; s++) total += preds[t * S + s];
    if (!(total < p.silThreshold)) continue;
    count++;
    for (let i = 0; i < c.dim; i++) sum[i] += embs[t * c.dim + i];
  }
  if (count === 0) return;
  const updated = c.nSilFrames + count;
  for (let i = 0; i < c.dim; i++) c.meanSilEmb[i] = (c.meanSilEmb[i] * c.nSilFrames + sum[i]) / updated;
  c.nSilFrames = updated;
}

function boostTop(scores: Float64Array, frames: number, S: number, n: number, scale: number): void {
  if (n <= 0) return;
  const column = new Float64Array(frames);
  for (let s = 0; s < S; s++) {
    for (let t = 0; t < frames; t++) column[t] = scores[t * S + s];
    for (const t of topIndices(column, n)) scores[t * S + s] -= scale * Math.log(0.5);
  }
}

function compress(p: SortformerCacheParams, silEmb: Float64Array, c: SortformerCache): void {
  const S = c.nSpeakers;
  const n = c.spkcacheFrames;
  const D = c.dim;
  const perSpk = Math.floor(p.spkcacheLen / S) - p.spkcacheSilFramesPerSpk;
  const preds = c.spkcachePreds;
  const scores = new Float64Array(n * S);
  for (let t = 0; t < n; t++) {
    let log1Sum = 0;
    for (let s = 0; s < S; s++) log1Sum += Math.log(Math.max(1 - preds[t * S + s], p.predScoreThreshold));
    for (let s = 0; s < S; s++) {
      const q = preds[t * S + s];
      scores[t * S + s] = Math.log(Math.max(q, p.predScoreThreshold)) - Math.log(Math.max(1 - q, p.predScoreThreshold)) + log1Sum - Math.log(0.5);
    }
  }
  const minPos = Math.floor(perSpk * p.minPosScoresRate);
  for (let s = 0; s < S; s++) {
    let positive = 0;
    for (let t = 0; t < n; t++) {
      if (!(preds[t * S + s] > 0.5)) scores[t * S + s] = -Infinity;
      if (scores[t * S + s] > 0) positive++;
    }
    if (positive < minPos) continue;
    for (let t = 0; t < n; t++) if (!(scores[t * S + s] > 0) && preds[t * S + s] > 0.5) scores[t * S + s] = -Infinity;
  }
  if (p.scoresBoostLatest > 0) for (let i = p.spkcacheLen * S; i < n * S; i++) scores[i] += p.scoresBoostLatest;
  boostTop(scores, n, S, Math.floor(perSpk * p.strongBoostRate), 2);
  boostTop(scores, n, S, Math.floor(perSpk * p.weakBoostRate), 1);
  const padded = n + p.spkcacheSilFramesPerSpk;
  const flat = new Float64Array(padded * S);
  for (let s = 0; s < S; s++) for (let t = 0; t < padded; t++) flat[s * padded + t] = t < n ? scores[t * S + s] : Infinity;
  const picked = topIndices(flat, p.spkcacheLen).map((i) => (flat[i] === -Infinity ? Number.MAX_SAFE_INTEGER : i)).sort((a, b) => a - b);
  const embs = new Float64Array(p.spkcacheLen * D);
  const kept = new Float64Array(p.spkcacheLen * S);
  picked.forEach((i, k) => {
    const frame = i === Number.MAX_SAFE_INTEGER ? -1 : i % padded;
    if (frame < 0 || frame >= n) {
      embs.set(silEmb, k * D);
      return;
    }
    embs.set(c.spkcache.subarray(frame * D, (frame + 1) * D), k * D);
    kept.set(preds.subarray(frame * S, (frame + 1) * S), k * S);
  });
  c.spkcache = embs;
  c.spkcachePreds = kept;
  c.spkcacheFrames = p.spkcacheLen;
}

/** Returns the chunk's activities [chunk][S]; see sortformer_cache.h for the same steps in the engine. */
export function sortformerStreamingUpdate(
  p: SortformerCacheParams,
  learnableSilEmb: Float64Array | null,
  c: SortformerCache,
  chunk: Float64Array,
  chunkRows: number,
  lc: number,
  rc: number,
  preds: Float64Array,
): Float64Array {
  const S = c.nSpeakers;
  const D = c.dim;
  const spkcacheLen = c.spkcacheFrames;
  const fifoLen = c.fifoFrames;
  const chunkLen = Math.max(0, chunkRows - lc - rc);
  const rows = (first: number, count: number): Float64Array => preds.slice(first * S, (first + count) * S);
  let fifoPreds = rows(spkcacheLen, fifoLen);
  const chunkPreds = rows(spkcacheLen + fifoLen + lc, chunkLen);
  c.fifo = concat(c.fifo.subarray(0, fifoLen * D), chunk.subarray(lc * D, (lc + chunkLen) * D));
  fifoPreds = concat(fifoPreds, chunkPreds);
  c.fifoFrames = fifoLen + chunkLen;
  if (fifoLen + chunkLen > p.fifoLen) {
    let pop = p.spkcacheUpdatePeriod;
    pop = Math.max(pop, chunkLen - p.fifoLen + fifoLen);
    pop = Math.min(pop, fifoLen + chunkLen);
    const popEmbs = c.fifo.slice(0, pop * D);
    const popPreds = fifoPreds.slice(0, pop * S);
    if (!p.useLearnableSilEmb) updateSilenceProfile(p, c, popEmbs, popPreds, pop);
    c.fifo = c.fifo.slice(pop * D);
    c.fifoFrames -= pop;
    c.spkcache = concat(c.spkcache.subarray(0, spkcacheLen * D), popEmbs);
    const cachePreds = c.compressed ? c.spkcachePreds.subarray(0, spkcacheLen * S) : rows(0, spkcacheLen);
    c.spkcachePreds = concat(cachePreds, popPreds);
    c.spkcacheFrames = spkcacheLen + pop;
    if (c.spkcacheFrames > p.spkcacheLen) {
      compress(p, p.useLearnableSilEmb && learnableSilEmb !== null ? learnableSilEmb : c.meanSilEmb, c);
      c.compressed = true;
    }
  }
  return chunkPreds;
}
