// One benchmark configuration in its own process (so peak RSS is its own).
// Prints one JSON line. Driven by test/bench/bench.ts.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Model, type WeightType } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';
import { encoderFlops } from './flops.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' }, audio: { type: 'string' }, threads: { type: 'string' }, 'weight-type': { type: 'string' },
    runs: { type: 'string' }, 'max-window-sec': { type: 'string' },
  },
});
const audio = decodeWav(new Uint8Array(readFileSync(values.audio!)));
const pcm = audio.samples;
const seconds = pcm.length / audio.sampleRate;
const threads = Number(values.threads ?? 2);
const weightType = (values['weight-type'] ?? 'auto') as WeightType;
const runs = Number(values.runs ?? 3);
const maxWindowSec = values['max-window-sec'] ? Number(values['max-window-sec']) : undefined;

// Cold-ish first load (page cache permitting), then the warm load users see on every start.
const t0 = performance.now();
let model = await Model.load(values.model!, { threads, weightType });
const firstLoadMs = performance.now() - t0;
model.dispose();
const t1 = performance.now();
model = await Model.load(values.model!, { threads, weightType });
const warmLoadMs = performance.now() - t1;
const info = model.info();

await model.transcribe(pcm, { maxWindowSec });  // warm-up: compute buffers, first touch
const samples: { total: number; mel: number; encoder: number; decoder: number; tokens: number }[] = [];
let text = '';
for (let r = 0; r < runs; r++) {
  const res = await model.transcribe(pcm, { maxWindowSec });
  samples.push({ total: res.timings.totalMs, mel: res.timings.melMs, encoder: res.timings.encoderMs, decoder: res.timings.decoderMs, tokens: res.tokens.length });
  text = res.text;
}
const median = (key: keyof (typeof samples)[number]) => {
  const v = samples.map((s) => s[key]).sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
};
const windowSamples = Math.min(pcm.length, Math.round((maxWindowSec ?? 60) * 16000));
const windows = Math.ceil(pcm.length / windowSamples);
const flop = encoderFlops(info, windowSamples).gflop * windows;
const encoderMs = median('encoder');
console.log(JSON.stringify({
  model: info.name, file: values.model, fileBytes: info.fileBytes, weightType, placedTypes: info.weightTypes, threads, seconds,
  firstLoadMs, warmLoadMs, totalMs: median('total'), melMs: median('mel'), encoderMs, encoderMinMs: Math.min(...samples.map((s) => s.encoder)),
  decoderMs: median('decoder'),
  rtfx: seconds / (median('total') / 1000), encoderGflop: flop, encoderGflops: flop / (encoderMs / 1000),
  tokens: median('tokens'), maxRssBytes: process.resourceUsage().maxRSS * 1024, text: text.slice(0, 80),
}));
model.dispose();
