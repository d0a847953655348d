// Audio fixtures for engine tests: seeded noise, tones, silence, espeak-ng speech
// (resampled to 16 kHz float by sox, independently of the engine), WAV writing.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeWav } from '../../../app/shared/wav.js';

export const SAMPLE_RATE = 16000;

/** Deterministic uniform noise in [-amp, amp] (LCG, so fixtures never change between runs). */
export function noise(n: number, amp = 0.5, seed = 7): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = amp * 2 * (s / 2 ** 32 - 0.5);
  }
  return out;
}

export function tone(n: number, freqHz: number, amp = 0.4, rate = SAMPLE_RATE): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = amp * Math.sin((2 * Math.PI * freqHz * i) / rate);
  return out;
}

export function silence(n: number): Float32Array {
  return new Float32Array(n);
}

export function seconds(s: number, rate = SAMPLE_RATE): number {
  return Math.round(s * rate);
}

export function rms(x: Float32Array, from = 0, to = x.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += x[i] * x[i];
  return Math.sqrt(sum / Math.max(1, to - from));
}

export function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Repeats (or cuts) `x` to exactly n samples. */
export function fitLength(x: Float32Array, n: number): Float32Array {
  if (x.length === 0) throw new Error('fitLength: empty input');
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = x[i % x.length];
  return out;
}

export const PARAGRAPH =
  'The quick brown fox jumps over the lazy dog. Speech recognition on a laptop should be fast and private. ' +
  'Parakeet models turn sound into text, one frame at a time, and the engine must agree with the reference in every detail. ' +
  'We count tokens, compare margins, and measure the encoder output with great care. ' +
  'Silence, noise and tones are tested too, because a robust engine handles every input without complaint.';

export interface SpeechClip {
  /** 16 kHz mono float PCM. */
  pcm: Float32Array;
  /** The espeak-ng WAV as written (22.05 kHz 16-bit). */
  rawWav: string;
  /** The 16 kHz float WAV (sox). */
  wav16: string;
}

const speechCache = new Map<string, SpeechClip>();

/** espeak-ng speech of `text`, resampled to 16 kHz by sox; cached per process in `dir`. */
export function speech(dir: string, text: string = PARAGRAPH, name = `speech-${speechCache.size}`): SpeechClip {
  const key = `${dir}\u0000${text}`;
  const cached = speechCache.get(key);
  if (cached) return cached;
  const rawWav = join(dir, `${name}.raw.wav`);
  const wav16 = join(dir, `${name}.16k.wav`);
  try {
    execFileSync('espeak-ng', ['-w', rawWav, text], { stdio: ['ignore', 'ignore', 'pipe'] });
    execFileSync('sox', [rawWav, '-r', '16000', '-e', 'floating-point', '-b', '32', wav16], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(`speech fixture: espeak-ng/sox failed (${(error as Error).message}); both must be installed`);
  }
  if (!existsSync(wav16)) throw new Error(`speech fixture: sox wrote no ${wav16}`);
  const decoded = decodeWav(new Uint8Array(readFileSync(wav16)));
  if (decoded.sampleRate !== SAMPLE_RATE || decoded.channels !== 1) throw new Error('speech fixture: sox output is not 16 kHz mono');
  const clip = { pcm: decoded.samples, rawWav, wav16 };
  speechCache.set(key, clip);
  return clip;
}

/** `n` samples of speech (the paragraph, repeated if needed). */
export function speechSamples(dir: string, n: number): Float32Array {
  return fitLength(speech(dir).pcm, n);
}

/** 16-bit PCM WAV of interleaved float samples (the app's encoder). */
export { encodeWav16 } from '../../../app/shared/wav.js';
import { encodeWav16 } from '../../../app/shared/wav.js';

export function writeWav16(path: string, samples: Float32Array, rate = SAMPLE_RATE, channels = 1): string {
  writeFileSync(path, encodeWav16(samples, rate, channels));
  return path;
}
