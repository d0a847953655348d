// `npm run bench:peers`: our encoder against ONNX Runtime on the same weights, the same CPU, in
// the same run. Each GGUF's encoder is exported to ONNX by our own exporter (fp32 from the F32
// file, int8 the way quantize_dynamic makes it from the Q8_0 file), checked against our engine's
// output, then timed interleaved with ours (test/bench/peers/peer-run.ts, one process per
// configuration).
//
//   npm run bench:peers                    110M + 0.6B shapes, 10 s and 60 s, 1 and 2 threads
//   npm run bench:peers -- --quick         110M shape, 10 s, 1 thread (a few minutes)
//   npm run bench:peers -- --shapes 600m --seconds 60 --threads 2 --runs 7
//   npm run bench:peers -- --no-amx        AMX refused to both sides (peers/deny-amx.c; Linux x86-64):
//                                          an AMX CPU measured as the AVX512-VNNI class it contains
//   npm run bench:peers -- --cpu-class avx2  our engine's kernels capped at a class (PARAKEET_CPU_CLASS:
//                                          scalar, avx2, avx_vnni, avx512, avx512_vnni, amx); ONNX
//                                          Runtime has no such switch and runs its best kernels (said in the output)
//
// Ratios are ours/peer speed (ORT ms ÷ our ms: above 1 we are faster). Matching precision:
// our F32 file vs ORT fp32, our Q8_0 file vs ORT int8, each as weightType auto runs it (an F32 file
// as 14-bit blocks on AVX512-VNNI, AVX-VNNI and AVX2 CPUs: README "Weight types"); "best" = the faster of each side;
// "pipeline" = ORT's best encoder alone vs our best whole pipeline (mel + encoder + decoder).
// "all-int8" = the Q8_0 file with weightType q8_0 (every matmul in Q8_0, as ORT's int8 graph), vs ORT int8;
// "ch-i8" = the Q8_0 file with weightType int8 (per-channel int8 weights, per-frame int8 activations,
// int32 over the whole row: ORT's int8 precision class, made finer; explicit, lossy, never picked by
// auto), vs ORT int8; "F32 ex" = the F32 file with weightType f32 (the exact F32 kernel), vs ORT fp32.
// All of them count for "best" too. Every "err" is against the exact F32 output.
// The last line, `min ratio: X (<comparison>)`, is the smallest matching-precision encoder ratio.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildInfo, listDevices } from '../../native/index.js';
import { speechWithPauses } from '../support/audio/speech.js';
import { cpuFamilyModel } from './cpu-info.js';
import { benchCache, benchModelFile, benchRoot } from './models.js';
import { type OnnxPrecision, exportEncoderOnnx } from './peers/encoder-onnx.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' }, shapes: { type: 'string' }, seconds: { type: 'string' }, threads: { type: 'string' },
    runs: { type: 'string' }, json: { type: 'string' }, 'no-amx': { type: 'boolean' }, 'cpu-class': { type: 'string' },
  },
});
/** The engine's kernel classes (native/engine/cpu_ops.h, CpuClass). */
const CPU_CLASSES = ['scalar', 'avx2', 'avx_vnni', 'avx512', 'avx512_vnni', 'amx'];
const cpuClass = values['cpu-class'];
if (cpuClass !== undefined && !CPU_CLASSES.includes(cpuClass)) {
  throw new Error(`--cpu-class '${cpuClass}' is not one of ${CPU_CLASSES.join(', ')}`);
}
const list = (v: string | undefined, fallback: string[]) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : fallback);
const shapes = list(values.shapes, values.quick ? ['110m'] : ['110m', '600m']);
const durations = list(values.seconds, values.quick ? ['10'] : ['10', '60']).map(Number);
const threadCounts = list(values.threads, values.quick ? ['1'] : ['1', '2']).map(Number);
const runs = values.runs ?? (values.quick ? '5' : '5');

/** Bumped whenever the exporter's output changes, so cached exports are rebuilt. */
const EXPORT_VERSION = 1;
/**
 * ORT fp32 must agree with our F32 encoder this closely before anything is timed. The same math in
 * float32 differs only by rounding, which random deep models amplify layer by layer (measured here:
 * 7e-7 after 1 layer, 1.6e-6 after 4, 2e-5 after 17), so the full-depth gate is the project's parity
 * bound 1e-4; test/native/onnx-export.test.ts holds the exporter to 1e-5 on a one-layer model.
 */
