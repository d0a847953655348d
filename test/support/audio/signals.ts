// Synthetic test audio at 16 kHz: speech-like bursts (noise and harmonics
// under a syllable-rate envelope) and quiet room noise, from a seeded PRNG so
// every run decodes the same samples.
import { xorshift32 } from '../../../app/engine-process/self-test.js';

export const RATE = 16_000;

/** The app's seeded xorshift32 generator, so tests and the self-test signal share one implementation. */
export const prng = xorshift32;

/**
 * Phrases and pauses like a meeting, `seconds` long: phrases of 2–5 s (seeds `seed` + k), pauses of
 * 0.5–1.4 s (seeds `seed` + 200 + k), so the window planner has quiet places to cut.
 */
export function meetingLike(seconds: number, seed = 500): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let at = 0, k = 0; at < out.length; k += 1) {
    const p = k % 2 === 0 ? speechLike(2 + (k % 7) * 0.5, seed + k) : quiet(0.5 + (k % 4) * 0.3, seed + 200 + k);
    out.set(p.subarray(0, Math.min(p.length, out.length - at)), at);
    at += p.length;
  }
  return out;
}

/**
 * One minute of a meeting track: phrases of 1.5–4 s and pauses of 0.8–2 s, different per track and minute
 * (generated per minute, so a long meeting's feeder never holds an hour of audio).
 */
export function meetingMinute(track: number, minute: number): Float32Array {
  const out = new Float32Array(60 * RATE);
  let at = 0;
  for (let k = 0; at < out.length; k += 1) {
    const seed = track * 1_000_003 + minute * 101 + k;
    const piece = k % 2 === 0 ? quiet(0.8 + (seed % 13) / 10, seed) : speechLike(1.5 + (seed % 26) / 10, seed);
    out.set(piece.subarray(0, Math.min(piece.length, out.length - at)), at);
    at += piece.length;
  }
  return out;
}

/** A "phrase": noise plus a few harmonics, loudness varying at ~4 Hz like syllables (never silent inside). */
export function speechLike(seconds: number, seed: number, amplitude = 0.3): Float32Array {
  const rnd = prng(seed);
  const n = Math.round(seconds * RATE);
  const out = new Float32Array(n);
  const f0 = 110 + rnd() * 120;
  const syllableHz = 3 + rnd() * 2;
  for (let i = 0; i < n; i += 1) {
    const t = i / RATE;
    const env = 0.55 + 0.45 * Math.sin(2 * Math.PI * syllableHz * t);
    const voiced = 0.5 * Math.sin(2 * Math.PI * f0 * t) + 0.3 * Math.sin(2 * Math.PI * 2 * f0 * t) + 0.2 * Math.sin(2 * Math.PI * 3 * f0 * t);
    out[i] = amplitude * env * (0.6 * voiced + 0.8 * (rnd() - 0.5));
  }
  return out;
}

/** Room noise far below speech (about -66 dBFS RMS). */
export function quiet(seconds: number, seed: number, amplitude = 0.0017): Float32Array {
  const rnd = prng(seed);
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i += 1) out[i] = amplitude * (rnd() - 0.5) * 2;
  return out;
}

export function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Splits audio into frames of `frameSamples` (the last one may be shorter). */
export function frames(audio: Float32Array, frameSamples: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < audio.length; i += frameSamples) out.push(audio.slice(i, i + frameSamples));
  return out;
}
