// Generates what the suite needs, once: the renderer build, a tiny model and
// the espeak-ng speech file. Each step is skipped when its output is current.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { concatenate, ensureDigitsSet, readWav16, writeWav16 } from '../../support/audio/digits.js';
import { nonSpeech } from '../../support/audio/non-speech.js';
import { concat } from '../../support/audio/signals.js';
import { ensureAppCompiled, newestMtime } from '../../support/compiled-app.js';
import {
  ASSET_DIR, CANCEL_SPEECH_WAV, DIGITS_FILE_JSON, DIGITS_FILE_WAV, DIGITS_MIC_JSON, DIGITS_MIC_WAV, LEAD_SILENCE_SEC, LONG_SPEECH_WAV, MODEL_PATH, NOISY_DIGITS_MIC_JSON, NOISY_DIGITS_MIC_WAV, PAUSE_SEC, RENDERER_DIST, REPO_ROOT, SENTENCES, SPEECH_WAV,
  STREAM_EOU_MODEL_PATH, STREAM_PROMPT_MODEL_PATH, TAIL_SILENCE_SEC,
} from './paths.js';

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** vite build when renderer/ (or the IPC contract and shared modules it imports) changed since the last build. */
export function ensureRendererBuilt(): void {
  const index = join(RENDERER_DIST, 'index.html');
  const sources = Math.max(...['renderer', 'app/ipc', 'app/shared'].map((dir) => newestMtime(join(REPO_ROOT, dir))));
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  run(process.execPath, [join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn']);
}

/**
 * The compiled command-line tool (dist/app/cli, what bin/parakeet.js runs), which files.spec.ts
 * asks for the offline transcript: built when missing or older than the TypeScript it comes from,
 * so `npm test` needs no `npm run build` first.
 */
export function ensureCliBuilt(): void {
  ensureAppCompiled(join('cli', 'main.js'));
}

export function ensureModel(): void {
  if (existsSync(MODEL_PATH)) return;
  mkdirSync(ASSET_DIR, { recursive: true });
  const tmp = `${MODEL_PATH}.tmp`;
  run(process.execPath, ['--import', 'tsx', 'test/support/model/make-model.ts', '--preset', 'tiny', '--type', 'q8_0', '--out', tmp]);
  renameSync(tmp, MODEL_PATH);
}

/** The streaming models of streaming.spec.ts, with the seeds whose decodes are varied (streaming.ts). */
export function ensureStreamingModels(): void {
  mkdirSync(ASSET_DIR, { recursive: true });
  for (const [path, family, seed] of [[STREAM_EOU_MODEL_PATH, 'eou', '1'], [STREAM_PROMPT_MODEL_PATH, 'nemotron-3.5', '10']] as const) {
    if (existsSync(path)) continue;
    const tmp = `${path}.tmp`;
    run(process.execPath, ['--import', 'tsx', 'test/support/model/make-model.ts', '--preset', 'tiny', '--family', family, '--seed', seed, '--type', 'f32', '--out', tmp]);
    renameSync(tmp, path);
  }
}

/** Sentences from espeak-ng (22.05 kHz) → 16 kHz mono 16-bit, joined with silences by sox. */
export function ensureSpeech(): void {
  if (existsSync(SPEECH_WAV)) return;
  mkdirSync(ASSET_DIR, { recursive: true });
  const work = join(ASSET_DIR, 'speech-parts');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  const silence = (name: string, sec: number): string => {
    const path = join(work, name);
    run('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', path, 'trim', '0.0', String(sec)]);
    return path;
  };
  const parts: string[] = [silence('lead.wav', LEAD_SILENCE_SEC)];
  SENTENCES.forEach((text, i) => {
    const raw = join(work, `s${i}-raw.wav`);
    const wav = join(work, `s${i}.wav`);
    run('espeak-ng', ['-w', raw, text]);
    run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav]);
    parts.push(wav);
    parts.push(silence(`p${i}.wav`, i === SENTENCES.length - 1 ? TAIL_SILENCE_SEC : PAUSE_SEC));
  });
  const tmp = join(work, 'speech.wav');
  run('sox', [...parts, tmp]);
  renameSync(tmp, SPEECH_WAV);
  rmSync(work, { recursive: true, force: true });
}

