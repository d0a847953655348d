// `npm run bench:threads`: where the encoder's work goes on 1 and 2 CPU threads, op by op — for the
// exact F32 path of the 0.6B shape by default (bench:peers' "F32 ex" column). For each thread count
// the encoder runs profiled (node by node, TranscribeOptions.profile), and for the engine's own ops
// each thread's CPU time inside its own share is measured (native/engine/runtime/thread_work.h):
//   work      Σ over the threads: it should not grow with the thread count; what grows is contention
//             (memory bandwidth, two threads on one physical core, a lower clock with both cores busy)
//   split     each thread's part of the work: one thread with all of it is a serial op
//   imbalance Σ over nodes of the busiest thread's share ÷ the mean share: 1.00 = even; what it costs
//             ("waited") is time the other threads spin at ggml's barrier after each node
// CPU times hold on a machine shared with other work; the wall times printed beside them do not.
//
//   npm run bench:threads                                  600m, 10 s, F32 exact, 1 and 2 threads
//   npm run bench:threads -- --out threads-600m-f32-<cpu>   also writes bench-results/<name>.txt (+ .json)
//   npm run bench:threads -- --shape small --layers 2 --seconds 4   a smoke run in seconds
//   options: --shape 600m|110m|small|tiny  --layers N (the shape's layers cut to N)  --seconds S
//            --threads 1,2  --weight-type f32|auto|…  --runs N (profiled runs averaged, default 3)  --top N
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildInfo, Model, type EncoderProfile, type NodeTime, type WeightType } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';
import { speechWithPauses } from '../support/audio/speech.js';
import type { PresetName } from '../support/model/option-types.js';
import { coreSharing, cpuFamilyModel } from './cpu-info.js';
import { benchCache, benchModelFile, benchRoot, cachedBenchModel } from './models.js';

