// CPU time per transcription for several weight types of one model, in one process, interleaved:
// the question "should auto run this file's F32 matmuls as 14-bit blocks on this CPU class?"
// (native/engine/kernels/cpu/registry.cpp) asked of a whole model rather than one kernel. CPU time
// (process.cpuUsage) rather than the wall clock, so a machine shared with other work still gives
// comparable figures (caches and memory bandwidth stay shared: say so when reporting them).
// Cap the class with PARAKEET_CPU_CLASS in the environment.
//   node --import tsx test/bench/weight-type-cpu-time.ts --model m.gguf --audio a.wav --weight-types f32,i16 [--runs 5]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Model, type WeightType, listDevices } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';

const { values } = parseArgs({
  options: { model: { type: 'string' }, audio: { type: 'string' }, 'weight-types': { type: 'string' }, runs: { type: 'string' } },
});
if (values.model === undefined || values.audio === undefined) {
  throw new Error('usage: weight-type-cpu-time.ts --model <file.gguf> --audio <file.wav> --weight-types f32,i16 [--runs 5]');
}
const pcm = decodeWav(new Uint8Array(readFileSync(values.audio))).samples;
const weightTypes = (values['weight-types'] ?? 'f32,i16').split(',') as WeightType[];
const runs = Number(values.runs ?? 5);

const models = new Map<WeightType, Model>();
for (const weightType of weightTypes) models.set(weightType, await Model.load(values.model, { threads: 1, weightType }));
const cpuMs = new Map<WeightType, number[]>(weightTypes.map((w) => [w, []]));
for (const model of models.values()) await model.transcribe(pcm);  // warm-up
for (let run = 0; run < runs; ++run) {
  for (const [weightType, model] of models) {
    const before = process.cpuUsage();
    await model.transcribe(pcm);
    const used = process.cpuUsage(before);
    cpuMs.get(weightType)!.push((used.user + used.system) / 1000);
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const cpuClass = process.env.PARAKEET_CPU_CLASS ?? '(uncapped)';
console.log(`class ${cpuClass}; CPU features ${(listDevices().find((d) => d.type === 'cpu')?.cpuFeatures ?? []).join(' ')}`);
for (const [weightType, model] of models) {
  const all = cpuMs.get(weightType)!;
  console.log(`${weightType.padEnd(5)} CPU ms per transcription: median ${median(all).toFixed(0)} (min ${Math.min(...all).toFixed(0)}, max ${Math.max(...all).toFixed(0)}); kernels ${JSON.stringify(model.info().kernels)}`);
  model.dispose();
}
