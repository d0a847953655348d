// Real preprocessor buffers, as NeMo stores them in the checkpoint:
// librosa.filters.mel(sr, n_fft, n_mels, fmin=0, fmax=sr/2, htk=False, norm='slaney')
// and torch.hann_window(400, periodic=False). Computed in float64.

// Slaney mel scale (librosa hz_to_mel / mel_to_hz with htk=False).
const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOGSTEP = Math.log(6.4) / 27;

export function hzToMel(f: number): number {
  return f >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(f / MIN_LOG_HZ) / LOGSTEP : f / F_SP;
}

export function melToHz(m: number): number {
  return m >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOGSTEP * (m - MIN_LOG_MEL)) : F_SP * m;
}

export interface MelOptions {
  readonly sampleRate: number;
  readonly nFft: number;
  readonly nMels: number;
  readonly fmin?: number;
  readonly fmax?: number;
}

/**
 * Row-major [nMels][nFft/2+1] filterbank (= ggml ne [257, M, 1]).
 * librosa fills a float32 array with the triangle weights and then multiplies by
 * the slaney area norm in float64 before storing back to float32; the returned
 * float64 values reproduce those two roundings so that the F32 tensor matches a
 * real NeMo checkpoint bit for bit (up to libm differences).
 */
export function slaneyMelFilterbank(o: MelOptions): Float64Array {
  const nBins = Math.floor(o.nFft / 2) + 1;
  const fmin = o.fmin ?? 0;
  const fmax = o.fmax ?? o.sampleRate / 2;
  // np.fft.rfftfreq(n_fft, d=1/sr) computes i · (1 / (n·d)); keep its rounding.
  const binHz = 1 / (o.nFft * (1 / o.sampleRate));
  const fftFreqs = Array.from({ length: nBins }, (_, i) => i * binHz);
  // np.linspace(min_mel, max_mel, n_mels + 2), last point exact.
  const minMel = hzToMel(fmin);
  const maxMel = hzToMel(fmax);
  const nPts = o.nMels + 2;
  const step = (maxMel - minMel) / (nPts - 1);
  const melF = Array.from({ length: nPts }, (_, i) => melToHz(i === nPts - 1 ? maxMel : minMel + i * step));
  const out = new Float64Array(o.nMels * nBins);
  for (let m = 0; m < o.nMels; m++) {
    const fdiffLo = melF[m + 1] - melF[m];
    const fdiffHi = melF[m + 2] - melF[m + 1];
    const enorm = 2 / (melF[m + 2] - melF[m]);
    for (let b = 0; b < nBins; b++) {
      const lower = -(melF[m] - fftFreqs[b]) / fdiffLo;
      const upper = (melF[m + 2] - fftFreqs[b]) / fdiffHi;
      // np.maximum(0, np.minimum(lower, upper)), including numpy's choice of −0
      // for fb[0][0] (lower = −0 there), which Math.max would turn into +0.
      const mn = lower < upper ? lower : upper;
      const w = Math.fround(0 > mn ? 0 : mn);
      out[m * nBins + b] = Math.fround(w * enorm);
    }
  }
  return out;
}

/** Symmetric Hann window: w[n] = 0.5 − 0.5·cos(2πn/(N−1)). */
export function symmetricHann(n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
  return out;
}
