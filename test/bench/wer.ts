// `npm run bench:wer`: effects on accuracy, in WER, with the trained digits
// model on the spoken-digits test set (test/support/audio/digits.ts).
//
//   quant   files made with `parakeet quantize` (f16 bf16 q8_0 q5_0 q4_0 q6_k q5_k q4_k) and load-time
//           weightType conversions (f16 bf16 q8_0 q4_0), each against the F32 file as stored
//   noise   white and pink noise (sox's generators) mixed in at 20, 10 and 5 dB SNR
//   long    a ≈ 20-minute file of strings with pauses: one encoder pass, the engine's windows cut at pauses
//           (maxWindowSec 60, 20, 8), fixed cuts every 60 s and 20 s (blind to pauses), and the app's
//           VAD segmenter (as live dictation cuts) with pre-roll 0 and 300 ms
//   vad     the app's segmenter over strings with pauses: pre-roll, VAD threshold and pause length vs WER
//   live    live dictation through the app's real session path (wer-live.ts): the test set's strings with
//           pauses streamed as the capture worklet sends them, finals vs offline (one pass, the app's file
//           windows, the finals' own cuts decoded again); then VAD threshold, pause length and partial
//           cadence vs live WER, partials per second, and whether the finals moved
//
//   npm run bench:wer [-- --only quant,noise,long,vad,live] [--threads N] [--json bench-results/wer.json]
//
// Results JSON in bench-results/wer.json (and the printed tables in bench-results/wer.txt).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { evaluateFolder, type EvalReport } from '../../app/cli/eval.js';
import { Segmenter } from '../../app/main/sessions/segmenter.js';
import { DEFAULT_DICTATION } from '../../app/ipc/settings.js';
import { errorRates, type EditCounts } from '../../app/shared/wer.js';
import { FILE_WINDOW_SEC } from '../../app/main/engine/engine-host.js';
import { closeApp, decodeCutsOffline, dictate, onePass, openApp, type LiveDictation } from './wer-live.js';
import { alignFinals, finalsDiffer, planSweep, type FinalCut } from './wer-live-plan.js';
import { buildInfo, Model, type WeightType } from '../../native/index.js';
import {
  concatenate, type Concatenation, DIGITS_MODEL, ensureDigitsSet, ensureNoisySet, readWav16, REPO_ROOT, TEST_SET, writeWav16, type DigitsSetOptions,
} from '../support/audio/digits.js';

const { values } = parseArgs({
  options: { only: { type: 'string' }, threads: { type: 'string' }, json: { type: 'string' }, model: { type: 'string' } },
});
const parts = new Set((values.only ?? 'quant,noise,long,vad,live').split(','));
const threads = values.threads ? Number(values.threads) : undefined;
const modelPath = values.model ?? DIGITS_MODEL;
const jsonPath = values.json ?? join(REPO_ROOT, 'bench-results', 'wer.json');
const work = join(REPO_ROOT, '.cache', 'bench-wer');
mkdirSync(work, { recursive: true });

const out: string[] = [];
function say(line = ''): void {
  console.log(line);
  out.push(line);
}
/** Lines printed since the last call: one part's table, kept in the JSON so a later --only run can rewrite wer.txt. */
let tableFrom = 0;
function takeTable(): string[] {
  const lines = out.slice(tableFrom);
  tableFrom = out.length;
  return lines;
}
const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;

interface Row {
  label: string;
  wer: number;
  cer: number;
  words: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  decodeMs: number;
  audioSec: number;
  [extra: string]: unknown;
}

function rowOf(label: string, word: EditCounts, char: EditCounts, decodeMs: number, audioSec: number, extra: Record<string, unknown> = {}): Row {
  return {
    label, wer: word.errors / Math.max(1, word.n), cer: char.errors / Math.max(1, char.n), words: word.n,
    substitutions: word.substitutions, deletions: word.deletions, insertions: word.insertions, decodeMs, audioSec, ...extra,
  };
}

function fromReport(label: string, r: EvalReport, extra: Record<string, unknown> = {}): Row {
  return rowOf(label, r.total.word, r.total.char, r.total.decodeMs, r.total.audioSec, { weightTypes: r.weightTypes, ...extra });
}

