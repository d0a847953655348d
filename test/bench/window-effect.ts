// The long-audio strategy's effect on the transcript: the same clip decoded as
// one encoder pass vs cut at pauses into windows (default 60 s). Prints the word
// error rate of the windowed transcript against the whole-clip one.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Model } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';

const { values } = parseArgs({ options: { model: { type: 'string' }, audio: { type: 'string' }, window: { type: 'string' } } });
const audio = decodeWav(new Uint8Array(readFileSync(values.audio!)));
const model = await Model.load(values.model!, { threads: 2 });
const seconds = audio.samples.length / audio.sampleRate;
const whole = await model.transcribe(audio.samples, { maxWindowSec: Math.ceil(seconds) + 1 });
const windowSec = Number(values.window ?? 60);
const cut = await model.transcribe(audio.samples, { maxWindowSec: windowSec });

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
  seconds, windowSec, windows: cut.windows, wholeWords: a.length, windowedWords: b.length, wer: wordErrorRate(a, b),
  wholeMs: whole.timings.totalMs, windowedMs: cut.timings.totalMs,
}));
model.dispose();
