// VAD benchmark: the bundled Silero VAD (on the engine) next to the app's energy VAD (Segmenter), on
// espeak-ng digit strings with 0.5–3 s pauses, mixed with white or pink noise at 20 / 10 / 5 / 0 dB SNR.
// Prints a table:
//   precision / recall of speech frames (32 ms) against the reference labelling (a frame is speech when
//   espeak-ng's word events put a word in it), for the segments each VAD gives the app;
//   first-word clipping rate (utterances whose first word starts before its segment, by more than half
//   the word: the word is lost);
//   words the trained digits model emits on the non-speech set (silence, noises, hum, clicks, tones at
//   three levels; 10 minutes in all, --quick: 1) when each VAD cuts it;
//   VAD cost as % of real time (one thread; this machine's number, not a measurement to quote elsewhere);
//   silence guards (silence-guards.ts): words on the non-speech set and WER on the held-out-style set (digit
//   strings with 0.5–3 s of silence or noise between them) with no VAD, the energy VAD, Silero, and Silero
//   with each guard (edge trim, confidence floor), for the trained digits model and a generated model; and
//   the confidence of the least sure word kept on speech next to the surest word emitted into non-speech.
//
//   npm run bench:vad -- [--quick] [--utterances N] [--model silero.gguf] [--asr digits.gguf] [--held-out-seed N] [--list-errors]
// --held-out-seed: another draw of the held-out-style set (voices, strings, gaps; the default is 0x6a99 = 27289),
// to see whether a row's WER difference carries over to other strings; --list-errors: under the app cut's row, each
// window whose text differs from its strings (its start against the first word, the reference, the text).
// --quick: 6 utterances, 1 minute of non-speech, 12 held-out strings (a smoke run, about a minute);
// the full run: 60 utterances, 10 minutes of non-speech, 120 held-out strings.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Model, VadModel } from '../../native/index.js';
import { DEFAULT_DICTATION } from '../../app/ipc/settings.js';
import { bundledVadModel } from '../../app/main/vad/bundled-silero.js';
import { Segmenter } from '../../app/main/sessions/segmenter.js';
import { DEFAULT_VAD_SEGMENT_OPTIONS, speechSegments, type SampleSegment } from '../../app/shared/vad-segments.js';
import { DIGITS_MODEL, REPO_ROOT, ensureDigitsSet, prng, readWav16, type WordTiming } from '../support/audio/digits.js';
import { nonSpeech, nonSpeechSet } from '../support/audio/non-speech.js';
import { silenceGuardsTable } from './vad-guards.js';
import { concat } from '../support/audio/signals.js';

const RATE = 16000;
const FRAME = 512;
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    utterances: { type: 'string' },
    model: { type: 'string' },
    asr: { type: 'string', default: DIGITS_MODEL },
    'held-out-seed': { type: 'string' },
    'list-errors': { type: 'boolean', default: false },
  },
});
const quick = values.quick;
const heldOutSeed = values['held-out-seed'] === undefined ? undefined : Number(values['held-out-seed']);
if (heldOutSeed !== undefined && !(Number.isInteger(heldOutSeed) && heldOutSeed >= 0)) {
  throw new Error(`--held-out-seed takes a whole number >= 0, not "${values['held-out-seed']}"`);
}
const utteranceCount = Number(values.utterances ?? (quick ? 6 : 60));

interface Stream {
  pcm: Float32Array;
  /** Reference: speech per 32 ms frame. */
  speech: Uint8Array;
  /** Each utterance's first word, in samples. */
  firstWords: { start: number; end: number }[];
}

