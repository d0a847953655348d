// One peer-benchmark configuration (shape, audio length, threads) in its own process: our engine
// on the F32 and Q8_0 files and ONNX Runtime on the fp32 and int8 exports of the same weights,
// checked for agreement first, then timed interleaved (ours F32, ORT fp32, ours Q8_0, ORT int8,
// ours all-int8, repeated). "All-int8" is the Q8_0 file with weightType q8_0: every matmul weight
// in Q8_0, as ORT's int8 graph quantizes every MatMul (the file keeps its pointwise convolutions F32);
// "channel-int8" is the Q8_0 file with weightType int8 (per-channel int8 weights, per-frame int8
// activations: ORT's precision class, int8_channel_vnni.h); "F32 exact" is the F32 file with
// weightType f32 (the exact F32 kernel, where auto runs an F32 file as 14-bit blocks on
// AVX512-VNNI, AVX-VNNI and AVX2 CPUs, i16_vnni.h: no further from F32 than an F16 copy). Every error is against
// the exact F32 output, which ONNX Runtime fp32 must match.
// Prints one JSON line. Driven by test/bench/peers.ts.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { Model } from '../../../native/index.js';
import { decodeWav } from '../../../app/shared/wav.js';

const { values } = parseArgs({
  options: {
    f32: { type: 'string' }, q8: { type: 'string' }, 'onnx-fp32': { type: 'string' }, 'onnx-int8': { type: 'string' },
    audio: { type: 'string' }, threads: { type: 'string' }, runs: { type: 'string' }, 'weight-type': { type: 'string' },
  },
});
const threads = Number(values.threads ?? 1);
const runs = Number(values.runs ?? 5);
const weightType = (values['weight-type'] ?? 'auto') as 'auto';
const audio = decodeWav(new Uint8Array(readFileSync(values.audio!)));
const pcm = audio.samples;

// Both runtimes spin their worker threads for a while after a call; a pause between timed calls
// keeps one runtime's idle spinning out of the other's measurement.
const SETTLE_MS = 150;

function relL2(a: Float32Array, b: Float32Array, n: number): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i] - b[i]) ** 2;
    den += b[i] ** 2;
  }
  return Math.sqrt(num / den);
}

async function ortSession(path: string): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(path, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
}

const oursF32 = await Model.load(values.f32!, { threads, weightType });
const oursQ8 = await Model.load(values.q8!, { threads, weightType });
const oursAllInt8 = await Model.load(values.q8!, { threads, weightType: 'q8_0' });
const oursChannelInt8 = await Model.load(values.q8!, { threads, weightType: 'int8' });
const oursF32Exact = await Model.load(values.f32!, { threads, weightType: 'f32' });
const ortFp32 = await ortSession(values['onnx-fp32']!);
const ortInt8 = await ortSession(values['onnx-int8']!);

// The engine's own log-mel of the clip feeds ONNX Runtime, every frame valid: the engine masks
// its padding frames exactly as NeMo does, so its valid output rows equal an unpadded run.
const check = await oursF32Exact.transcribe(pcm, { captureMel: true, captureEncoder: true });
const checkF32 = await oursF32.transcribe(pcm, { captureEncoder: true });
const checkQ8 = await oursQ8.transcribe(pcm, { captureEncoder: true });
const checkAllInt8 = await oursAllInt8.transcribe(pcm, { captureEncoder: true });
const checkChannelInt8 = await oursChannelInt8.transcribe(pcm, { captureEncoder: true });
const mel = check.mel!;
const enc = check.encoder!;
if (check.windows.length !== 1) throw new Error('peer-run: the clip must fit one window (≤ 60 s)');
const features = new Float32Array(mel.bins * mel.validFrames);
for (let m = 0; m < mel.bins; m++) features.set(mel.data.subarray(m * mel.frames, m * mel.frames + mel.validFrames), m * mel.validFrames);
const feeds = { features: new ort.Tensor('float32', features, [1, mel.bins, mel.validFrames]) };

async function runOrt(session: ort.InferenceSession): Promise<{ ms: number; out: Float32Array; frames: number }> {
  const t0 = performance.now();
  const r = await session.run(feeds);
  const ms = performance.now() - t0;
  return { ms, out: r.encoded.data as Float32Array, frames: r.encoded.dims[0] };
}