/** The speech file `times` times in a row (sox `repeat`), written to `target` once. */
function ensureRepeatedSpeech(target: string, times: number): void {
  ensureSpeech();
  if (existsSync(target)) return;
  const tmp = `${target}.tmp.wav`;
  run('sox', [SPEECH_WAV, tmp, 'repeat', String(times - 1)]);
  renameSync(tmp, target);
}

/** The speech file ten times in a row, an upload long enough to cancel mid-way. */
export function ensureLongSpeech(): void {
  ensureRepeatedSpeech(LONG_SPEECH_WAV, 10);
}

/** The speech file 200 times in a row (≈ 42 min), a file job that lasts seconds even on the fastest CPU here. */
export function ensureCancelSpeech(): void {
  ensureRepeatedSpeech(CANCEL_SPEECH_WAV, 200);
}

/**
 * For the digits specs: three digit strings (en-us, 165 words/min) with 1.4 s pauses for the fake microphone, and
 * one nine-digit string (en, 150 words/min) for the Files view; each with a JSON of its parts
 * (text, place in the file, espeak-ng's word times in file time). Seeded, so the same every run.
 */
export function ensureDigitsSpeech(): void {
  if (!existsSync(DIGITS_MIC_JSON)) {
    const set = ensureDigitsSet('e2e-mic', { seed: 0xe2e_d1c7, perVoice: 3, voices: ['en-us'], rates: [165], minWords: 4, maxWords: 7 });
    const joined = concatenate(set.items, DIGITS_MIC_WAV, { seed: 1, pauseMin: 1.4, pauseMax: 1.4, leadSec: LEAD_SILENCE_SEC, tailSec: TAIL_SILENCE_SEC });
    writeFileSync(DIGITS_MIC_JSON, `${JSON.stringify(joined, null, 1)}\n`);
  }
  if (!existsSync(DIGITS_FILE_JSON)) {
    // One utterance as espeak-ng spoke it: the model learned isolated strings, and added silence (a second
    // of it before or after) makes it drop and change words — the float64 reference hears the same.
    const set = ensureDigitsSet('e2e-file', { seed: 0xe2e_f11e, perVoice: 1, voices: ['en'], rates: [150], minWords: 9, maxWords: 9 });
    const joined = concatenate(set.items, DIGITS_FILE_WAV, { seed: 2, pauseMin: 0, pauseMax: 0, leadSec: 0, tailSec: 0 });
    writeFileSync(DIGITS_FILE_JSON, `${JSON.stringify(joined, null, 1)}\n`);
  }
}

/**
 * For the Silero spec: three digit strings (en-us, 165 words/min) with 2–3 s of pink noise, mains hum and
 * keyboard clicks between and around them, at a quiet room's level; a JSON of the strings.
 */
export function ensureNoisyDigitsSpeech(): void {
  if (existsSync(NOISY_DIGITS_MIC_JSON)) return;
  const set = ensureDigitsSet('e2e-noisy-mic', { seed: 0xe2e_5ae0, perVoice: 3, voices: ['en-us'], rates: [165], minWords: 4, maxWords: 6 });
  const gaps = [nonSpeech('pink', 1.5, 0.01, 1), nonSpeech('hum', 2.5, 0.01, 2), nonSpeech('clicks', 3, 0.02, 3), nonSpeech('silence', 2.5, 0, 4)];
  const parts: Float32Array[] = [gaps[0]!];
  set.items.forEach((item, i) => parts.push(readWav16(item.wav).samples, gaps[i + 1]!));
  writeWav16(NOISY_DIGITS_MIC_WAV, concat(...parts));
  writeFileSync(NOISY_DIGITS_MIC_JSON, `${JSON.stringify({ texts: set.items.map((it) => it.text) }, null, 1)}\n`);
}

export function checkTools(): string[] {
  const missing: string[] = [];
  for (const tool of ['espeak-ng', 'sox', 'python3']) {
    try {
      execFileSync('which', [tool], { stdio: 'ignore' });
    } catch {
      missing.push(tool);
    }
  }
  return missing;
}