function table(rows: Row[], extraCols: [string, (r: Row) => string][] = []): void {
  const w = Math.max(5, ...rows.map((r) => r.label.length));
  // Extra columns as wide as their header or widest value, values right-aligned like the rest.
  const cells = rows.map((r) => extraCols.map(([, f]) => f(r)));
  const widths = extraCols.map(([h], k) => Math.max(h.length, ...cells.map((c) => c[k]!.length)));
  const extras = (values: string[]): string => values.map((v, k) => `  ${v.padStart(widths[k]!)}`).join('').trimEnd();
  say(`${'what'.padEnd(w)}  ${'WER'.padStart(7)}  ${'CER'.padStart(7)}  ${'S/D/I'.padStart(11)}  ${'words'.padStart(6)}  ${'RTFx'.padStart(5)}${extras(extraCols.map(([h]) => h))}`);
  rows.forEach((r, i) => {
    const sdi = `${r.substitutions}/${r.deletions}/${r.insertions}`;
    const rtf = r.decodeMs > 0 ? (r.audioSec / (r.decodeMs / 1000)).toFixed(0) : '-';
    say(`${r.label.padEnd(w)}  ${pct(r.wer).padStart(7)}  ${pct(r.cer).padStart(7)}  ${sdi.padStart(11)}  ${String(r.words).padStart(6)}  ${rtf.padStart(5)}${extras(cells[i]!)}`);
  });
  say();
}

const typesOf = (t: unknown): string => Object.entries((t ?? {}) as Record<string, number>).map(([k, n]) => `${k}×${n}`).join(' ');

// With --only, the other parts' results already in the JSON are kept (each part records its own date).
const previous: Record<string, unknown> = values.only && existsSync(jsonPath) ? JSON.parse(readFileSync(jsonPath, 'utf8')) : {};
const tables: Record<string, string[]> = (previous.tables as Record<string, string[]>) ?? {};
const results: Record<string, unknown> = {
  ...previous,
  date: new Date().toISOString(),
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  ggml: buildInfo(),
  model: modelPath,
  threads: threads ?? 'all',
};
function save(part?: string): void {
  if (part) {
    tables[part] = takeTable();
    (results[part] as Record<string, unknown>).date = new Date().toISOString();
  }
  results.tables = tables;
  mkdirSync(join(jsonPath, '..'), { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  const order = ['quant', 'noise', 'long', 'vad', 'live'].filter((k) => tables[k]);
  writeFileSync(jsonPath.replace(/\.json$/, '.txt'), `${header.join('\n')}\n\n${order.map((k) => tables[k].join('\n')).join('\n')}\n`);
}

const started = Date.now();
const set = ensureDigitsSet('test', TEST_SET);
const setWords = set.items.reduce((n, it) => n + it.text.split(' ').length, 0);
const setAudio = set.items.reduce((s, it) => s + it.durationSec, 0);
results.testSet = { dir: set.dir, options: TEST_SET, files: set.items.length, words: setWords, audioSec: setAudio };
say(`Digits model ${modelPath}; test set ${set.items.length} files, ${setWords} words, ${setAudio.toFixed(0)} s (${set.dir})`);
say(`CPU: ${cpus()[0]?.model ?? '?'} × ${cpus().length}; threads ${threads ?? 'all'}`);
say();
const header = takeTable().filter(Boolean);

// ---------------------------------------------------------------- quantization
if (parts.has('quant')) {
  const rows: Row[] = [];
  const base = await evaluateFolder(set.dir, { model: modelPath, threads });
  rows.push(fromReport('F32 file (as stored)', base, { file: 'f32', fileBytes: 0 }));
  for (const type of ['f16', 'bf16', 'q8_0', 'q5_0', 'q4_0', 'q6_k', 'q5_k', 'q4_k']) {
    const file = join(work, `digits-${type}.gguf`);
    execFileSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'app', 'cli', 'main.ts'), 'quantize', modelPath, file, type], { stdio: 'ignore' });
    const r = await evaluateFolder(set.dir, { model: file, threads });
    rows.push(fromReport(`file ${type} (parakeet quantize)`, r, { file: type }));
  }
  for (const wt of ['f16', 'bf16', 'q8_0', 'q4_0'] as WeightType[]) {
    const r = await evaluateFolder(set.dir, { model: modelPath, threads, weightType: wt });
    rows.push(fromReport(`F32 file, weightType ${wt} at load`, r, { weightType: wt }));
  }
  say('Quantization (matmul weights as placed; a type the rows do not fit — 144 columns are not a multiple of a');
  say('32-block for the Q-types nor of 256 for the K-quants — stays F32):');
  table(rows, [['placed weights', (r) => typesOf(r.weightTypes)]]);
  results.quant = { rows };
  save('quant');
}

