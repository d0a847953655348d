// The spoken-digits test set: English digit strings drawn from a seeded PRNG,
// spoken by espeak-ng in several voices, speeds and pitches, as 16 kHz mono
// 16-bit WAVs with their reference text (*.txt) and espeak-ng's own word
// timings (*.words.json, from libespeak-ng's synthesis events through
// espeak-words.py). Deterministic: the same seed and options give the same
// strings, voices and audio. Cached under .cache/digits/ (git-ignored), keyed
// by the options and GENERATOR_VERSION; regenerated when missing.
//
// The strings are never taken from the model's README: they come from the PRNG.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRng } from '../../reference/testing/random-weights.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DIGITS_CACHE = join(REPO_ROOT, '.cache', 'digits');
/** The trained test model (../shared/models, next to the repository's worktrees); $PARAKEET_DIGITS_MODEL overrides. */
export const DIGITS_MODEL = process.env.PARAKEET_DIGITS_MODEL ?? join(REPO_ROOT, '..', 'shared', 'models', 'digits-en-ctc-test.gguf');
const HELPER = fileURLToPath(new URL('./espeak-words.py', import.meta.url));
/** Bump when the synthesis or file layout changes: every cached set is made again. */
export const GENERATOR_VERSION = 2;

export const DIGIT_NAMES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'] as const;
/** English espeak-ng voices the test set speaks in (espeak-ng 1.51's gmw/ family; "en" is British English, gmw/en). */
export const VOICES = ['en-us', 'en', 'en-gb-scotland', 'en-gb-x-rp', 'en-029', 'en-us-nyc'] as const;
/** Speaking rates, words per minute. */
export const RATES = [135, 150, 165, 180, 195] as const;

export interface WordTiming {
  text: string;
  /** Seconds from the start of the utterance's WAV. */
  start: number;
  end: number;
}

export interface Utterance {
  id: string;
  text: string;
  voice: string;
  rate: number;
  pitch: number;
}

export interface DigitsSetOptions {
  seed: number;
  /** Utterances per voice. */
  perVoice: number;
  voices?: readonly string[];
  rates?: readonly number[];
  minWords?: number;
  maxWords?: number;
}

export interface DigitsItem extends Utterance {
  wav: string;
  words: WordTiming[];
  durationSec: number;
}

/** mulberry32 (test/reference/testing's): the same seed gives the same sequence everywhere. */
export const prng = makeRng;

/** A digit string of `n` words; a 0 is said "zero" or "oh" (both are in the model's vocabulary). */
export function digitString(random: () => number, n: number): string {
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const d = Math.floor(random() * 10);
    words.push(d === 0 && random() < 0.5 ? 'oh' : DIGIT_NAMES[d]);
  }
  return words.join(' ');
}