const { values } = parseArgs({
  options: {
    shape: { type: 'string' }, layers: { type: 'string' }, seconds: { type: 'string' }, threads: { type: 'string' },
    'weight-type': { type: 'string' }, runs: { type: 'string' }, top: { type: 'string' }, out: { type: 'string' },
  },
});
const PRESETS: Record<string, PresetName> = { '600m': 'shape600m', '110m': 'shape110m', small: 'small', tiny: 'tiny' };
const shape = values.shape ?? '600m';
const preset = PRESETS[shape];
if (preset === undefined) throw new Error(`--shape '${shape}' is not one of ${Object.keys(PRESETS).join(', ')}`);
const positive = (name: string, text: string | undefined, fallback: number): number => {
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1, got '${text}'`);
  return n;
};
const layers = values.layers === undefined ? undefined : positive('layers', values.layers, 1);
const seconds = Number(values.seconds ?? 10);
if (!(seconds > 0)) throw new Error(`--seconds must be a positive number, got '${values.seconds}'`);
const threadCounts = (values.threads ?? '1,2').split(',').map((t) => positive('threads', t.trim(), 1));
const weightType = (values['weight-type'] ?? 'f32') as WeightType;
const runs = positive('runs', values.runs, 3);
const top = positive('top', values.top, 14);

const report: string[] = [];
const say = (line = ''): void => {
  report.push(line);
  console.log(line);
};

function modelFile(): string {
  if (layers === undefined && (shape === '600m' || shape === '110m')) return benchModelFile(shape, 'f32');
  const cut = layers === undefined ? '' : `-${layers}l`;
  return cachedBenchModel(`random-${shape}${cut}-f32`, { preset, weightType: 'f32', ...(layers === undefined ? {} : { nLayers: layers }) });
}

interface ThreadRun {
  threads: number;
  kernels: Record<string, number>;
  /** Unprofiled, wall (indicative only on a shared machine). */
  encoderMs: number; melMs: number; decoderMs: number;
  /** Profiled, averaged over the runs. */
  profiledEncoderMs: number;
  profile: EncoderProfile;
}

function addNode(into: NodeTime, t: NodeTime, scale: number): void {
  into.ms += t.ms * scale;
  into.cpuMs += t.cpuMs * scale;
  into.count += t.count * scale;
  into.busiestMs += t.busiestMs * scale;
  into.measured += t.measured * scale;
  into.oneThread += t.oneThread * scale;
  t.threadMs.forEach((ms, k) => {
    into.threadMs[k] = (into.threadMs[k] ?? 0) + ms * scale;
  });
}

const emptyNode = (): NodeTime => ({ ms: 0, count: 0, cpuMs: 0, threadMs: [], busiestMs: 0, measured: 0, oneThread: 0 });

function averaged(profiles: EncoderProfile[]): EncoderProfile {
  const out: EncoderProfile = { byOp: {}, byPart: {}, threads: profiles[0]?.threads ?? 0 };
  for (const p of profiles) {
    for (const [table, from] of [[out.byOp, p.byOp], [out.byPart, p.byPart]] as const) {
      for (const [name, t] of Object.entries(from)) addNode((table[name] ??= emptyNode()), t, 1 / profiles.length);
    }
  }
  return out;
}

async function runAt(file: string, pcm: Float32Array, threads: number): Promise<ThreadRun> {
  const model = await Model.load(file, { threads, weightType });
  try {
    await model.transcribe(pcm);  // warm-up: buffers, first touch, the kept position projections
    const plain = await model.transcribe(pcm);
    const profiles: EncoderProfile[] = [];
    let profiledMs = 0;
    for (let r = 0; r < runs; r++) {
      const res = await model.transcribe(pcm, { profile: true });
      if (!res.profile) throw new Error('the engine returned no profile (did the encoder run on a GPU?)');
      profiles.push(res.profile);
      profiledMs += res.timings.encoderMs / runs;
    }
    return {
      threads, kernels: model.info().kernels, encoderMs: plain.timings.encoderMs, melMs: plain.timings.melMs, decoderMs: plain.timings.decoderMs,
      profiledEncoderMs: profiledMs, profile: averaged(profiles),
    };
  } finally {
    model.dispose();
  }
}

const f1 = (x: number): string => x.toFixed(1);
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const work = (t: NodeTime): number => sum(t.threadMs);
/** Busiest share ÷ mean share, over the measured nodes (1 = even). */
const imbalance = (t: NodeTime, threads: number): number => (work(t) > 0 ? t.busiestMs / (work(t) / threads) : Number.NaN);
/** What the others spent waiting for the busiest thread, per thread: Σ busiest − mean. */
const waited = (t: NodeTime, threads: number): number => t.busiestMs - work(t) / threads;

function opTable(title: string, rows: Record<string, NodeTime>, threads: number): void {
  const entries = Object.entries(rows).sort((a, b) => Math.max(work(b[1]), b[1].ms) - Math.max(work(a[1]), a[1].ms));
  const total = sum(entries.map(([, t]) => t.ms));
  say(`  ${title.padEnd(44)} ${'nodes'.padStart(5)} ${'wall ms'.padStart(8)} ${'share'.padStart(6)} ${'work ms'.padStart(8)} ` +
    `${'per thread ms'.padStart(16)} ${'imbal'.padStart(6)} ${'waited'.padStart(7)}  note`);
  for (const [name, t] of entries.slice(0, top)) {
    const measured = t.measured > 0;
    const split = measured ? t.threadMs.map(f1).join(' / ') : '—';
    const serial = threads > 1 && measured && t.threadMs.slice(1).every((ms) => ms === 0);
    const note = !measured
      ? `ggml op: per-thread split not measured${t.oneThread > 0 ? `; ${Math.round(t.oneThread)} node(s) on ONE thread` : ''}`
      : serial ? 'SERIAL: all work on thread 0' : t.oneThread > 0 ? `${Math.round(t.oneThread)} node(s) given one thread` : '';
    say(`  ${name.slice(0, 44).padEnd(44)} ${String(Math.round(t.count)).padStart(5)} ${f1(t.ms).padStart(8)} ` +
      `${`${((100 * t.ms) / total).toFixed(1)}%`.padStart(6)} ${(measured ? f1(work(t)) : '—').padStart(8)} ${split.padStart(16)} ` +
      `${(measured && threads > 1 ? imbalance(t, threads).toFixed(2) : '—').padStart(6)} ${(measured && threads > 1 ? f1(waited(t, threads)) : '—').padStart(7)}  ${note}`);
  }
  if (entries.length > top) say(`  … ${entries.length - top} more (${f1(sum(entries.slice(top).map(([, t]) => t.ms)))} ms wall); --top N shows more`);
}

interface Summary {
  threads: number; nodesMs: number; hostMs: number; engineWork: number; engineBusiest: number; engineWall: number; waited: number;
  ggmlWall: number; oneThreadNodes: number; serialEngineMs: number;
}

function summarize(r: ThreadRun): Summary {
  const ops = Object.values(r.profile.byOp);
  const engine = ops.filter((t) => t.measured > 0);
  const ggml = ops.filter((t) => t.measured === 0);
  const nodesMs = sum(ops.map((t) => t.ms));
  return {
    threads: r.threads, nodesMs, hostMs: r.profiledEncoderMs - nodesMs,
    engineWork: sum(engine.map(work)), engineBusiest: sum(engine.map((t) => t.busiestMs)), engineWall: sum(engine.map((t) => t.ms)),
    waited: sum(engine.map((t) => waited(t, r.threads))), ggmlWall: sum(ggml.map((t) => t.ms)), oneThreadNodes: sum(ops.map((t) => t.oneThread)),
    serialEngineMs: r.threads > 1 ? sum(engine.filter((t) => t.threadMs.slice(1).every((ms) => ms === 0)).map(work)) : 0,
  };
}

function printRun(r: ThreadRun): Summary {
  const s = summarize(r);
  say(`\n=== ${r.threads} thread(s) ===`);
  say(`kernels: ${Object.entries(r.kernels).map(([k, n]) => `${k}×${n}`).join(' ')}`);
  say(`wall, unprofiled (indicative only where other work shares the CPU): encoder ${f1(r.encoderMs)} ms, log-mel ${f1(r.melMs)} ms, ` +
    `decoder ${f1(r.decoderMs)} ms`);
  say(`profiled encoder ${f1(r.profiledEncoderMs)} ms = nodes ${f1(s.nodesMs)} ms + host work outside the nodes (graph build, ` +
    `allocation, input/output copies; one thread by construction) ${f1(s.hostMs)} ms`);
  say(`engine ops: work ${f1(s.engineWork)} ms CPU over all threads; busiest-thread sum ${f1(s.engineBusiest)} ms; their nodes' wall ` +
    `${f1(s.engineWall)} ms (wall − busiest = wake-up, barrier and descheduling: ${f1(s.engineWall - s.engineBusiest)} ms)`);
  if (r.threads > 1) {
    say(`imbalance cost: ${f1(s.waited)} ms a thread spent waiting at barriers for a busier one; serial engine ops: ${f1(s.serialEngineMs)} ms of work`);
  }
  say(`ggml's own ops: ${f1(s.ggmlWall)} ms wall${s.oneThreadNodes > 0 ? `, ${Math.round(s.oneThreadNodes)} node(s) that ggml runs on one thread` : ''}`);
  opTable('by op', r.profile.byOp, r.threads);
  opTable('by model part (matmuls by weight role)', r.profile.byPart, r.threads);
  return s;
}

