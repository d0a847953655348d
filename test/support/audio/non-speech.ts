// Non-speech test signals at 16 kHz for the silence guards (a trained VAD must find no speech in them and
// nothing may be transcribed): digital silence, white / pink / brown noise at a given RMS, mains hum with
// harmonics, keyboard-like clicks (short decaying noise bursts at irregular intervals) and music-like
// tones (held notes of a few partials). Seeded: the same samples every run.
import { RATE, concat, prng } from './signals.js';

export type NonSpeechKind = 'silence' | 'white' | 'pink' | 'brown' | 'hum' | 'clicks' | 'tones';

export const NON_SPEECH_KINDS: readonly NonSpeechKind[] = ['silence', 'white', 'pink', 'brown', 'hum', 'clicks', 'tones'];

function scaleToRms(x: Float32Array, rms: number): Float32Array {
  let sum = 0;
  for (const v of x) sum += v * v;
  const now = Math.sqrt(sum / Math.max(1, x.length));
  if (now > 0) for (let i = 0; i < x.length; i++) x[i] = (x[i]! * rms) / now;
  return x;
}

export function nonSpeech(kind: NonSpeechKind, seconds: number, rms: number, seed = 7): Float32Array {
  const n = Math.round(seconds * RATE);
  const out = new Float32Array(n);
  const rnd = prng(seed);
  const white = () => rnd() * 2 - 1;
  switch (kind) {
    case 'silence':
      return out;
    case 'white':
      for (let i = 0; i < n; i++) out[i] = white();
      break;
    case 'pink': {
      // Paul Kellet's economy filter: white noise through three one-pole sections, about −3 dB/octave.
      let b0 = 0, b1 = 0, b2 = 0;
      for (let i = 0; i < n; i++) {
        const w = white();
        b0 = 0.99765 * b0 + w * 0.099046;
        b1 = 0.963 * b1 + w * 0.2965164;
        b2 = 0.57 * b2 + w * 1.0526913;
        out[i] = b0 + b1 + b2 + w * 0.1848;
      }
      break;
    }
    case 'brown': {
      // Integrated white noise (−6 dB/octave), leaking slowly so it stays centred.
      let y = 0;
      for (let i = 0; i < n; i++) {
        y = 0.998 * y + 0.02 * white();
        out[i] = y;
      }
      break;
    }
    case 'hum':
      for (let i = 0; i < n; i++) {
        const t = i / RATE;
        out[i] = Math.sin(2 * Math.PI * 50 * t) + 0.5 * Math.sin(2 * Math.PI * 100 * t) + 0.3 * Math.sin(2 * Math.PI * 150 * t);
      }
      break;
    case 'clicks': {
      // A key press: ~5 ms of noise decaying in ~1 ms, every 80–300 ms.
      let at = 0;
      while (at < n) {
        const len = Math.round(0.005 * RATE);
        for (let j = 0; j < len && at + j < n; j++) out[at + j] = white() * Math.exp(-j / (0.001 * RATE));
        at += Math.round((0.08 + rnd() * 0.22) * RATE);
      }
      return scaleToRms(out, rms * 4);  // peaky: the level between clicks is silence
    }
    case 'tones': {
      // Held notes of 0.5 s, three partials each, from a pentatonic scale.
      const scale = [261.63, 293.66, 329.63, 392, 440, 523.25];
      const note = Math.round(0.5 * RATE);
      for (let i = 0; i < n; i++) {
        const f = scale[Math.floor(i / note) % scale.length]!;
        const t = i / RATE;
        const env = Math.min(1, ((i % note) / note) * 10) * Math.exp(-((i % note) / note) * 2);
        out[i] = env * (Math.sin(2 * Math.PI * f * t) + 0.4 * Math.sin(4 * Math.PI * f * t) + 0.2 * Math.sin(6 * Math.PI * f * t));
      }
      break;
    }
  }
  return scaleToRms(out, rms);
}

/** Every kind at every level (RMS), `secondsEach` each, one after another: the non-speech set. */
export function nonSpeechSet(secondsEach: number, levels: readonly number[]): Float32Array {
  const parts: Float32Array[] = [];
  let seed = 11;
  for (const kind of NON_SPEECH_KINDS) {
    for (const rms of kind === 'silence' ? [0] : levels) parts.push(nonSpeech(kind, secondsEach, rms, seed++));
  }
  return concat(...parts);
}
