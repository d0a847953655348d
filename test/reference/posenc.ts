// Relative positional encoding, spec §3.3 — NeMo RelPositionalEncoding.extend_pe / create_pe
// (centre slice of the precomputed table; not scaled by xscale, not added to x).

/**
 * Table [2T−1][D]: row p has relative position pos = (T−1) − p (rows run +(T−1) … −(T−1));
 * div[i] = exp(−(2i)·ln(10000)/D); pe[p, 2i] = sin(pos·div[i]), pe[p, 2i+1] = cos(pos·div[i]).
 */
export function relPositionalEncoding(T: number, D: number): Float64Array {
  if (D % 2 !== 0) throw new Error('posenc: d_model must be even');
  const rows = Math.max(0, 2 * T - 1);
  const pe = new Float64Array(rows * D);
  const half = D / 2;
  const div = new Float64Array(half);
  for (let i = 0; i < half; i++) div[i] = Math.exp(-(2 * i) * (Math.log(10000) / D));
  for (let p = 0; p < rows; p++) {
    const pos = T - 1 - p;
    for (let i = 0; i < half; i++) {
      pe[p * D + 2 * i] = Math.sin(pos * div[i]);
      pe[p * D + 2 * i + 1] = Math.cos(pos * div[i]);
    }
  }
  return pe;
}