/** The utterances with seeded 0.5–3 s pauses, and the reference labelling from espeak-ng's word events. */
function cleanStream(): Stream {
  const set = ensureDigitsSet('bench-vad', { seed: 0xbe4c, perVoice: Math.ceil(utteranceCount / 6) });
  const items = set.items.slice(0, utteranceCount);
  const random = prng(0x9a05);
  const parts: Float32Array[] = [];
  const words: WordTiming[] = [];
  const firstWords: Stream['firstWords'] = [];
  let at = RATE;
  parts.push(new Float32Array(RATE));
  for (const item of items) {
    const pcm = readWav16(item.wav).samples;
    for (const w of item.words) words.push({ text: w.text, start: w.start + at / RATE, end: w.end + at / RATE });
    firstWords.push({ start: at + Math.round(item.words[0]!.start * RATE), end: at + Math.round(item.words[0]!.end * RATE) });
    const pause = new Float32Array(Math.round((0.5 + random() * 2.5) * RATE));
    parts.push(pcm, pause);
    at += pcm.length + pause.length;
  }
  const pcm = concat(...parts);
  const speech = new Uint8Array(Math.ceil(pcm.length / FRAME));
  for (const w of words) {
    for (let f = Math.floor((w.start * RATE) / FRAME); f < Math.ceil((w.end * RATE) / FRAME) && f < speech.length; f++) speech[f] = 1;
  }
  return { pcm, speech, firstWords };
}

function rms(x: Float32Array, mask?: Uint8Array): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    if (mask && !mask[Math.floor(i / FRAME)]) continue;
    sum += x[i]! * x[i]!;
    n += 1;
  }
  return Math.sqrt(sum / Math.max(1, n));
}

/** The stream with noise at `snrDb` below the speech's RMS (over speech frames). */
function withNoise(s: Stream, kind: 'white' | 'pink', snrDb: number): Float32Array {
  const noise = nonSpeech(kind, s.pcm.length / RATE + 1, rms(s.pcm, s.speech) / 10 ** (snrDb / 20), snrDb + 100);
  return s.pcm.map((v, i) => v + noise[i]!);
}

async function sileroSegments(vad: VadModel, pcm: Float32Array): Promise<{ segments: SampleSegment[]; ms: number }> {
  const started = performance.now();
  const stream = vad.createStream(16000);
  const probs = Float32Array.from([...await stream.process(pcm), ...await stream.flush()]);
  const ms = performance.now() - started;
  stream.dispose();
  return { segments: speechSegments(probs, FRAME, RATE, pcm.length, { ...DEFAULT_VAD_SEGMENT_OPTIONS, minSilenceMs: DEFAULT_DICTATION.vadMinSilenceMs }), ms };
}

function energySegments(pcm: Float32Array): { segments: SampleSegment[]; ms: number } {
  const started = performance.now();
  const d = DEFAULT_DICTATION;
  const seg = new Segmenter({ sampleRate: RATE, pauseMs: d.pauseMs, maxSegmentSec: d.maxSegmentSec, preRollMs: d.preRollMs, thresholdDb: d.vadThresholdDb });
  const events = [];
  for (let i = 0; i < pcm.length; i += 640) events.push(...seg.push(pcm.subarray(i, i + 640)));
  events.push(...seg.finish());
  const segments = events.flatMap((e) => (e.type === 'close' ? [{ start: e.start, end: e.end }] : []));
  return { segments, ms: performance.now() - started };
}

function frameScores(segments: readonly SampleSegment[], reference: Uint8Array): { precision: number; recall: number } {
  const said = new Uint8Array(reference.length);
  for (const s of segments) for (let f = Math.floor(s.start / FRAME); f < Math.ceil(s.end / FRAME) && f < said.length; f++) said[f] = 1;
  let tp = 0, fp = 0, fn = 0;
  for (let f = 0; f < reference.length; f++) {
    if (said[f] && reference[f]) tp++;
    else if (said[f]) fp++;
    else if (reference[f]) fn++;
  }
  return { precision: tp / Math.max(1, tp + fp), recall: tp / Math.max(1, tp + fn) };
}