function compare(byThreads: ThreadRun[]): void {
  if (byThreads.length < 2) return;
  const [base, ...others] = byThreads;
  for (const other of others) {
    say(`\n=== ${base.threads} → ${other.threads} threads, per op (work = CPU ms over all threads; it should stay flat) ===`);
    say(`  ${'op'.padEnd(40)} ${`work@${base.threads}`.padStart(9)} ${`work@${other.threads}`.padStart(9)} ${'growth'.padStart(7)} ` +
      `${`wall@${base.threads}`.padStart(9)} ${`wall@${other.threads}`.padStart(9)} ${'speedup'.padStart(8)}`);
    const names = Object.keys(base.profile.byOp).sort((a, b) => base.profile.byOp[b].ms - base.profile.byOp[a].ms);
    for (const name of names.slice(0, top)) {
      const a = base.profile.byOp[name];
      const b = other.profile.byOp[name];
      if (!b) continue;
      const measured = a.measured > 0 && b.measured > 0;
      say(`  ${name.slice(0, 40).padEnd(40)} ${(measured ? f1(work(a)) : '—').padStart(9)} ${(measured ? f1(work(b)) : '—').padStart(9)} ` +
        `${(measured ? `${((100 * (work(b) - work(a))) / work(a)).toFixed(0)}%` : '—').padStart(7)} ${f1(a.ms).padStart(9)} ${f1(b.ms).padStart(9)} ` +
        `${`${(a.ms / b.ms).toFixed(2)}×`.padStart(8)}`);
    }
    const sa = summarize(base);
    const sb = summarize(other);
    const growth = (sb.engineWork - sa.engineWork) / sa.engineWork;
    const ideal = sa.engineWork / other.threads;
    say(`\nReading (${base.threads} → ${other.threads} threads):`);
    say(`  encoder, profiled: ${f1(base.profiledEncoderMs)} → ${f1(other.profiledEncoderMs)} ms (${(base.profiledEncoderMs / other.profiledEncoderMs).toFixed(2)}×)`);
    say(`  engine-op work ${f1(sa.engineWork)} → ${f1(sb.engineWork)} ms CPU (${(100 * growth).toFixed(0)}%): ${Math.abs(growth) < 0.1
      ? 'flat — the threads do their shares as fast as one thread did'
      : growth > 0 ? 'GROWS — each thread runs its share slower with the other one busy: contention (memory bandwidth, a shared physical core, a lower all-core clock), not engine overhead'
        : 'shrinks (more cache for the two halves together)'}`);
    say(`  of ${f1(sb.engineWall)} ms wall in the engine ops at ${other.threads} threads: ${f1(ideal)} ms is ${base.threads}-thread work ÷ ${other.threads}, ` +
      `${f1(sb.engineWork / other.threads - ideal)} ms the work's growth, ${f1(sb.waited)} ms imbalance, ` +
      `${f1(sb.engineWall - sb.engineBusiest)} ms wake-up/barrier/descheduling`);
    say(`  serial: ${f1(sb.serialEngineMs)} ms of engine-op work on one thread, ${Math.round(sb.oneThreadNodes)} ggml node(s) on one thread ` +
      `(${f1(sb.ggmlWall)} ms wall in all ggml ops), host work outside the nodes ${f1(sa.hostMs)} → ${f1(sb.hostMs)} ms`);
  }
}

