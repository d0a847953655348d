// ONNX Runtime's own per-op profile of a bench:peers export, beside our engine's (`npm run bench -- --profile`):
// where ORT's time goes, and each int8 or fp32 matmul op's rate in G multiply-adds/s from the shapes ORT ran.
//
//   node --import tsx test/bench/peers/ort-profile.ts .cache/bench/onnx/random-110m-int8-v1.onnx [--seconds 10] [--threads 1] [--runs 5]
//
// The exports are made by `npm run bench:peers` (test/bench/peers/encoder-onnx.ts) into .cache/bench/onnx.
// Features are random log-mel-shaped values (the time depends on the shapes, not the values). The first run is
// a warm-up and is left out of the profile's averages.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: 'string', default: '10' }, threads: { type: 'string', default: '1' }, runs: { type: 'string', default: '5' } },
});
const path = positionals[0];
if (!path) throw new Error('usage: ort-profile.ts MODEL.onnx [--seconds S] [--threads N] [--runs R]');
const frames = Math.round(Number(values.seconds) * 100);
const threads = Number(values.threads);
const runs = Number(values.runs);
const prefix = join(tmpdir(), `ort-profile-${process.pid}`);
const session = await ort.InferenceSession.create(path, {
  intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  enableProfiling: true, profileFilePrefix: prefix,
});
// The export's mel bins (80 for the 110M shape, 128 for 0.6B), from its input [1, bins, frames].
const input = session.inputMetadata[0];
const bins = input?.isTensor ? input.shape[1] : undefined;
if (typeof bins !== 'number') throw new Error(`${path}: its first input is not a [1, bins, frames] tensor (a bench:peers encoder export?)`);
let seed = 0x2545f491;
const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
const features = Float32Array.from({ length: bins * frames }, random);
const feeds = { [input.name]: new ort.Tensor('float32', features, [1, bins, frames]) };
const wall: number[] = [];
for (let r = 0; r <= runs; r++) {
  const t0 = performance.now();
  await session.run(feeds);
  wall.push(performance.now() - t0);
}
session.endProfiling();
const file = readdirSync(tmpdir()).filter((f) => f.startsWith(basename(prefix))).map((f) => join(tmpdir(), f)).sort().pop();
if (!file) throw new Error('ONNX Runtime wrote no profile');

interface ProfileEvent {
  cat: string;
  name: string;
  dur: number;
  ts: number;
  args?: { op_name?: string; input_type_shape?: Record<string, number[]>[]; output_type_shape?: Record<string, number[]>[] };
}
const events = (JSON.parse(readFileSync(file, 'utf8')) as ProfileEvent[]).filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
rmSync(file);
// Runs are in order: the first run's events (the warm-up) are those before the first event of the second run.
const perRun = events.length / (runs + 1);
if (!Number.isInteger(perRun)) throw new Error(`profile: ${events.length} kernel events for ${runs + 1} runs`);
const timed = events.sort((a, b) => a.ts - b.ts).slice(perRun);

/**
 * Multiply-adds of a matmul-like node from the shapes ORT recorded: the output's elements × the first
 * input's last dimension (a prepacked weight's own shape is not recorded).
 */
function multiplyAdds(e: ProfileEvent): number {
  const a = Object.values(e.args?.input_type_shape?.[0] ?? {})[0] ?? [];
  const y = Object.values(e.args?.output_type_shape?.[0] ?? {})[0] ?? [];
  if (a.length < 2 || y.length < 2) return 0;
  return y.reduce((x, d) => x * d, 1) * a[a.length - 1]!;
}
const MATMULS = new Set(['MatMul', 'Gemm', 'FusedMatMul', 'MatMulInteger', 'MatMulIntegerToFloat', 'DynamicQuantizeMatMul']);
const byOp = new Map<string, { ms: number; macs: number; nodes: number }>();
let total = 0;
for (const e of timed) {
  const op = e.args?.op_name ?? '?';
  const entry = byOp.get(op) ?? { ms: 0, macs: 0, nodes: 0 };
  entry.ms += e.dur / 1000 / runs;
  entry.nodes += 1 / runs;
  if (MATMULS.has(op)) entry.macs += multiplyAdds(e) / runs;
  byOp.set(op, entry);
  total += e.dur / 1000 / runs;
}
const median = [...wall.slice(1)].sort((a, b) => a - b)[Math.floor(runs / 2)]!;
console.log(`ONNX Runtime ${ort.env.versions.common} profile: ${path}, ${values.seconds} s of features, ${threads} thread(s), ${runs} runs after a warm-up`);
console.log(`session.run median ${median.toFixed(1)} ms (profiled), ${total.toFixed(1)} ms in kernels per run`);
console.log(`  ${'op'.padEnd(24)} ${'ms'.padStart(8)} ${'share'.padStart(6)} ${'nodes'.padStart(6)}  G multiply-adds/s`);
for (const [op, e] of [...byOp].sort((a, b) => b[1].ms - a[1].ms)) {
  const rate = e.macs > 0 ? (e.macs / (e.ms / 1000) / 1e9).toFixed(1) : '';
  console.log(`  ${op.padEnd(24)} ${e.ms.toFixed(1).padStart(8)} ${((100 * e.ms) / total).toFixed(1).padStart(5)}% ${Math.round(e.nodes).toString().padStart(6)}  ${rate}`);
}
