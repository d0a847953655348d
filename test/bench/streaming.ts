// `npm run bench:streaming`: cache-aware streaming (issue 39) on random-weight models of the real
// shapes — EOU-120M (parakeet_realtime_eou_120m-v1) and the 0.6B Nemotron EN and Nemotron-3.5 — for
// every attention preset at 1 and 2 threads: per-chunk compute p50/p95, compute as % of the chunk's
// audio, RTFx, first-token latency after speech onset (the wait for the chunk that first hears it,
// mean and worst over onset positions, plus a chunk's compute) and RSS growth from minute 1 to the
// end of a long stream.
//
//   npm run bench:streaming                               all three models, every preset, 1 and 2 threads, 60-min streams
//   npm run bench:streaming -- --quick                    tiny models of the three families, 2 threads, 20 s (smoke run only)
//   npm run bench:streaming -- --models eou --threads 1 --minutes 10 --file f32 --json out.json
//   npm run bench:streaming -- --models nemotron-en --presets 70,6 --threads 1 --minutes 1     one preset (repeat --presets for more)
//   npm run bench:streaming -- --models nemotron-en --presets 70,6 --threads 1 --rss-minutes 60   only the RSS growth over a 60-min stream
//   npm run bench:streaming -- --profile --models nemotron-en --presets 70,6 --threads 1 [--chunks 40]   where a chunk's time goes (stream-profile.ts)
//   --token-rate speech|random    bench models that emit at a speech-like rate (default) or the tests' random-weight rate (see below)
//
// Models are generated once into .cache/bench/models (Q8_0 by default, loaded with weightType auto);
// each configuration runs in its own process (test/bench/stream-run.ts) so its RSS is its own.
// Random weights compute like trained ones but emit tokens at random times, so the first-token
// latency is the schedule's (chunk + right context + mel window, stream-run.ts onsetWaitMs) plus
// the measured chunk compute, i.e. what a model that emits the first word at once would show.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { speechWithPauses } from '../support/audio/speech.js';
import type { ModelOptionsInput, WeightType } from '../support/model/options.js';
import { FAMILY_OPTIONS, STREAMING_FAMILIES, type StreamingFamily } from '../support/model/streaming.js';
import { benchCache, benchRoot, cachedBenchModel } from './models.js';
import { printStreamProfile, profileStream } from './stream-profile.js';
import type { StreamRunResult } from './stream-run.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' }, models: { type: 'string' }, threads: { type: 'string' }, minutes: { type: 'string' },
    file: { type: 'string' }, json: { type: 'string' }, presets: { type: 'string', multiple: true }, 'rss-minutes': { type: 'string' },
    profile: { type: 'boolean' }, chunks: { type: 'string' }, 'token-rate': { type: 'string' },
  },
});

const list = (v: string | undefined, fallback: string[]): string[] => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : fallback);
const quick = values.quick === true;
const families = list(values.models, [...STREAMING_FAMILIES]);
for (const f of families) {
  if (!(STREAMING_FAMILIES as readonly string[]).includes(f)) throw new Error(`--models: ${f} is not one of ${STREAMING_FAMILIES.join(', ')}`);
}
const threadCounts = list(values.threads, quick ? ['2'] : ['1', '2']).map(Number);
const minutes = Number(values.minutes ?? (quick ? '0.34' : '60'));
const fileType = (values.file ?? 'q8_0') as WeightType;
const rssMinutes = values['rss-minutes'] === undefined ? undefined : Number(values['rss-minutes']);
if (rssMinutes !== undefined && !(rssMinutes > 0)) throw new Error(`--rss-minutes: expected a positive number of minutes, got ${values['rss-minutes']}`);
const presetFilter = (values.presets ?? []).map((p) => p.replace(/[[\]\s]/g, ''));

