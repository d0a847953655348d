// Log-mel preprocessor, spec §2 — NeMo FilterbankFeatures.forward (+ normalize_batch), inference mode.
import { fftPlan } from './fft.js';
import type { ParakeetHParams, PreprocessorParams } from './hparams.js';
import { tensor } from './linalg.js';
import type { WeightSource } from './weights.js';

export interface MelResult {
  /** [nMels][nFrames], time fastest: mel[m * nFrames + t]. */
  mel: Float64Array;
  nMels: number;
  /** T = 1 + floor(S / hop) (centred STFT frame count). */
  nFrames: number;
  /** seq_len = floor(S / hop) (NeMo 2.x get_seq_len); frames t ≥ validFrames are zero. */
  validFrames: number;
}

export interface MelWeights {
  /** preprocessor.featurizer.fb: [nMels][nBins], fb[m * nBins + b]. */
  fb: Float64Array;
  nBins: number;
  /** preprocessor.featurizer.window (winLength values, symmetric Hann in NeMo files). */
  window: Float64Array;
}

export function loadMelWeights(w: WeightSource, hp: ParakeetHParams): MelWeights {
  const nBins = Math.floor(hp.pre.nFft / 2) + 1;
  return {
    fb: tensor(w, 'preprocessor.featurizer.fb', [nBins, hp.pre.nMels, 1]),
    nBins,
    window: tensor(w, 'preprocessor.featurizer.window', [hp.pre.winLength]),
  };
}

/** Step 2: y[0] = x[0]; y[t] = x[t] − c·x[t−1] (NeMo preemph, applied before the STFT). */
export function preEmphasis(x: Float64Array, coeff: number): Float64Array {
  const y = new Float64Array(x.length);
  if (x.length === 0) return y;
  y[0] = x[0];
  for (let t = 1; t < x.length; t++) y[t] = x[t] - coeff * x[t - 1];
  return y;
}

/** torch.stft pads a shorter window with zeros centred in n_fft: left = floor((n_fft − win) / 2). */
export function centredWindow(window: Float64Array, nFft: number): Float64Array {
  if (window.length > nFft) throw new Error(`mel: window ${window.length} longer than n_fft ${nFft}`);
  const out = new Float64Array(nFft);
  out.set(window, Math.floor((nFft - window.length) / 2));
  return out;
}

/** Number of STFT frames (center=True) and NeMo valid length for S samples. */
export function melLengths(nSamples: number, nFft: number, hop: number): { nFrames: number; validFrames: number } {
  const pad = Math.floor(nFft / 2);
  const span = nSamples + 2 * pad - nFft;
  if (span < 0) return { nFrames: 0, validFrames: 0 };
  const valid = Math.floor(span / hop);
  return { nFrames: 1 + valid, validFrames: valid };
}

/**
 * Steps 8–9: per_feature normalization over frames t < valid (unbiased std, NaN → 0, std += 1e-5),
 * then zero every frame t ≥ valid. In place on mel [M][T].
 */
export function normalizePerFeature(mel: Float64Array, nMels: number, nFrames: number, valid: number): void {
  for (let m = 0; m < nMels; m++) {
    const o = m * nFrames;
    if (valid === 0) continue; // NeMo: 0/0 → NaN everywhere, then every frame is masked to 0 below.
    let sum = 0;
    for (let t = 0; t < valid; t++) sum += mel[o + t];
    const mean = sum / valid;
    let ss = 0;
    for (let t = 0; t < valid; t++) {
      const c = mel[o + t] - mean;
      ss += c * c;
    }
    let std = valid > 1 ? Math.sqrt(ss / (valid - 1)) : 0; // n = 1: torch gives NaN, masked to 0
    std += 1e-5;
    for (let t = 0; t < nFrames; t++) mel[o + t] = (mel[o + t] - mean) / std;
  }
}

/** Zero frames t ≥ valid (NeMo pad_value 0). */
export function maskFrames(mel: Float64Array, nMels: number, nFrames: number, valid: number): void {
  for (let m = 0; m < nMels; m++) mel.fill(0, m * nFrames + Math.max(0, valid), (m + 1) * nFrames);
}

/**
 * Steps 3–6 for one frame: the log-mel of the n_fft samples at `signal[start..start+n_fft)` of the
 * pre-emphasised, centre-padded signal (frame t starts at t·hop), written to out[m·stride + at].
 */
export type MelFrameFn = (signal: Float64Array, start: number, out: Float64Array, at: number, stride: number) => void;

export function melFrameComputer(pre: PreprocessorParams, mw: MelWeights): MelFrameFn {
  const { nFft, nMels, magPower, logZeroGuard } = pre;
  const nBins = Math.floor(nFft / 2) + 1;
  if (mw.nBins !== nBins) throw new Error('mel: filterbank bins do not match n_fft');
  const win = centredWindow(mw.window, nFft);
  const plan = fftPlan(nFft);
  const re = new Float64Array(nFft);
  const im = new Float64Array(nFft);
  const power = new Float64Array(nBins);
  // Non-zero extent of each filter (slaney filterbanks are ~98% zeros); exact: zeros contribute nothing.
  const lo = new Int32Array(nMels);
  const hi = new Int32Array(nMels);
  for (let m = 0; m < nMels; m++) {
    let a = nBins;
    let b = -1;
    for (let k = 0; k < nBins; k++) {
      if (mw.fb[m * nBins + k] !== 0) {
        if (a === nBins) a = k;
        b = k;
      }
    }
    lo[m] = a;
    hi[m] = b;
  }
  return (signal, start, out, at, stride) => {
    for (let i = 0; i < nFft; i++) {
      re[i] = signal[start + i] * win[i];
      im[i] = 0;
    }
    plan.transform(re, im);
    // 4. |X|^mag_power (no guard at inference).
    for (let k = 0; k < nBins; k++) {
      const p2 = re[k] * re[k] + im[k] * im[k];
      power[k] = magPower === 2 ? p2 : magPower === 1 ? Math.sqrt(p2) : Math.pow(Math.sqrt(p2), magPower);
    }
    // 5. mel = fb · power. 6. ln(mel + guard).
    for (let m = 0; m < nMels; m++) {
      let s = 0;
      const fo = m * nBins;
      for (let k = lo[m]; k <= hi[m]; k++) s += mw.fb[fo + k] * power[k];
      out[m * stride + at] = Math.log(s + logZeroGuard);
    }
  };
}

/** The full preprocessor of spec §2 on mono PCM at the model's sample rate. */
export function computeMel(pcm: Float32Array | Float64Array, pre: PreprocessorParams, mw: MelWeights): MelResult {
  const { nFft, hopLength: hop, nMels } = pre;
  const x = Float64Array.from(pcm);
  // 1. no dither at inference. 2. pre-emphasis.
  const y = pre.preemph !== 0 ? preEmphasis(x, pre.preemph) : x;
  // 3. centred STFT with constant (zero) padding of n_fft/2 on each side.
  const pad = Math.floor(nFft / 2);
  const padded = new Float64Array(y.length + 2 * pad);
  padded.set(y, pad);
  const { nFrames, validFrames } = melLengths(y.length, nFft, hop);
  const frame = melFrameComputer(pre, mw);
  const mel = new Float64Array(nMels * nFrames);
  for (let t = 0; t < nFrames; t++) frame(padded, t * hop, mel, t, nFrames);
  // 7–9.
  if (pre.normalize === 'per_feature') normalizePerFeature(mel, nMels, nFrames, validFrames);
  maskFrames(mel, nMels, nFrames, validFrames);
  return { mel, nMels, nFrames, validFrames };
}
