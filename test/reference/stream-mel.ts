// Log-mel frames from PCM fed in blocks of any size (normalize NA only): frame t is final once the
// samples under its window exist; at the end the clip is zero-padded (centre=True) and the last frame
// is zeroed, so the frames equal computeMel over the whole clip, including its final zeroed frame
// (NeMo's CacheAwareStreamingAudioBuffer is fed that whole-clip mel).
import type { PreprocessorParams } from './hparams.js';
import { type MelFrameFn, type MelWeights, melFrameComputer, melLengths } from './mel.js';

export class MelStream {
  private readonly frameOf: MelFrameFn;
  private readonly pad: number;
  /** Pre-emphasised samples, left-padded with n_fft/2 zeros; `signalBase` = index of signal[0] in the padded clip. */
  private signal: Float64Array;
  private signalLength: number;
  private signalBase = 0;
  private lastSample = 0;
  private samples = 0;
  /** Mel frames, time-major [t][M]. */
  private mel: Float64Array;
  private frameCount = 0;
  private ended = false;

  constructor(private readonly pre: PreprocessorParams, mw: MelWeights) {
    if (pre.normalize !== 'NA') throw new Error(`reference streaming: mel normalize ${pre.normalize} is not frame-local`);
    this.frameOf = melFrameComputer(pre, mw);
    this.pad = Math.floor(pre.nFft / 2);
    this.signal = new Float64Array(Math.max(4096, 2 * this.pad));
    this.signalLength = this.pad; // the centre padding before sample 0
    this.mel = new Float64Array(64 * pre.nMels);
  }

  get nMels(): number {
    return this.pre.nMels;
  }

  /** Mel frames final so far. */
  get frames(): number {
    return this.frameCount;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Frame t as a view [M]. */
  frame(t: number): Float64Array {
    if (t < 0 || t >= this.frameCount) throw new RangeError(`mel frame ${t} of ${this.frameCount}`);
    const M = this.pre.nMels;
    return this.mel.subarray(t * M, (t + 1) * M);
  }

  /** Append PCM; returns the number of final frames. */
  push(pcm: Float32Array | Float64Array): number {
    if (this.ended) throw new Error('reference streaming: push after end');
    const c = this.pre.preemph;
    this.reserveSignal(pcm.length);
    for (let i = 0; i < pcm.length; i++) {
      const x = pcm[i];
      // NeMo preemph: y[0] = x[0], y[n] = x[n] − c·x[n−1].
      this.signal[this.signalLength++] = c !== 0 && this.samples > 0 ? x - c * this.lastSample : x;
      this.lastSample = x;
      this.samples++;
    }
    // Frame t reads padded samples [t·hop, t·hop + n_fft), i.e. clip samples up to t·hop + n_fft/2 − 1.
    const hop = this.pre.hopLength;
    const ready = this.samples >= this.pad ? Math.floor((this.samples - this.pad) / hop) + 1 : 0;
    this.computeFrames(ready);
    return this.frameCount;
  }

  /**
   * End of audio: right padding, every remaining frame, the last one zeroed (its valid length is
   * T − 1). A stream without samples has no frames (the whole-clip STFT of nothing is undefined).
   */
  end(): number {
    if (this.ended) return this.frameCount;
    this.ended = true;
    if (this.samples === 0) return 0;
    const { nFrames, validFrames } = melLengths(this.samples, this.pre.nFft, this.pre.hopLength);
    this.reserveSignal(this.pad);
    this.signal.fill(0, this.signalLength, this.signalLength + this.pad);
    this.signalLength += this.pad;
    this.computeFrames(Math.min(validFrames, nFrames));
    this.reserveMel(nFrames);
    const M = this.pre.nMels;
    this.mel.fill(0, this.frameCount * M, nFrames * M);
    this.frameCount = Math.max(this.frameCount, nFrames);
    return this.frameCount;
  }

  private computeFrames(upTo: number): void {
    const hop = this.pre.hopLength;
    this.reserveMel(upTo);
    for (let t = this.frameCount; t < upTo; t++) this.frameOf(this.signal, t * hop - this.signalBase, this.mel, t * this.pre.nMels, 1);
    this.frameCount = Math.max(this.frameCount, upTo);
    // Samples before the next frame's window are no longer needed.
    const keepFrom = this.frameCount * hop;
    const drop = keepFrom - this.signalBase;
    if (drop > 65536) {
      this.signal.copyWithin(0, drop, this.signalLength);
      this.signalLength -= drop;
      this.signalBase = keepFrom;
    }
  }

  private reserveSignal(extra: number): void {
    if (this.signalLength + extra <= this.signal.length) return;
    const grown = new Float64Array(Math.max(2 * this.signal.length, this.signalLength + extra));
    grown.set(this.signal.subarray(0, this.signalLength));
    this.signal = grown;
  }

  private reserveMel(frames: number): void {
    const need = frames * this.pre.nMels;
    if (need <= this.mel.length) return;
    const grown = new Float64Array(Math.max(2 * this.mel.length, need));
    grown.set(this.mel.subarray(0, this.frameCount * this.pre.nMels));
    this.mel = grown;
  }
}