const fp32Out = await runOrt(ortFp32);
const int8Out = await runOrt(ortInt8);
if (fp32Out.frames !== enc.validFrames) throw new Error(`peer-run: ONNX Runtime gave ${fp32Out.frames} frames, the engine ${enc.validFrames}`);
const n = enc.validFrames * enc.dim;
const checks = {
  ortFp32VsOursF32: relL2(fp32Out.out, enc.data, n),
  ortInt8VsOrtFp32: relL2(int8Out.out, fp32Out.out, n),
  oursQ8VsOursF32: relL2(checkQ8.encoder!.data, enc.data, n),
  oursAllInt8VsOursF32: relL2(checkAllInt8.encoder!.data, enc.data, n),
  oursChannelInt8VsOursF32: relL2(checkChannelInt8.encoder!.data, enc.data, n),
  oursF32VsExact: relL2(checkF32.encoder!.data, enc.data, n),
};

// Warm-ups: ONNX Runtime needs two calls before its times settle; ours one.
for (let i = 0; i < 2; i++) {
  await runOrt(ortFp32);
  await runOrt(ortInt8);
}
await oursF32.transcribe(pcm);
await oursQ8.transcribe(pcm);
await oursAllInt8.transcribe(pcm);
await oursChannelInt8.transcribe(pcm);
await oursF32Exact.transcribe(pcm);

type Sample = { encoderMs: number; totalMs: number };
const samples = { oursF32: [] as Sample[], oursQ8: [] as Sample[], oursAllInt8: [] as Sample[], oursChannelInt8: [] as Sample[], oursF32Exact: [] as Sample[], ortFp32: [] as number[], ortInt8: [] as number[] };
for (let r = 0; r < runs; r++) {
  for (const [key, model] of [['oursF32', oursF32], ['oursQ8', oursQ8]] as const) {
    await sleep(SETTLE_MS);
    const res = await model.transcribe(pcm);
    samples[key].push({ encoderMs: res.timings.encoderMs, totalMs: res.timings.totalMs });
    await sleep(SETTLE_MS);
    const o = await runOrt(key === 'oursF32' ? ortFp32 : ortInt8);
    samples[key === 'oursF32' ? 'ortFp32' : 'ortInt8'].push(o.ms);
  }
  await sleep(SETTLE_MS);
  const all = await oursAllInt8.transcribe(pcm);
  samples.oursAllInt8.push({ encoderMs: all.timings.encoderMs, totalMs: all.timings.totalMs });
  await sleep(SETTLE_MS);
  const channel = await oursChannelInt8.transcribe(pcm);
  samples.oursChannelInt8.push({ encoderMs: channel.timings.encoderMs, totalMs: channel.timings.totalMs });
  await sleep(SETTLE_MS);
  const exact = await oursF32Exact.transcribe(pcm);
  samples.oursF32Exact.push({ encoderMs: exact.timings.encoderMs, totalMs: exact.timings.totalMs });
}

const stats = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
};
console.log(JSON.stringify({
  seconds: pcm.length / audio.sampleRate,
  threads,
  encoderFrames: enc.validFrames,
  placed: { f32: oursF32.info().weightTypes, q8: oursQ8.info().weightTypes },
  kernels: { f32: oursF32.info().kernels, q8: oursQ8.info().kernels, channelInt8: oursChannelInt8.info().kernels, f32Exact: oursF32Exact.info().kernels },
  checks,
  oursF32: { encoder: stats(samples.oursF32.map((s) => s.encoderMs)), total: stats(samples.oursF32.map((s) => s.totalMs)) },
  oursQ8: { encoder: stats(samples.oursQ8.map((s) => s.encoderMs)), total: stats(samples.oursQ8.map((s) => s.totalMs)) },
  oursAllInt8: { encoder: stats(samples.oursAllInt8.map((s) => s.encoderMs)), total: stats(samples.oursAllInt8.map((s) => s.totalMs)) },
  oursChannelInt8: {
    encoder: stats(samples.oursChannelInt8.map((s) => s.encoderMs)), total: stats(samples.oursChannelInt8.map((s) => s.totalMs)),
  },
  oursF32Exact: { encoder: stats(samples.oursF32Exact.map((s) => s.encoderMs)), total: stats(samples.oursF32Exact.map((s) => s.totalMs)) },
  ortFp32: stats(samples.ortFp32),
  ortInt8: stats(samples.ortInt8),
}));
oursF32.dispose();
oursQ8.dispose();
oursAllInt8.dispose();
oursChannelInt8.dispose();
oursF32Exact.dispose();
await ortFp32.release();
await ortInt8.release();
