// Random Silero VAD models in the GGUF of spec §8: a real Hann-windowed DFT basis (as silero's STFT builds
// it: real rows cos, imaginary rows −sin) and uniform random conv / LSTM weights scaled by 1/√fan_in, so
// probabilities spread over (0, 1) instead of saturating. Written with the app's converter back half.
import { writeFileSync } from 'node:fs';
import { encodeSileroGguf, type SileroWeightType } from '../../../app/main/vad/silero-gguf.js';
import {
  sileroFraming, sileroTensorShapes, type SileroRateWeights, type SileroSampleRate, type SileroTensor,
} from '../../../app/main/vad/silero-onnx.js';
import { Rng } from '../model/rng.js';

function windowedDftBasis(nFft: number): Float32Array {
  const bins = nFft / 2 + 1;
  const out = new Float32Array(2 * bins * nFft);
  for (let b = 0; b < bins; b++) {
    for (let n = 0; n < nFft; n++) {
      const hann = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / nFft);  // periodic Hann (torch.hann_window)
      const angle = (2 * Math.PI * b * n) / nFft;
      out[b * nFft + n] = hann * Math.cos(angle);
      out[(b + bins) * nFft + n] = -hann * Math.sin(angle);
    }
  }
  return out;
}

function randomRate(sampleRate: SileroSampleRate, seed: number): SileroRateWeights {
  const framing = sileroFraming(sampleRate);
  const tensors = new Map<string, SileroTensor>();
  for (const [name, shape] of sileroTensorShapes(framing.nFft)) {
    const count = shape.reduce((a, b) => a * b, 1);
    let values: Float32Array;
    if (name === 'stft.forward_basis_buffer') {
      values = windowedDftBasis(framing.nFft);
    } else {
      const fanIn = shape.length > 1 ? shape.slice(1).reduce((a, b) => a * b, 1) : 16;
      const scale = (name.endsWith('bias') ? 0.5 : 4) / Math.sqrt(fanIn);
      values = new Float32Array(count);
      new Rng(seed, `${sampleRate}.${name}`).fillUniform(values, -scale, scale);
    }
    tensors.set(name, { shape, values });
  }
  return { ...framing, tensors };
}

/** Both rates' random weights (16 kHz first), the same for the same seed. */
export function randomSileroWeights(seed: number): SileroRateWeights[] {
  return [randomRate(16000, seed), randomRate(8000, seed)];
}

export function writeRandomSilero(path: string, seed: number, weightType: SileroWeightType = 'f32'): SileroRateWeights[] {
  const rates = randomSileroWeights(seed);
  writeFileSync(path, encodeSileroGguf(rates, { version: `generated-seed-${seed}`, sha256: '' }, weightType));
  return rates;
}
