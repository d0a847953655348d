// CPU time (process.cpuUsage: user + system, not wall time) of one-call transcriptions at 1 thread on a
// bench-shaped random model under one weightType (default q8_0: bench:peers' "all-i8" column), and the
// kernels the load chose. CPU time stays comparable on a shared machine where wall time does not: run it
// with two builds' addons (PARAKEET_ADDON=…/parakeet.node), interleaved, to compare the builds; it is not
// a speed figure.
//   node --import tsx test/bench/build-cpu-time.ts [--shape 110m] [--type q8_0] [--weight-type q8_0]
//        [--seconds 10] [--runs 5]
import { parseArgs } from 'node:util';
import { buildInfo, Model } from '../../native/index.js';
import { meetingLike } from '../support/audio/signals.js';
import { benchModelFile } from './models.js';

const { values } = parseArgs({
  options: {
    shape: { type: 'string', default: '110m' }, type: { type: 'string', default: 'q8_0' }, 'weight-type': { type: 'string', default: 'q8_0' },
    seconds: { type: 'string', default: '10' }, runs: { type: 'string', default: '5' },
  },
});
const runs = Number(values.runs);
const path = benchModelFile(values.shape, values.type);
const model = await Model.load(path, { threads: 1, weightType: values['weight-type'] as 'q8_0' });
const pcm = meetingLike(Number(values.seconds), 7);
await model.transcribe(pcm);  // warm: first-call allocations and page faults out of the figures

const cpuMs: number[] = [];
const encoderMs: number[] = [];
for (let i = 0; i < runs; i += 1) {
  const before = process.cpuUsage();
  const r = await model.transcribe(pcm);
  const used = process.cpuUsage(before);
  cpuMs.push((used.user + used.system) / 1e3);
  encoderMs.push(r.timings.encoderMs);
}
const sorted = [...cpuMs].sort((a, b) => a - b);
console.log(JSON.stringify({
  addon: process.env.PARAKEET_ADDON ?? 'native/build', ggml: buildInfo().ggmlCommit.slice(0, 12), file: path, weightType: values['weight-type'],
  kernels: model.info().kernels, cpuMs: cpuMs.map((ms) => Math.round(ms)), minCpuMs: Math.round(sorted[0]!), medianCpuMs: Math.round(sorted[Math.floor(runs / 2)]!),
  // Wall time (shared cores: context only): how much of the call the encoder is.
  encoderWallMs: encoderMs.map((ms) => Math.round(ms)),
}));
model.dispose();