/** The utterances of a set: for each voice in turn, `perVoice` strings with a rate and pitch drawn per utterance. */
export function planUtterances(opts: DigitsSetOptions): Utterance[] {
  const random = prng(opts.seed);
  const voices = opts.voices ?? VOICES;
  const rates = opts.rates ?? RATES;
  const minWords = opts.minWords ?? 2;
  const maxWords = opts.maxWords ?? 10;
  const out: Utterance[] = [];
  for (let i = 0; i < opts.perVoice; i++) {
    for (const voice of voices) {
      const n = minWords + Math.floor(random() * (maxWords - minWords + 1));
      const text = digitString(random, n);
      const rate = rates[Math.floor(random() * rates.length)];
      const pitch = 30 + Math.floor(random() * 41);
      out.push({ id: `${String(out.length).padStart(4, '0')}-${voice}-s${rate}-p${pitch}`, text, voice, rate, pitch });
    }
  }
  return out;
}

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Speaks `utterances` into `dir`: <id>.wav (16 kHz mono s16), <id>.txt, <id>.words.json. */
export function synthesize(utterances: readonly Utterance[], dir: string): DigitsItem[] {
  mkdirSync(dir, { recursive: true });
  const rawDir = join(dir, '.raw');
  mkdirSync(rawDir, { recursive: true });
  // One helper process per utterance: libespeak-ng keeps state from one synthesis to the next (after
  // en-us, "en" comes out a few samples different), and the command line starts afresh every time.
  const lines = utterances.map((u) => {
    const job = { text: u.text, voice: u.voice, rate: u.rate, pitch: u.pitch, out: join(rawDir, `${u.id}.wav`) };
    const result = spawnSync('python3', [HELPER], { input: JSON.stringify([job]), encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`espeak-words.py failed (${result.status}): ${result.stderr || result.error?.message}`);
    return JSON.parse(result.stdout) as { out: string; sampleRate: number; samples: number; words: WordTiming[] };
  });
  const items: DigitsItem[] = [];
  utterances.forEach((u, i) => {
    const spoken = lines[i];
    const spokenText = spoken.words.map((w) => w.text).join(' ');
    if (spokenText !== u.text) throw new Error(`espeak-ng word events "${spokenText}" do not match the text "${u.text}"`);
    // The audio is the espeak-ng command's own (as the model's README speaks to it): the library's
    // samples followed by the command's trailing silence; checked, so the word times hold for it.
    const cli = join(rawDir, `${u.id}.cli.wav`);
    run('espeak-ng', ['-v', u.voice, '-s', String(u.rate), '-p', String(u.pitch), '-w', cli, u.text]);
    const lib = pcmBytes(spoken.out);
    const said = pcmBytes(cli);
    if (said.length < lib.length || !said.subarray(0, lib.length).equals(lib)) {
      throw new Error(`espeak-ng's command and library spoke "${u.text}" (${u.voice}) differently; word timings would not hold`);
    }
    const wav = join(dir, `${u.id}.wav`);
    // sox's resampler is linear-phase: the word times in seconds stay where they were.
    run('sox', [cli, '-r', '16000', '-c', '1', '-b', '16', wav]);
    writeFileSync(join(dir, `${u.id}.txt`), `${u.text}\n`);
    writeFileSync(join(dir, `${u.id}.words.json`), `${JSON.stringify(spoken.words)}\n`);
    items.push({ ...u, wav, words: spoken.words, durationSec: said.length / 2 / spoken.sampleRate });
  });
  rmSync(rawDir, { recursive: true, force: true });
  return items;
}

/** The PCM bytes of a WAV's data chunk (espeak-ng's command writes 0x7fffffff sizes; sox reads them, so do we). */
function pcmBytes(path: string): Buffer {
  const buf = readFileSync(path);
  let off = 12;
  while (off + 8 <= buf.length) {
    const size = buf.readUInt32LE(off + 4);
    if (buf.toString('latin1', off, off + 4) === 'data') return buf.subarray(off + 8, Math.min(buf.length, off + 8 + size));
    off += 8 + size + (size & 1);
  }
  throw new Error(`${path}: no data chunk`);
}

function keyOf(name: string, opts: object): string {
  return createHash('sha256').update(JSON.stringify({ name, opts, v: GENERATOR_VERSION })).digest('hex').slice(0, 10);
}

/**
 * The cached set `name` for `opts` (made on first use): its folder and items.
 * The folder holds only the set's *.wav / *.txt / *.words.json and a manifest.json.
 */
export function ensureDigitsSet(name: string, opts: DigitsSetOptions): { dir: string; items: DigitsItem[] } {
  return ensureSpokenSet(name, opts, () => planUtterances(opts));
}

/** The cached set `name` of the utterances `plan` makes (spoken on first use); `opts` (what decides the plan) keys the cache. */
export function ensureSpokenSet(name: string, opts: object, plan: () => Utterance[]): { dir: string; items: DigitsItem[] } {
  const dir = join(DIGITS_CACHE, `${name}-${keyOf(name, opts)}`);
  const manifest = join(dir, 'manifest.json');
  if (existsSync(manifest)) return { dir, items: JSON.parse(readFileSync(manifest, 'utf8')).items as DigitsItem[] };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const items = synthesize(plan(), tmp).map((it) => ({ ...it, wav: it.wav.replace(tmp, dir) }));
  writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify({ name, opts, generatorVersion: GENERATOR_VERSION, items }, null, 1)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { dir, items };
}

/** The evaluation set `npm run eval` uses by default: 6 voices × 25 strings of 2–10 digits (150 files, ≈ 6 min). */
export const TEST_SET: DigitsSetOptions = { seed: 0x5eed_0015, perVoice: 25 };

// ---------------------------------------------------------------- WAV helpers (16-bit mono PCM, as the set writes)

export function readWav16(path: string): { samples: Float32Array; sampleRate: number } {
  const buf = readFileSync(path);
  let off = 12;
  let rate = 16000;
  while (off + 8 <= buf.length) {
    const id = buf.toString('latin1', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'fmt ') {
      if (buf.readUInt16LE(off + 8) !== 1 || buf.readUInt16LE(off + 10) !== 1 || buf.readUInt16LE(off + 22) !== 16) {
        throw new Error(`${path}: not 16-bit mono PCM`);
      }
      rate = buf.readUInt32LE(off + 12);
    } else if (id === 'data') {
      const n = Math.min(size, buf.length - off - 8) >> 1;
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(off + 8 + 2 * i) / 32768;
      return { samples: out, sampleRate: rate };
    }
    off += 8 + size + (size & 1);
  }
  throw new Error(`${path}: no data chunk`);
}

export function writeWav16(path: string, samples: Float32Array, sampleRate = 16000): void {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i] * 32768))), 2 * i);
  }
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(sampleRate, 24);
  head.writeUInt32LE(sampleRate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([head, data]));
}

// ---------------------------------------------------------------- derived sets: noise, concatenations

export type NoiseKind = 'white' | 'pink';