// ---------------------------------------------------------------- noise
if (parts.has('noise')) {
  const rows: Row[] = [];
  const clean = await evaluateFolder(set.dir, { model: modelPath, threads });
  rows.push(fromReport('clean', clean, { noise: 'none', snrDb: null }));
  for (const kind of ['white', 'pink'] as const) {
    for (const snr of [20, 10, 5]) {
      const noisy = ensureNoisySet(set, kind, snr);
      rows.push(fromReport(`${kind} noise ${snr} dB SNR`, await evaluateFolder(noisy.dir, { model: modelPath, threads }), { noise: kind, snrDb: snr }));
    }
  }
  say('Background noise (sox synth whitenoise/pinknoise, scaled to the SNR over each whole utterance):');
  table(rows);
  results.noise = { rows };
  save('noise');
}

// ---------------------------------------------------------------- long audio and segmentation
async function decodeCuts(model: Model, pcm: Float32Array, cuts: [number, number][]): Promise<{ text: string; ms: number }> {
  const texts: string[] = [];
  let ms = 0;
  for (const [a, b] of cuts) {
    if (b - a < 1600) continue; // under 0.1 s: nothing the engine could hear
    const r = await model.transcribe(pcm.subarray(a, b), { sampleRate: 16000 });
    texts.push(r.text.trim());
    ms += r.timings.totalMs;
  }
  return { text: texts.filter(Boolean).join(' '), ms };
}

function segmenterCuts(pcm: Float32Array, opts: { preRollMs: number; pauseMs: number; thresholdDb: number; maxSegmentSec?: number }): [number, number][] {
  const seg = new Segmenter({ sampleRate: 16000, maxSegmentSec: opts.maxSegmentSec ?? DEFAULT_DICTATION.maxSegmentSec, ...opts });
  const events = [];
  // Fed in 40 ms frames, as the renderer sends them.
  for (let i = 0; i < pcm.length; i += 640) events.push(...seg.push(pcm.subarray(i, Math.min(pcm.length, i + 640))));
  events.push(...seg.finish());
  return events.filter((e) => e.type === 'close').map((e) => [(e as { start: number }).start, (e as { end: number }).end]);
}

/** `pcm` with sox's `kind` noise over all of it, `snrDb` below the mean power of the strings (cat.parts). */
function withNoise(pcm: Float32Array, cat: Concatenation, kind: 'white' | 'pink', snrDb: number): Float32Array {
  const path = join(work, `noise-${kind}-${pcm.length}.wav`);
  execFileSync('sox', ['-R', '-r', '16000', '-n', '-r', '16000', '-c', '1', '-b', '16', path, 'synth', `${pcm.length}s`, `${kind}noise`, 'vol', '0.5']);
  const noise = readWav16(path).samples;
  let ps = 0;
  let count = 0;
  for (const p of cat.parts) {
    for (let i = Math.round(p.start * 16000); i < Math.min(pcm.length, Math.round(p.end * 16000)); i++) {
      ps += pcm[i] * pcm[i];
      count += 1;
    }
  }
  let pn = 0;
  for (let i = 0; i < pcm.length; i++) pn += noise[i] * noise[i];
  const gain = Math.sqrt(ps / count / (pn / pcm.length) / 10 ** (snrDb / 10));
  return Float32Array.from(pcm, (x, i) => x + gain * noise[i]);
}