/** Utterances whose first word begins before its segment by more than half the word (the word is lost). */
function clippingRate(segments: readonly SampleSegment[], firstWords: Stream['firstWords']): number {
  let clipped = 0;
  for (const w of firstWords) {
    const mid = (w.start + w.end) / 2;
    const seg = segments.find((s) => s.end > w.start && s.start < w.end);
    if (!seg || seg.start > mid) clipped += 1;
  }
  return clipped / Math.max(1, firstWords.length);
}

async function wordsIn(asr: Model | null, pcm: Float32Array, segments: readonly SampleSegment[]): Promise<number | null> {
  if (!asr) return null;
  let words = 0;
  for (const s of segments) words += (await asr.transcribe(pcm.slice(s.start, s.end), { sampleRate: RATE })).words.length;
  return words;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

async function main(): Promise<void> {
  const vadPath = values.model ?? await bundledVadModel(join(REPO_ROOT, '.cache', 'vad'), REPO_ROOT);
  const vad = await VadModel.load(vadPath);
  const asr = existsSync(values.asr) ? await Model.load(values.asr, { threads: 1 }) : null;
  const clean = cleanStream();
  const audioSec = clean.pcm.length / RATE;
  process.stdout.write(`VAD bench: ${utteranceCount} espeak-ng digit strings, ${audioSec.toFixed(0)} s; Silero ${vad.info().sourceVersion} ` +
    `(${vadPath}) vs the energy VAD (threshold ${DEFAULT_DICTATION.vadThresholdDb} dB, pre-roll ${DEFAULT_DICTATION.preRollMs} ms)\n\n`);
  process.stdout.write('noise       SNR   | Silero precision recall clipped | energy precision recall clipped\n');
  let sileroMs = 0;
  let energyMs = 0;
  let processedSec = 0;
  for (const kind of ['white', 'pink'] as const) {
    for (const snr of [20, 10, 5, 0]) {
      const pcm = withNoise(clean, kind, snr);
      const silero = await sileroSegments(vad, pcm);
      const energy = energySegments(pcm);
      sileroMs += silero.ms;
      energyMs += energy.ms;
      processedSec += pcm.length / RATE;
      const s = frameScores(silero.segments, clean.speech);
      const e = frameScores(energy.segments, clean.speech);
      process.stdout.write(`${kind.padEnd(6)} ${String(snr).padStart(6)} dB | ${pct(s.precision).padStart(16)} ${pct(s.recall).padStart(6)} ` +
        `${pct(clippingRate(silero.segments, clean.firstWords)).padStart(7)} | ${pct(e.precision).padStart(16)} ${pct(e.recall).padStart(6)} ` +
        `${pct(clippingRate(energy.segments, clean.firstWords)).padStart(7)}\n`);
    }
  }
  const nonSpeechAudio = nonSpeechSet(quick ? 3 : 32, [0.003, 0.03, 0.1]);
  const ns = { silero: (await sileroSegments(vad, nonSpeechAudio)).segments, energy: energySegments(nonSpeechAudio).segments };
  const [sw, ew] = [await wordsIn(asr, nonSpeechAudio, ns.silero), await wordsIn(asr, nonSpeechAudio, ns.energy)];
  process.stdout.write(`\nnon-speech set (${(nonSpeechAudio.length / RATE / 60).toFixed(1)} min): ` +
    `Silero ${ns.silero.length} segments, ${sw ?? '—'} words; energy ${ns.energy.length} segments, ${ew ?? '—'} words` +
    `${asr ? ` (${values.asr})` : ' (no ASR model: words not counted)'}\n`);
  process.stdout.write(`VAD cost (one thread): Silero ${((100 * sileroMs) / 1000 / processedSec).toFixed(2)}% of real time, ` +
    `energy ${((100 * energyMs) / 1000 / processedSec).toFixed(2)}%\n`);
  await silenceGuardsTable({ vad, digits: asr, nonSpeech: nonSpeechAudio, heldOutStrings: quick ? 12 : 120,
    heldOutSeed, listErrors: values['list-errors'], write: (line) => process.stdout.write(line) });
  asr?.dispose();
  vad.dispose();
}

await main();