const FP32_TOLERANCE = 1e-4;

interface Stats { median: number; min: number; max: number }
interface PeerRun {
  seconds: number; threads: number; encoderFrames: number;
  placed: { f32: Record<string, number>; q8: Record<string, number> };
  kernels: { f32: Record<string, number>; q8: Record<string, number>; channelInt8: Record<string, number>; f32Exact: Record<string, number> };
  checks: {
    ortFp32VsOursF32: number; ortInt8VsOrtFp32: number; oursQ8VsOursF32: number; oursAllInt8VsOursF32: number; oursChannelInt8VsOursF32: number;
    oursF32VsExact: number;
  };
  oursF32: { encoder: Stats; total: Stats }; oursQ8: { encoder: Stats; total: Stats }; oursAllInt8: { encoder: Stats; total: Stats };
  oursChannelInt8: { encoder: Stats; total: Stats };
  oursF32Exact: { encoder: Stats; total: Stats };
  ortFp32: Stats; ortInt8: Stats;
}

function onnxFile(shape: string, precision: OnnxPrecision, gguf: string): string {
  const dir = join(benchCache, 'onnx');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `random-${shape}-${precision}-v${EXPORT_VERSION}.onnx`);
  if (!existsSync(path)) {
    process.stderr.write(`exporting ${path} …\n`);
    exportEncoderOnnx(gguf, path, { precision });
  }
  return path;
}

function cpuFlags(): string[] {
  const wanted = ['avx2', 'fma', 'f16c', 'avx_vnni', 'avx512f', 'avx512bw', 'avx512vl', 'avx512_vnni', 'avx512_bf16', 'avx512_fp16', 'amx_tile', 'amx_int8', 'amx_bf16'];
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('flags'));
    const have = new Set((line ?? '').split(':')[1]?.trim().split(/\s+/) ?? []);
    return wanted.filter((f) => have.has(f));
  } catch {
    return listDevices().find((d) => d.type === 'cpu')?.cpuFeatures ?? [];
  }
}

/**
 * --no-amx: the LD_PRELOAD library that refuses the AMX tile permission (peers/deny-amx.c), built
 * into the bench cache with the system C compiler. Both ONNX Runtime and our engine then take their
 * AVX512-VNNI paths, so an AMX machine also measures the VNNI class, in the same run.
 */
function denyAmxLibrary(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('--no-amx works on Linux x86-64 only');
  const out = join(benchCache, 'deny-amx.so');
  const source = join(benchRoot, 'test', 'bench', 'peers', 'deny-amx.c');
  try {
    execFileSync('cc', ['-O2', '-shared', '-fPIC', '-o', `${out}.partial`, source, '-ldl'], { stdio: 'inherit' });
  } catch (error) {
    throw new Error(`--no-amx builds ${source} with the system C compiler (cc), which failed: ${(error as Error).message}`);
  }
  renameSync(`${out}.partial`, out);
  return out;
}
const denyAmx = values['no-amx'] ? denyAmxLibrary() : undefined;
const childEnv = {
  ...process.env, ...(denyAmx ? { LD_PRELOAD: denyAmx } : {}), ...(cpuClass !== undefined ? { PARAKEET_CPU_CLASS: cpuClass } : {}),
};