if (parts.has('long')) {
  // ≈ 20 minutes: 6 voices × 64 strings, pauses of 0.5–1.5 s (seeded).
  const LONG: DigitsSetOptions = { seed: 0x10_9a0d, perVoice: 64 };
  const long = ensureDigitsSet('long', LONG);
  const cat = concatenate(long.items, join(long.dir, '..', `${long.dir.split('/').at(-1)}.joined`, 'long.wav'),
    { seed: 0x9a05e, pauseMin: 0.5, pauseMax: 1.5, leadSec: 0.5, tailSec: 1 });
  const pcm = readWav16(cat.wav).samples;
  const model = await Model.load(modelPath, { threads });
  const rows: Row[] = [];
  const score = (label: string, text: string, ms: number, extra: Record<string, unknown> = {}): void => {
    const r = errorRates(cat.text, text);
    rows.push(rowOf(label, r.word, r.char, ms, cat.durationSec, extra));
    console.log(`  ${label}: WER ${pct(r.wer)}`);
  };
  try {
    // Per string, as the strings were spoken (the reference point: what the model does on isolated clips).
    let isolatedMs = 0;
    const isolated: string[] = [];
    for (const it of long.items) {
      const a = readWav16(it.wav);
      const r = await model.transcribe(a.samples, { sampleRate: a.sampleRate });
      isolated.push(r.text.trim());
      isolatedMs += r.timings.totalMs;
    }
    score('each string alone (its own clip)', isolated.join(' '), isolatedMs, { strategy: 'isolated' });
    try {
      const one = await model.transcribe(pcm, { sampleRate: 16000, maxWindowSec: Math.ceil(cat.durationSec) + 1 });
      score('one pass (one window)', one.text, one.timings.totalMs, { strategy: 'one-pass', windows: one.windows.length });
    } catch (error) {
      rows.push({ ...rowOf('one pass (one window)', { n: 0, hits: 0, substitutions: 0, deletions: 0, insertions: 0, errors: 0 }, { n: 0, hits: 0, substitutions: 0, deletions: 0, insertions: 0, errors: 0 }, 0, cat.durationSec), error: String(error) });
    }
    for (const maxWindowSec of [60, 20, 8]) {
      const r = await model.transcribe(pcm, { sampleRate: 16000, maxWindowSec });
      score(`engine windows at pauses, ≤ ${maxWindowSec} s`, r.text, r.timings.totalMs, { strategy: 'windows', maxWindowSec, windows: r.windows.length });
    }
    for (const every of [60, 20]) {
      const cuts: [number, number][] = [];
      for (let a = 0; a < pcm.length; a += every * 16000) cuts.push([a, Math.min(pcm.length, a + every * 16000)]);
      const r = await decodeCuts(model, pcm, cuts);
      score(`fixed cuts every ${every} s`, r.text, r.ms, { strategy: 'fixed', everySec: every, windows: cuts.length });
    }
    for (const preRollMs of [0, 300]) {
      const cuts = segmenterCuts(pcm, { preRollMs, pauseMs: DEFAULT_DICTATION.pauseMs, thresholdDb: DEFAULT_DICTATION.vadThresholdDb });
      const r = await decodeCuts(model, pcm, cuts);
      score(`app VAD segments, pre-roll ${preRollMs} ms`, r.text, r.ms, { strategy: 'segmenter', preRollMs, windows: cuts.length });
    }
  } finally {
    model.dispose();
  }
  say(`Long audio: ${long.items.length} strings, ${cat.durationSec.toFixed(0)} s (${(cat.durationSec / 60).toFixed(1)} min) with 0.5–1.5 s pauses of digital silence:`);
  table(rows, [['windows', (r) => (r.windows === undefined ? '' : String(r.windows))]]);
  results.long = { file: cat.wav, durationSec: cat.durationSec, strings: long.items.length, words: cat.text.split(' ').length, rows };
  save('long');
}

// ---------------------------------------------------------------- VAD settings vs WER
/** 60 strings of the test set with 1.0–1.5 s pauses of digital silence (the vad and live sweeps' audio). */
function vadAudio(): { cat: Concatenation; items: typeof set.items } {
  const items = set.items.filter((_, i) => i % 5 < 2);
  return { items, cat: concatenate(items, join(work, 'vad.wav'), { seed: 0x7ad, pauseMin: 1.0, pauseMax: 1.5, leadSec: 0.6, tailSec: 1.5 }) };
}

