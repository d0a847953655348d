// `npm run bench`: real-time factor, time split, peak RSS and load time of the
// whole pipeline (mel + encoder + decoder) on random-weight models of the
// published shapes, plus ggml's measured matmul rate on this CPU so the
// encoder's efficiency against the kernel ceiling is visible.
//
//   npm run bench                         110M + 0.6B shapes, F32/F16/Q8_0 files, 1 and 2 threads, 10 s and 60 s
//   npm run bench -- --quick              110M shape only, 10 s, 2 threads
//   npm run bench -- --shapes 110m --files q8_0 --weight-types auto,q4_0 --threads 2 --seconds 10
//   npm run bench -- --under-load         1 / all / adaptive threads with and without a competing busy process (110M Q8_0, 10 s)
//   npm run bench -- --profile            per-op / per-part encoder profile of one run per file (110M unless --shapes)
//   npm run bench -- --long               also one hour of audio with the 0.6B shape (memory bound check)
//   npm run bench -- --window-effect      word error rate of 60 s windows vs one pass, on 180 s of speech
//   npm run bench -- --json out.json      write the results as JSON too
//
// Each configuration runs in its own process (peak RSS is its own), as the
// median of 3 runs after a warm-up. Machines here are noisy: compare in one run.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchMatmul, buildInfo, listDevices } from '../../native/index.js';
import { benchCache as cache, benchModelFile as modelFile, benchRoot as root } from './models.js';
import { speechWithPauses } from '../support/audio/speech.js';
import { printProfile, profileEncoder } from './profile.js';
import { printUnderLoad, underLoad } from './under-load.js';


const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' }, long: { type: 'boolean' }, 'window-effect': { type: 'boolean' }, shapes: { type: 'string' }, files: { type: 'string' },
    'weight-types': { type: 'string' }, threads: { type: 'string' }, seconds: { type: 'string' }, json: { type: 'string' },
    runs: { type: 'string' }, profile: { type: 'boolean' }, 'under-load': { type: 'boolean' },
  },
});

const list = (v: string | undefined, fallback: string[]) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : fallback);
const shapes = list(values.shapes, values.quick || values.profile || values['under-load'] ? ['110m'] : ['110m', '600m']);
const files = list(values.files, ['f32', 'f16', 'q8_0']);
const weightTypes = list(values['weight-types'], ['auto']);
const threadCounts = list(values.threads, values.quick ? ['2'] : ['1', '2']).map(Number);
const durations = list(values.seconds, values.quick ? ['10'] : ['10', '60']).map(Number);
const runs = values.runs ?? '3';

interface RunResult {
  model: string; file: string; fileBytes: number; weightType: string; placedTypes: Record<string, number>; threads: number; seconds: number;
  firstLoadMs: number; warmLoadMs: number; totalMs: number; melMs: number; encoderMs: number; decoderMs: number; rtfx: number;
  encoderGflop: number; encoderGflops: number; tokens: number; maxRssBytes: number;
}

function runOne(model: string, audio: string, threads: number, weightType: string, extra: string[] = []): RunResult {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'test', 'bench', 'run-one.ts'), '--model', model, '--audio', audio, '--threads', String(threads),
      '--weight-type', weightType, '--runs', runs, ...extra],
    { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as RunResult;
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)}`;

const device = listDevices().find((d) => d.type === 'cpu');
const build = buildInfo();
console.log(`CPU: ${cpus()[0]?.model ?? '?'} × ${cpus().length}; ggml ${build.ggmlVersion} (${build.ggmlCommit.slice(0, 12)}); features: ${device?.cpuFeatures.join(' ')}`);

if (values['under-load']) {
  const results = [];
  for (const shape of shapes) {
    for (const fileType of list(values.files, ['q8_0'])) {
      const rows = await underLoad(modelFile(shape, fileType), speechWithPauses(join(cache, 'audio'), durations[0]), Number(values.runs ?? 5));
      printUnderLoad(`${shape} ${fileType} file, ${durations[0]} s`, rows);
      results.push({ shape, fileType, seconds: durations[0], rows });
    }
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, cores: cpus().length, results }, null, 2)}\n`);
  process.exit(0);
}

