// The long-audio strategy's effect: the same clip decoded as one encoder pass
// vs cut at pauses into windows (default 60 s). Prints the word error rate of
// the windowed transcript against the one-pass transcript, and the encoder
// output's relative difference by distance from the nearest cut. (Windows share
// the clip's mel statistics, so the difference is attention context alone.
// Random-weight models attend everywhere, so they show the largest effect a
// model could; a trained model's effect is smaller and needs real weights to
// measure.)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Model } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';

const { values } = parseArgs({ options: { model: { type: 'string' }, audio: { type: 'string' }, window: { type: 'string' } } });
const audio = decodeWav(new Uint8Array(readFileSync(values.audio!)));
const model = await Model.load(values.model!, { threads: 2 });
const seconds = audio.samples.length / audio.sampleRate;
const whole = await model.transcribe(audio.samples, { maxWindowSec: Math.ceil(seconds) + 1, captureEncoder: true });
const windowSec = Number(values.window ?? 60);
const cut = await model.transcribe(audio.samples, { maxWindowSec: windowSec, captureEncoder: true });

// Encoder frames on the shared 80 ms grid, grouped by distance from the nearest cut.
const FRAME = model.info().frameSec;
const D = whole.encoder!.dim;
const cutFrames = cut.windows.slice(1).map((w) => Math.round(w.start / FRAME));
const bands = [[0, 1], [1, 5], [5, 15], [15, Infinity]] as const;
const sums = bands.map(() => ({ num: 0, den: 0, frames: 0 }));
const frames = Math.min(whole.encoder!.validFrames, cut.encoder!.frames);
for (let f = 0; f < frames; f++) {
  const distSec = Math.min(Infinity, ...cutFrames.map((c) => Math.abs(f - c) * FRAME));
  const band = bands.findIndex(([lo, hi]) => distSec >= lo && distSec < hi);
  for (let d = 0; d < D; d++) {
    const x = whole.encoder!.data[f * D + d];
    const y = cut.encoder!.data[f * D + d];
    sums[band].num += (x - y) ** 2;
    sums[band].den += x * x;
  }
  sums[band].frames += 1;
}
const encoderRelL2ByDistance = Object.fromEntries(
  bands.map(([lo, hi], i) => [`${lo}-${hi === Infinity ? 'end' : hi}s`, { frames: sums[i].frames, relL2: sums[i].den ? Math.sqrt(sums[i].num / sums[i].den) : null }]),
);

function wordErrorRate(reference: string[], hypothesis: string[]): number {
  const prev = new Array<number>(hypothesis.length + 1).fill(0).map((_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= hypothesis.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return reference.length ? prev[hypothesis.length] / reference.length : 0;
}

const a = whole.text.split(/\s+/).filter(Boolean);
const b = cut.text.split(/\s+/).filter(Boolean);
console.log(JSON.stringify({
  seconds, windowSec, windows: cut.windows, wholeWords: a.length, windowedWords: b.length, wer: wordErrorRate(a, b), encoderRelL2ByDistance,
  wholeMs: whole.timings.totalMs, windowedMs: cut.timings.totalMs,
}));
model.dispose();