if (parts.has('vad')) {
  // Cut by the app's segmenter (the live path's cut points).
  const { items, cat } = vadAudio();
  const pcm = readWav16(cat.wav).samples;
  const model = await Model.load(modelPath, { threads });
  const d = DEFAULT_DICTATION;
  const rows: Row[] = [];
  try {
    // The same file with pink noise over all of it at 20 dB below the speech (power over the strings only):
    // digital silence makes any threshold find the pauses; a noise floor makes the threshold matter.
    const noisy = withNoise(pcm, cat, 'pink', 20);
    const configs: { preRollMs: number; pauseMs: number; thresholdDb: number; noisy?: boolean }[] = [];
    for (const preRollMs of [0, 50, 100, 300, 600]) configs.push({ preRollMs, pauseMs: d.pauseMs, thresholdDb: d.vadThresholdDb });
    for (const pauseMs of [200, 400, 1000]) configs.push({ preRollMs: 0, pauseMs, thresholdDb: d.vadThresholdDb });
    for (const preRollMs of [0, 300]) {
      for (const thresholdDb of [4, 6, 10, 16, 24]) configs.push({ preRollMs, pauseMs: d.pauseMs, thresholdDb, noisy: true });
    }
    for (const c of configs) {
      const audio = c.noisy ? noisy : pcm;
      const cuts = segmenterCuts(audio, c);
      const r = await decodeCuts(model, audio, cuts);
      const e = errorRates(cat.text, r.text);
      const label = `${c.noisy ? 'pink 20 dB: ' : ''}pre-roll ${c.preRollMs} ms, threshold ${c.thresholdDb} dB, pause ${c.pauseMs} ms`;
      rows.push(rowOf(label, e.word, e.char, r.ms, cat.durationSec, { ...c, noisy: Boolean(c.noisy), segments: cuts.length }));
    }
  } finally {
    model.dispose();
  }
  say(`Live segmentation (the app's VAD segmenter over ${items.length} strings with 1.0–1.5 s pauses of digital silence, then with pink`);
  say(`noise 20 dB below the speech over all of it; defaults: pre-roll ${d.preRollMs} ms, threshold ${d.vadThresholdDb} dB, pause ${d.pauseMs} ms):`);
  table(rows, [['segments', (r) => String(r.segments)]]);
  results.vad = { strings: items.length, words: cat.text.split(' ').length, rows };
  save('vad');
}