/** The family's presets that --presets names (all without it); a name no family has is an error, listing theirs. */
function presetsOf(family: StreamingFamily): [number, number][] {
  const all = (FAMILY_OPTIONS[family].attContextPresets ?? []).map(([l, r]) => [l, r] as [number, number]);
  if (presetFilter.length === 0) return all;
  const chosen = all.filter(([l, r]) => presetFilter.includes(`${l},${r}`));
  if (chosen.length === 0) {
    throw new Error(`--presets ${presetFilter.join(' ')}: ${family} has none of these (its presets: ${all.map((p) => p.join(',')).join(' ')})`);
  }
  return chosen;
}

// Random weights with the tests' blank bias emit close to max_symbols tokens every encoder frame
// (the 0.6B shape: 9 a frame, 110 a second, 62 per 560 ms chunk), and the RNNT decoder (F32, ≈ 20 MB
// of LSTM and joint weights read per token) then costs more than the encoder: a load no trained model
// puts on it (speech is ≈ 3–4 pieces a second). --token-rate speech (the default) raises the blank
// bias of the bench models (SPEECH_RATE_BLANK_K, found on the bench audio by scratch streams) to a
// speech-like rate: the 0.6B shape at [70,6] emits 1.4–1.9 tokens a 560 ms chunk, EOU-120M at [70,1]
// 0.7 a 160 ms chunk (bench-results/stream-profile-after-shared-cores.txt); --token-rate random keeps
// the tests' bias. Every table says the tokens per chunk it ran at.
const tokenRate = values['token-rate'] ?? 'speech';
if (tokenRate !== 'speech' && tokenRate !== 'random') throw new Error(`--token-rate: expected speech or random, got ${tokenRate}`);
/** Blank bias (schema.ts blankBias, in units of the expected top logit) for a speech-like emission rate per family. */
const SPEECH_RATE_BLANK_K: Readonly<Record<StreamingFamily, number>> = { eou: 1.09, 'nemotron-en': 1.09, 'nemotron-3.5': 1.09 };

/** The real shapes (spec §6.1): EOU-120M 512×17 with V 1026; both 0.6B 1024×24, Nemotron-3.5 with its 13087 pieces. */
const REAL_SIZE: Readonly<Record<StreamingFamily, { label: string; options: ModelOptionsInput }>> = {
  eou: { label: 'EOU-120M', options: { preset: 'shapeEou120m' } },
  'nemotron-en': { label: 'Nemotron-EN 0.6B', options: { preset: 'shape600m', vocabSize: 1024 } },
  'nemotron-3.5': { label: 'Nemotron-3.5 0.6B', options: { preset: 'shape600m', vocabSize: 13087 } },
};

function modelFor(family: StreamingFamily): { label: string; path: string } {
  if (quick) {
    return { label: `tiny ${family}`, path: cachedBenchModel(`stream-tiny-${family}-${fileType}`, { preset: 'tiny', family, weightType: fileType }) };
  }
  const { label, options } = REAL_SIZE[family];
  if (tokenRate === 'random') return { label, path: cachedBenchModel(`stream-${family}-${fileType}`, { ...options, family, weightType: fileType }) };
  const blankBiasK = SPEECH_RATE_BLANK_K[family];
  return { label, path: cachedBenchModel(`stream-${family}-${fileType}-speech-rate`, { ...options, family, weightType: fileType, blankBiasK }) };
}

function runOne(model: string, audio: string, preset: readonly [number, number], threads: number, minutes: number): StreamRunResult {
  const args = [
    '--expose-gc', '--import', 'tsx', join(benchRoot, 'test', 'bench', 'stream-run.ts'), '--model', model, '--audio', audio,
    '--att-context', preset.join(','), '--threads', String(threads), '--minutes', String(minutes),
    // A stream shorter than two minutes measures growth from its first sixth on.
    '--baseline-sec', String(Math.min(60, (minutes * 60) / 6)),
  ];
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] });
  const last = out.trim().split('\n').at(-1);
  if (last === undefined) throw new Error('stream-run printed nothing');
  return JSON.parse(last) as StreamRunResult;
}

interface Row extends StreamRunResult {
  model: string;
}

const num = (v: number, digits = 1): string => (Number.isFinite(v) ? v.toFixed(digits) : '—');