const ortVersion = (JSON.parse(readFileSync(join(benchRoot, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8')) as { version: string }).version;
const build = buildInfo();
const cpu = cpus()[0]?.model ?? '?';
const flags = cpuFlags();
const familyModel = cpuFamilyModel();
console.log(`CPU: ${cpu} × ${cpus().length}${familyModel ? ` (family ${familyModel.family}, model ${familyModel.model})` : ''}; flags: ${flags.join(' ')}`);
console.log(`ours: ggml ${build.ggmlVersion} (${build.ggmlCommit.slice(0, 12)}), weightType auto; peer: onnxruntime-node ${ortVersion} (CPU EP, graph optimizations all)`);
if (denyAmx) console.log('--no-amx: the AMX tile permission is refused to both sides (test/bench/peers/deny-amx.c): each runs its AVX512-VNNI kernels');
if (cpuClass !== undefined) {
  console.log(`--cpu-class ${cpuClass}: OUR engine's kernels are capped at the ${cpuClass} class (PARAKEET_CPU_CLASS; ggml's own kernels are not); ` +
    'ONNX Runtime CANNOT be restricted and runs its best kernels for this CPU, so the ratios compare our class against ORT at full strength');
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
const ms = (s: Stats) => s.median.toFixed(0);
interface Row extends PeerRun {
  shape: string;
  ratios: {
    f32VsFp32: number; q8VsInt8: number; allInt8VsInt8: number; channelInt8VsInt8: number; f32ExactVsFp32: number; bestVsBest: number;
    pipelineVsOrtEncoder: number;
  };
}
const rows: Row[] = [];
console.log('\nEncoder milliseconds (median of runs) and ratios ours/peer (ORT ms ÷ ours; > 1 = ours faster):');
console.log(`${'shape'.padEnd(5)} ${pad('audio', 5)} ${pad('thr', 3)} | ${pad('F32', 6)} ${pad('fp32', 6)} ${pad('ratio', 6)} | ${pad('Q8_0', 6)} ${pad('int8', 6)} ${pad('ratio', 6)} | ${pad('all-i8', 6)} ${pad('ratio', 6)} | ${pad('ch-i8', 6)} ${pad('ratio', 6)} | ${pad('F32 ex', 6)} ${pad('ratio', 6)} | ${pad('best', 6)} | ${pad('ours total', 10)} ${pad('pipeline', 8)} | ${pad('fp32 err', 8)} ${pad('F32 err', 8)} ${pad('int8 err', 8)} ${pad('Q8_0 err', 8)} ${pad('all-i8 err', 10)} ${pad('ch-i8 err', 9)}`);
let failedCheck = false;
for (const shape of shapes) {
  const f32File = benchModelFile(shape, 'f32');
  const q8File = benchModelFile(shape, 'q8_0');
  const fp32Onnx = onnxFile(shape, 'fp32', f32File);
  const int8Onnx = onnxFile(shape, 'int8', q8File);
  for (const seconds of durations) {
    const audio = speechWithPauses(join(benchCache, 'audio'), seconds);
    for (const threads of threadCounts) {
      const out = execFileSync(process.execPath, [
        '--import', 'tsx', join(benchRoot, 'test', 'bench', 'peers', 'peer-run.ts'), '--f32', f32File, '--q8', q8File,
        '--onnx-fp32', fp32Onnx, '--onnx-int8', int8Onnx, '--audio', audio, '--threads', String(threads), '--runs', runs,
      ], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'], env: childEnv });
      const r = JSON.parse(out.trim().split('\n').at(-1)!) as PeerRun;
      const onTiles = Object.keys({ ...r.kernels.f32, ...r.kernels.q8, ...r.kernels.channelInt8 }).filter((k) => k.includes('amx'));
      if (denyAmx && onTiles.length > 0) throw new Error(`--no-amx: our engine still ran AMX kernels (${onTiles.join(', ')}); the comparison would not be the VNNI class`);
      const bestOurs = Math.min(r.oursF32.encoder.median, r.oursQ8.encoder.median, r.oursAllInt8.encoder.median, r.oursChannelInt8.encoder.median,
        r.oursF32Exact.encoder.median);
      const bestOursTotal = Math.min(r.oursF32.total.median, r.oursQ8.total.median, r.oursAllInt8.total.median, r.oursChannelInt8.total.median,
        r.oursF32Exact.total.median);
      const bestOrt = Math.min(r.ortFp32.median, r.ortInt8.median);
      const ratios = {
        f32VsFp32: r.ortFp32.median / r.oursF32.encoder.median,
        q8VsInt8: r.ortInt8.median / r.oursQ8.encoder.median,
        allInt8VsInt8: r.ortInt8.median / r.oursAllInt8.encoder.median,
        channelInt8VsInt8: r.ortInt8.median / r.oursChannelInt8.encoder.median,
        f32ExactVsFp32: r.ortFp32.median / r.oursF32Exact.encoder.median,
        bestVsBest: bestOrt / bestOurs,
        pipelineVsOrtEncoder: bestOrt / bestOursTotal,
      };
      rows.push({ ...r, shape, ratios });
      if (!(r.checks.ortFp32VsOursF32 <= FP32_TOLERANCE)) failedCheck = true;
      console.log(
        `${shape.padEnd(5)} ${pad(`${seconds}s`, 5)} ${pad(threads, 3)} | ${pad(ms(r.oursF32.encoder), 6)} ${pad(ms(r.ortFp32), 6)} ${pad(ratios.f32VsFp32.toFixed(2), 6)} | ` +
          `${pad(ms(r.oursQ8.encoder), 6)} ${pad(ms(r.ortInt8), 6)} ${pad(ratios.q8VsInt8.toFixed(2), 6)} | ` +
          `${pad(ms(r.oursAllInt8.encoder), 6)} ${pad(ratios.allInt8VsInt8.toFixed(2), 6)} | ` +
          `${pad(ms(r.oursChannelInt8.encoder), 6)} ${pad(ratios.channelInt8VsInt8.toFixed(2), 6)} | ` +
          `${pad(ms(r.oursF32Exact.encoder), 6)} ${pad(ratios.f32ExactVsFp32.toFixed(2), 6)} | ${pad(ratios.bestVsBest.toFixed(2), 6)} | ` +
          `${pad(bestOursTotal.toFixed(0), 10)} ${pad(ratios.pipelineVsOrtEncoder.toFixed(2), 8)} | ` +
          `${pad(r.checks.ortFp32VsOursF32.toExponential(1), 8)} ${pad(r.checks.oursF32VsExact.toExponential(1), 8)} ${pad(r.checks.ortInt8VsOrtFp32.toExponential(1), 8)} ${pad(r.checks.oursQ8VsOursF32.toExponential(1), 8)} ${pad(r.checks.oursAllInt8VsOursF32.toExponential(1), 10)} ` +
          `${pad(r.checks.oursChannelInt8VsOursF32.toExponential(1), 9)}`,
      );
    }
  }
}
console.log(`(err: relative L2 of the encoder output — ORT fp32 vs our exact F32 (must be ≤ ${FP32_TOLERANCE}), our F32 file as auto runs it, ORT int8 vs ORT fp32, our Q8_0, all-int8 and ch-i8 vs our exact F32)`);
const first = rows[0];
if (first) {
  console.log(`weights placed by auto: F32 file ${JSON.stringify(first.placed.f32)}, Q8_0 file ${JSON.stringify(first.placed.q8)}; ` +
    `run by the engine's kernels: F32 file ${JSON.stringify(first.kernels.f32)}, Q8_0 file ${JSON.stringify(first.kernels.q8)}`);
}

const jsonPath = values.json ?? join(benchRoot, 'bench-results', `peers-${values.quick ? 'quick-' : ''}${denyAmx ? 'no-amx-' : ''}${cpuClass !== undefined ? `class-${cpuClass}-` : ''}${cpu.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase()}${familyModel ? `-f${familyModel.family}-m${familyModel.model}` : ''}.json`);
mkdirSync(join(jsonPath, '..'), { recursive: true });
writeFileSync(`${jsonPath}.partial`, `${JSON.stringify({ date: new Date().toISOString(), amxDenied: Boolean(denyAmx), cpuClass: cpuClass ?? null, ortRestricted: false, cpu, cpuFamily: familyModel?.family, cpuModel: familyModel?.model, flags, cores: cpus().length, ggml: build, onnxruntime: ortVersion, rows }, null, 2)}\n`);
renameSync(`${jsonPath}.partial`, jsonPath);
console.log(`wrote ${jsonPath}`);

let min = { ratio: Infinity, what: '' };
for (const r of rows) {
  const where = `${r.shape} ${r.seconds}s ${r.threads} thr`;
  if (r.ratios.f32VsFp32 < min.ratio) min = { ratio: r.ratios.f32VsFp32, what: `${where}, F32 vs ORT fp32` };
  if (r.ratios.q8VsInt8 < min.ratio) min = { ratio: r.ratios.q8VsInt8, what: `${where}, Q8_0 vs ORT int8` };
}
if (failedCheck) {
  console.log(`ONNX Runtime fp32 disagrees with our F32 encoder by more than ${FP32_TOLERANCE} (see "fp32 err"): the comparison is not of the same math`);
  process.exitCode = 1;
}
console.log(`min ratio: ${min.ratio.toFixed(2)} (${min.what})`);