// ---------------------------------------------------------------- live dictation vs offline, settings vs live WER
if (parts.has('live')) {
  /** Times real time the frames are sent at. The finals do not depend on it (cuts are sample-exact); partials do. */
  const SPEED = 16;
  /** Strings of the real-time partial-cadence runs. */
  const CADENCE_STRINGS = 8;
  const d = DEFAULT_DICTATION;
  const app = await openApp(modelPath, threads);
  const { services } = app;
  const liveCols: [string, (r: Row) => string][] = [
    ['segments', (r) => (r.segments === undefined ? '' : String(r.segments))],
    ['exact strings', (r) => (r.exact === undefined ? '' : `${r.exact}/${r.strings}`)],
    ['merged/split', (r) => (r.merged === undefined ? '' : `${r.merged}/${r.split}`)],
    ['partials/s', (r) => (r.partialsPerSec === undefined ? '' : (r.partialsPerSec as number).toFixed(2))],
    ['decodes/s', (r) => (r.partialDecodesPerSec === undefined ? '' : (r.partialDecodesPerSec as number).toFixed(2))],
    ['finals = offline', (r) => (r.sameAsOffline === undefined ? '' : `${r.sameAsOffline}/${r.segments}`)],
  ];
  /** A live run's row: WER of its finals, where they fell, its partials, and its cuts decoded again offline. */
  const liveRow = async (label: string, pcm: Float32Array, strings: Concatenation['parts'], reference: string, r: LiveDictation, extra: Record<string, unknown>): Promise<Row> => {
    const e = errorRates(reference, r.text);
    const al = alignFinals(r.finals, strings, 16000);
    const again = await decodeCutsOffline(services, pcm, r.finals);
    console.log(`  ${label}: WER ${pct(e.wer)} (${r.wallSec.toFixed(0)} s)`);
    return rowOf(label, e.word, e.char, 0, r.audioSec, {
      ...extra, segments: r.finals.length, strings: strings.length, exact: al.exact, merged: al.merged, split: al.split, stray: al.stray,
      partialEvents: r.partialEvents, partialDecodes: r.partialDecodes, partialsSkipped: r.partialsSkipped,
      partialsPerSec: r.partialEvents / r.wallSec, partialDecodesPerSec: r.partialDecodes / r.wallSec,
      sameAsOffline: again.filter((t, i) => t === r.finals[i]!.text.trim()).length,
      meanFinalMs: r.meanFinalMs, wallSec: r.wallSec, framesIntact: r.framesIntact,
    });
  };
  try {
    // The whole test set as one dictation: the strings with 1.0–1.5 s pauses of digital silence.
    const cat = concatenate(set.items, join(work, 'live.wav'), { seed: 0x11fe, pauseMin: 1.0, pauseMax: 1.5, leadSec: 0.6, tailSec: 1.5 });
    const pcm = readWav16(cat.wav).samples;
    const rows: Row[] = [];
    const offline = (label: string, text: string, ms: number, extra: Record<string, unknown>): void => {
      const e = errorRates(cat.text, text);
      rows.push(rowOf(label, e.word, e.char, ms, cat.durationSec, extra));
      console.log(`  ${label}: WER ${pct(e.wer)}`);
    };
    let aloneMs = 0;
    const alone: string[] = [];
    for (const it of set.items) {
      const r = await services.engine.transcribe(readWav16(it.wav).samples, { sampleRate: 16000 }, { priority: 'final' });
      alone.push(r?.text.trim() ?? '');
      aloneMs += r?.timings.totalMs ?? 0;
    }
    offline('offline: each string alone (its own clip)', alone.join(' '), aloneMs, { strategy: 'isolated' });
    const one = await onePass(services, pcm);
    offline('offline: one pass (one window)', one.text, one.ms, { strategy: 'one-pass' });
    const file = await services.files.transcribe(cat.wav);
    offline(`offline: the app's file windows (≤ ${FILE_WINDOW_SEC} s, at pauses)`, file.text, file.elapsedMs, { strategy: 'file' });
    // A microphone never gives digital silence: the same file over a pink noise floor 30 dB below the speech.
    const floorWav = join(work, 'live-floor-pink-30db.wav');
    writeWav16(floorWav, withNoise(pcm, cat, 'pink', 30));
    const floorPcm = readWav16(floorWav).samples;
    for (const audio of ['clean', 'floor'] as const) {
      const samples = audio === 'floor' ? floorPcm : pcm;
      const on = audio === 'floor' ? 'pink 30 dB: ' : '';
      if (audio === 'floor') {
        const f = await services.files.transcribe(floorWav);
        const e = errorRates(cat.text, f.text);
        rows.push(rowOf(`${on}offline: the app's file windows`, e.word, e.char, f.elapsedMs, cat.durationSec, { strategy: 'file', audio }));
      }
      for (const preRollMs of [0, d.preRollMs]) {
        const settings = { ...d, preRollMs };
        const r = await dictate(services, samples, settings, SPEED);
        // The session's cuts against the segmenter run alone over the same audio (40 ms frames).
        const cuts = segmenterCuts(samples, { preRollMs, pauseMs: d.pauseMs, thresholdDb: d.vadThresholdDb });
        const sameCuts = cuts.length === r.finals.length && cuts.every(([a, b], i) => r.finals[i]!.startSample === a && r.finals[i]!.endSample === b);
        const label = `${on}live ${SPEED}×: pre-roll ${preRollMs} ms${preRollMs === d.preRollMs ? ' (default)' : ''}`;
        rows.push(await liveRow(label, samples, cat.parts, cat.text, r, { strategy: 'live', audio, settings, speed: SPEED, cutsAsSegmenter: sameCuts }));
      }
    }
    say(`Live dictation vs offline: the test set's ${set.items.length} strings as one dictation, ${cat.durationSec.toFixed(0)} s with 1.0–1.5 s pauses of`);
    say(`digital silence (then with pink noise 30 dB below the speech over all of it), through the app's services (engine process,`);
    say(`sessions, segmenter), 20 ms frames at ${SPEED}× real time; other settings default (threshold ${d.vadThresholdDb} dB, pause ${d.pauseMs} ms, partials`);
    say(`every ${d.partialIntervalMs} ms; partials/s and decodes/s per wall second). "finals = offline": each final's cut decoded again offline by the`);
    say('same engine gives the same text. "exact strings": strings whose finals are exactly their words; merged/split: finals over two');
    say('strings / strings cut in two:');
    table(rows, liveCols);
    const cutsAsSegmenter = rows.filter((r) => r.strategy === 'live').every((r) => r.cutsAsSegmenter === true);
    say(`The live sessions' cuts ${cutsAsSegmenter ? 'are exactly' : 'DIFFER from'} those of the segmenter run alone over the same audio (the vad table's method).`);
    say();
    const main = { file: cat.wav, durationSec: cat.durationSec, strings: cat.parts.length, words: cat.text.split(' ').length, rows };

    // The sweep: one setting at a time from pre-roll 0 ms (what this model needs), on the vad part's 60 strings.
    const { cat: vcat } = vadAudio();
    const clean = readWav16(vcat.wav).samples;
    const floor = withNoise(clean, vcat, 'pink', 20);
    // The energy VAD: this sweep varies its threshold (npm run bench:vad compares it with Silero).
    const base = { ...d, preRollMs: 0, vadModel: 'energy' as const };
    const sweepRows: Row[] = [];
    for (const run of planSweep({
      base, speed: SPEED,
      axes: { pauseMs: [300, d.pauseMs, 1000], vadThresholdDb: [6, d.vadThresholdDb, 16] },
      audioOf: { vadThresholdDb: 'floor' },
    })) {
      const audio = run.audio === 'floor' ? floor : clean;
      const r = await dictate(services, audio, run.settings, run.speed);
      const label = `${run.audio === 'floor' ? 'pink 20 dB: ' : 'clean: '}${run.label}`;
      sweepRows.push(await liveRow(label, audio, vcat.parts, vcat.text, r, { settings: run.settings, audio: run.audio, speed: run.speed }));
    }
    say(`Live settings sweep (${vcat.parts.length} strings, ${vcat.durationSec.toFixed(0)} s with 1.0–1.5 s pauses; base: pre-roll 0 ms, threshold ${d.vadThresholdDb} dB, pause ${d.pauseMs} ms;`);
    say(`${SPEED}× real time; the VAD threshold over pink noise 20 dB below the speech, where it matters — the vad table's audio):`);
    table(sweepRows, liveCols);

    // Partial cadence is wall-clock time: real time, on the first strings; finals compared with the default cadence's.
    const end = Math.round((vcat.parts[CADENCE_STRINGS]!.start - 0.05) * 16000);
    const short = clean.slice(0, end);
    const shortStrings = vcat.parts.slice(0, CADENCE_STRINGS);
    const shortText = shortStrings.map((p) => p.text).join(' ');
    const cadenceRows: Row[] = [];
    const cadenceFinals: FinalCut[][] = [];
    const runs = [
      ...planSweep({ base, speed: 1, axes: { partialIntervalMs: [100, d.partialIntervalMs, 1000] } }),
      { label: `base at ${SPEED}× real time`, axis: null, settings: base, audio: 'clean' as const, speed: SPEED },
    ];
    for (const run of runs) {
      const r = await dictate(services, short, run.settings, run.speed);
      cadenceFinals.push(r.finals);
      cadenceRows.push(await liveRow(`${run.label === 'base' ? `partials every ${d.partialIntervalMs} ms (default)` : run.label}, ${run.speed}×`, short, shortStrings, shortText, r,
        { settings: run.settings, speed: run.speed }));
    }
    const reference = cadenceFinals[runs.findIndex((r) => r.label === 'base')]!;
    cadenceRows.forEach((row, i) => (row.finalsDifferFromDefault = finalsDiffer(reference, cadenceFinals[i]!)));
    say(`Partial cadence (${CADENCE_STRINGS} strings, ${(short.length / 16000).toFixed(0)} s, real time; base as above; partials/s: transcripts emitted (only when the text`);
    say(`changed) and open-segment decodes run, per second; "finals moved": finals that differ in cut or text from the default cadence's):`);
    table(cadenceRows, [...liveCols, ['finals moved', (r) => String(r.finalsDifferFromDefault)]]);
    results.live = { speed: SPEED, main, sweep: { strings: vcat.parts.length, rows: sweepRows }, cadence: { strings: CADENCE_STRINGS, audioSec: short.length / 16000, rows: cadenceRows } };
  } finally {
    await closeApp(app);
  }
  save('live');
}

console.log(`bench:wer took ${((Date.now() - started) / 1000).toFixed(0)} s`);
save();
console.log(`wrote ${jsonPath}`);