if (values.profile) {
  // One run per shape × file, first thread count and duration given; nothing else.
  const profiles = [];
  for (const shape of shapes) {
    for (const fileType of files) {
      for (const weightType of weightTypes) {
        const audio = speechWithPauses(join(cache, 'audio'), durations[0]);
        const p = await profileEncoder(modelFile(shape, fileType), audio, threadCounts[0], weightType as 'auto');
        printProfile(`${shape} ${fileType} file, weightType ${weightType}`, p);
        profiles.push({ shape, fileType, ...p });
      }
    }
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, features: device?.cpuFeatures, ggml: build, profiles }, null, 2)}\n`);
  process.exit(0);
}

// ggml matmul ceiling on this CPU, encoder-sized shapes (FFN linear1 of each shape, T' = 125 frames ≈ 10 s).
const matmulTypes = ['f32', 'f16', 'bf16', 'q8_0', 'q4_0'];
const ceilings: Record<string, Record<string, number>> = {};
console.log('\nggml mul_mat GFLOP/s (weight [FF×D], 128 tokens; "repack" = CPU repacked layout). The encoder runs the engine\'s own kernels where the CPU has them, so "×ggml" below can exceed 100 %; compare speed with npm run bench:peers.');
console.log(`${'shape'.padEnd(6)} ${'type'.padEnd(12)} ${pad('1 thread', 9)} ${pad('2 threads', 10)}`);
for (const shape of shapes) {
  const [D, FF] = shape === '110m' ? [512, 2048] : [1024, 4096];
  for (const type of [...matmulTypes, 'q4_0+repack']) {
    const [base, repack] = type.split('+');
    const rates: number[] = [];
    for (const threads of [1, 2]) {
      // Best of three: the ceiling is what the kernel can do when the machine lets it.
      let best = 0;
      for (let rep = 0; rep < 3; rep++) {
        const r = await benchMatmul({ type: base, out: FF, in: D, tokens: 128, threads, iterations: 10, repack: repack === 'repack' });
        best = Math.max(best, r.gflops);
      }
      rates.push(best);
    }
    (ceilings[shape] ??= {})[type] = Math.max(...rates);
    ceilings[shape][`${type}@1`] = rates[0];
    ceilings[shape][`${type}@2`] = rates[1];
    console.log(`${shape.padEnd(6)} ${type.padEnd(12)} ${pad(rates[0].toFixed(0), 9)} ${pad(rates[1].toFixed(0), 10)}`);
  }
}

const results: (RunResult & { shape: string; fileType: string; matmulCeiling: number; efficiency: number })[] = [];
console.log('\nWhole pipeline (median of runs; RTFx = audio seconds / processing seconds):');
const header = `${'shape'.padEnd(6)} ${'file'.padEnd(5)} ${'weights'.padEnd(7)} ${pad('thr', 3)} ${pad('audio', 5)} ${pad('RTFx', 6)} ` +
  `${pad('total ms', 8)} ${pad('mel', 5)} ${pad('encoder', 7)} ${pad('decoder', 7)} ${pad('enc GFLOP/s', 11)} ${pad('ggml mm', 7)} ${pad('×ggml', 5)} ` +
  `${pad('load ms', 7)} ${pad('RSS MiB', 7)} ${pad('file MiB', 8)}`;
console.log(header);
for (const shape of shapes) {
  for (const fileType of files) {
    const model = modelFile(shape, fileType);
    for (const weightType of weightTypes) {
      for (const seconds of durations) {
        const audio = speechWithPauses(join(cache, 'audio'), seconds);
        for (const threads of threadCounts) {
          const r = runOne(model, audio, threads, weightType);
          // The engine's own layouts (i16, int8) compare with ggml's kernel for the file's type.
          const effectiveType = weightType === 'auto' || weightType === 'i16' || weightType === 'int8' ? fileType : weightType;
          const ceiling = ceilings[shape]?.[`${effectiveType === 'q4_0' ? 'q4_0+repack' : effectiveType}@${threads}`] ?? NaN;
          const row = { ...r, shape, fileType, matmulCeiling: ceiling, efficiency: r.encoderGflops / ceiling };
          results.push(row);
          console.log(
            `${shape.padEnd(6)} ${fileType.padEnd(5)} ${weightType.padEnd(7)} ${pad(threads, 3)} ${pad(`${seconds}s`, 5)} ${pad(r.rtfx.toFixed(1), 6)} ` +
              `${pad(r.totalMs.toFixed(0), 8)} ${pad(r.melMs.toFixed(0), 5)} ${pad(r.encoderMs.toFixed(0), 7)} ${pad(r.decoderMs.toFixed(0), 7)} ` +
              `${pad(r.encoderGflops.toFixed(0), 11)} ${pad(ceiling.toFixed(0), 7)} ${pad(`${Math.round(row.efficiency * 100)}%`, 5)} ` +
              `${pad(r.warmLoadMs.toFixed(0), 7)} ${pad(mib(r.maxRssBytes), 7)} ${pad(mib(r.fileBytes), 8)}`,
          );
        }
      }
    }
  }
}

let long: RunResult | null = null;
if (values.long) {
  const audio = speechWithPauses(join(cache, 'audio'), 3600, 0.6, 'speech-3600s.wav');
  long = runOne(modelFile('600m', 'q8_0'), audio, 2, 'auto', ['--runs', '1']);
  console.log(`\nOne hour, 0.6B shape Q8_0, 2 threads: RTFx ${long.rtfx.toFixed(1)}, ${(long.totalMs / 1000).toFixed(0)} s, peak RSS ${mib(long.maxRssBytes)} MiB`);
}

let windowEffect: unknown = null;
if (values['window-effect']) {
  const audio = speechWithPauses(join(cache, 'audio'), 180);
  for (const shape of shapes) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'window-effect.ts'), '--model', modelFile(shape, 'q8_0'),
      '--audio', audio, '--window', '60'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const r = JSON.parse(out.trim().split('\n').at(-1)!) as {
      windows: unknown[]; wer: number; wholeWords: number; encoderRelL2ByDistance: Record<string, { frames: number; relL2: number | null }>;
    };
    windowEffect = { ...(windowEffect as object), [shape]: r };
    const bands = Object.entries(r.encoderRelL2ByDistance).map(([k, v]) => `${k}: ${v.relL2?.toExponential(1) ?? '–'}`).join(', ');
    console.log(`\nLong-audio windows, ${shape} Q8_0 (random weights), 180 s cut into ${r.windows.length} windows at pauses: ` +
      `WER vs one pass ${(r.wer * 100).toFixed(1)}% over ${r.wholeWords} words; encoder rel. L2 by distance from a cut: ${bands}`);
  }
}

if (values.json) {
  writeFileSync(values.json, `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, features: device?.cpuFeatures, ggml: build, ceilings, results, long, windowEffect }, null, 2)}\n`);
  console.log(`\nwrote ${values.json}`);
}