function cpuLine(): string {
  const fm = cpuFamilyModel();
  let flags = '';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('flags')) ?? '';
    flags = ['avx2', 'avx512f', 'avx512_vnni', 'amx_tile'].filter((f) => line.split(/\s+/).includes(f)).join(' ');
  } catch {
    flags = '?';
  }
  return `CPU: ${cpus()[0]?.model ?? '?'} × ${cpus().length}${fm ? ` (family ${fm.family}, model ${fm.model})` : ''}; ${flags}; ${coreSharing()}`;
}

const file = modelFile();
const audio = decodeWav(new Uint8Array(readFileSync(speechWithPauses(join(benchCache, 'audio'), seconds))));
const pcm = audio.samples.subarray(0, Math.round(seconds * audio.sampleRate));
const build = buildInfo();
say('bench:threads — the encoder\'s work per op and per CPU thread (test/bench/thread-profile.ts)');
say(cpuLine());
// Above ~0.2 on an otherwise idle machine something else runs: the wall columns then mean little, the work ones still hold.
say(`load average before the run: ${loadavg().map((x) => x.toFixed(2)).join(', ')} (1, 5, 15 min)`);
say(`engine: ggml ${build.ggmlVersion} (${build.ggmlCommit.slice(0, 12)}); model ${shape}${layers ? ` cut to ${layers} layer(s)` : ''} (${file}), ` +
  `weightType ${weightType}, ${(pcm.length / audio.sampleRate).toFixed(1)} s of speech, threads ${threadCounts.join(', ')}, ${runs} profiled run(s) averaged`);
say('work = CPU time inside each thread\'s own share of an engine op (barrier waits excluded); imbal = busiest share ÷ mean share; ' +
  'waited = Σ(busiest − mean): time the other threads spun at the barrier. Wall columns are of the profiled run (node by node).');
const results: ThreadRun[] = [];
for (const threads of threadCounts) results.push(await runAt(file, pcm, threads));
for (const r of results) printRun(r);
compare(results);

if (values.out) {
  // A bare name goes to bench-results/, where every quoted measurement lives; a path is taken as given.
  const named = values.out.includes('/') ? resolve(values.out) : join(benchRoot, 'bench-results', values.out);
  const out = named.endsWith('.txt') ? named : `${named}.txt`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${report.join('\n')}\n`);
  const json = out.replace(/\.txt$/, '') + '.json';
  writeFileSync(json, JSON.stringify({ shape, layers, seconds, weightType, runs, cpu: cpuLine(), results }, null, 2));
  console.log(`wrote ${out} and ${json}`);
}