function printRssTable(rows: readonly Row[]): void {
  const header = ['model', 'preset', 'threads', 'minutes', 'RSS at baseline MB', 'RSS at end MB', 'growth MB'];
  const cells = rows.map((r) => [r.model, `[${r.attContext.join(',')}]`, String(r.threads), num(r.audioSeconds / 60),
    `${num(r.rssBaselineMB, 0)} (${num(r.baselineSeconds, 0)} s)`, num(r.rssEndMB, 0), num(r.rssEndMB - r.rssBaselineMB)]);
  printGrid(header, cells);
}

function printGrid(header: string[], cells: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]): string => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
}

function printTable(rows: readonly Row[]): void {
  const header = ['model', 'preset', 'chunk ms', 'threads', 'p50 ms', 'p95 ms', 'compute %', 'RTFx', 'first token ms: alg mean (max) + compute', `RSS ${rows[0]?.baselineSeconds ?? 60} s → end MB`, 'growth MB', 'tokens/chunk'];
  const cells = rows.map((r) => [
    r.model, `[${r.attContext.join(',')}]`, num(r.chunkAudioMs, 0), String(r.threads), num(r.chunkP50Ms, 2), num(r.chunkP95Ms, 2),
    num(r.computePercent), num(r.rtfx), `${num(r.firstTokenAlgorithmicMs + r.firstTokenComputeMs, 0)}: ${num(r.firstTokenAlgorithmicMs, 0)} (${num(r.firstTokenAlgorithmicMaxMs, 0)}) + ${num(r.firstTokenComputeMs, 0)}`,
    `${num(r.rssBaselineMB, 0)} → ${num(r.rssEndMB, 0)}`, num(r.rssEndMB - r.rssBaselineMB), num(r.tokensPerChunk),
  ]);
  printGrid(header, cells);
}

async function main(): Promise<void> {
  const audio = speechWithPauses(join(benchCache, 'speech'), quick ? 10 : 60);
  if (values.profile) {
    const chunks = Number(values.chunks ?? '40');
    const profiles = [];
    for (const family of families as StreamingFamily[]) {
      const { label, path } = modelFor(family);
      for (const preset of presetsOf(family)) {
        const p = await profileStream(path, audio, preset, threadCounts[0], chunks);
        printStreamProfile(`${label} ${fileType}`, p);
        profiles.push({ model: label, ...p });
      }
    }
    if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, profiles }, null, 2)}\n`);
    return;
  }
  const rows: Row[] = [];
  // --rss-minutes alone runs only the long streams for the RSS figure (first thread count); with --minutes too, both.
  const timing = rssMinutes === undefined || values.minutes !== undefined;
  const rssRows: Row[] = [];
  for (const family of families as StreamingFamily[]) {
    const { label, path } = modelFor(family);
    for (const preset of presetsOf(family)) {
      for (const threads of timing ? threadCounts : []) {
        process.stderr.write(`${label} [${preset.join(',')}] ${threads} thread(s), ${minutes} min …\n`);
        rows.push({ model: label, ...runOne(path, audio, preset, threads, minutes) });
      }
      if (rssMinutes !== undefined) {
        process.stderr.write(`${label} [${preset.join(',')}] ${threadCounts[0]} thread(s), ${rssMinutes} min for RSS …\n`);
        rssRows.push({ model: label, ...runOne(path, audio, preset, threadCounts[0], rssMinutes) });
      }
    }
  }
  const note = quick ? ' (--quick: tiny models, numbers mean nothing)' : '';
  if (rows.length > 0) {
    console.log(`\nbench:streaming — ${fileType} files (weightType auto), ${minutes} min streams fed in 10 ms blocks${note}\n`);
    printTable(rows);
  }
  if (rssRows.length > 0) {
    console.log(`\nRSS over ${rssMinutes} min streams — ${fileType} files, ${threadCounts[0]} thread(s)${note}\n`);
    printRssTable(rssRows);
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ timing: rows, rss: rssRows }, null, 2)}\n`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