/**
 * The set in `srcDir` with `kind` noise at `snrDb`: noise from sox's generator
 * (`synth whitenoise|pinknoise`, repeatable mode -R: one stream for the set, each file
 * taking the next stretch of it),
 * scaled so that 10·log10(P_speech / P_noise) = snrDb, where P_speech is the
 * mean power of the clean file (espeak's utterances have almost no silence
 * around them) and P_noise that of the noise actually added; the sum is
 * clipped to 16 bits (rarely reached at these levels). Same names, same .txt.
 */
export function ensureNoisySet(src: { dir: string; items: DigitsItem[] }, kind: NoiseKind, snrDb: number): { dir: string; items: DigitsItem[] } {
  const dir = `${src.dir}.${kind}-${snrDb}db`;
  const done = join(dir, 'manifest.json');
  if (existsSync(done)) return { dir, items: JSON.parse(readFileSync(done, 'utf8')).items as DigitsItem[] };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const items: DigitsItem[] = [];
  const clips = src.items.map((item) => readWav16(item.wav).samples);
  const noisePath = join(tmp, '.noise.wav');
  const total = clips.reduce((n, c) => n + c.length, 0);
  // The null input's rate is given too: `synth Ns` counts samples at the input's rate (48 kHz by default).
  run('sox', ['-R', '-r', '16000', '-n', '-r', '16000', '-c', '1', '-b', '16', noisePath, 'synth', `${total}s`, `${kind}noise`, 'vol', '0.5']);
  const stream = readWav16(noisePath).samples;
  if (stream.length < total) throw new Error(`sox made ${stream.length} noise samples of the ${total} asked for`);
  let offset = 0;
  for (const [k, item] of src.items.entries()) {
    const clean = clips[k];
    const noise = stream.subarray(offset, offset + clean.length);
    offset += clean.length;
    let ps = 0;
    let pn = 0;
    for (let i = 0; i < clean.length; i++) {
      ps += clean[i] * clean[i];
      pn += noise[i] * noise[i];
    }
    const gain = Math.sqrt(ps / pn / 10 ** (snrDb / 10));
    const mixed = new Float32Array(clean.length);
    for (let i = 0; i < clean.length; i++) mixed[i] = clean[i] + gain * noise[i];
    const base = item.wav.slice(src.dir.length + 1, -'.wav'.length);
    writeWav16(join(tmp, `${base}.wav`), mixed);
    writeFileSync(join(tmp, `${base}.txt`), `${item.text}\n`);
    writeFileSync(join(tmp, `${base}.words.json`), `${JSON.stringify(item.words)}\n`);
    items.push({ ...item, wav: join(dir, `${base}.wav`) });
  }
  rmSync(noisePath, { force: true });
  writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify({ source: src.dir, kind, snrDb, items }, null, 1)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { dir, items };
}

export interface Concatenation {
  wav: string;
  /** The reference text of the whole file. */
  text: string;
  /** Where each utterance sits in the file (s), its text and its word timings shifted to file time. */
  parts: { start: number; end: number; text: string; words: WordTiming[] }[];
  durationSec: number;
}

/**
 * Utterances joined into one 16 kHz WAV with `leadSec` of silence first, a
 * pause drawn from [pauseMin, pauseMax] s after each (seeded), and `tailSec` at the
 * end. Digital silence, so an energy VAD and the window planner see clean pauses.
 */
export function concatenate(
  items: readonly DigitsItem[], out: string,
  opts: { seed: number; pauseMin: number; pauseMax: number; leadSec?: number; tailSec?: number },
): Concatenation {
  const random = prng(opts.seed);
  const rate = 16000;
  const chunks: Float32Array[] = [];
  const parts: Concatenation['parts'] = [];
  let at = Math.round((opts.leadSec ?? 0.5) * rate);
  chunks.push(new Float32Array(at));
  items.forEach((item, i) => {
    const pcm = readWav16(item.wav).samples;
    const start = at / rate;
    parts.push({
      start, end: start + pcm.length / rate, text: item.text,
      words: item.words.map((w) => ({ text: w.text, start: w.start + start, end: w.end + start })),
    });
    chunks.push(pcm);
    at += pcm.length;
    const last = i === items.length - 1;
    const pause = Math.round((last ? (opts.tailSec ?? 1) : opts.pauseMin + random() * (opts.pauseMax - opts.pauseMin)) * rate);
    chunks.push(new Float32Array(pause));
    at += pause;
  });
  const all = new Float32Array(at);
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.length;
  }
  mkdirSync(join(out, '..'), { recursive: true });
  writeWav16(out, all, rate);
  const text = items.map((it) => it.text).join(' ');
  writeFileSync(out.replace(/\.wav$/, '.txt'), `${text}\n`);
  return { wav: out, text, parts, durationSec: at / rate };
}

/** Names of the *.wav files in `dir` that have a *.txt beside them, sorted. */
export function pairedWavs(dir: string): string[] {
  const names = new Set(readdirSync(dir));
  return [...names].filter((n) => n.endsWith('.wav') && names.has(`${n.slice(0, -4)}.txt`)).sort();
}
