// Generates what the suite needs, once: the renderer build, a tiny model and
// the espeak-ng speech file. Each step is skipped when its output is current.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  ASSET_DIR, LEAD_SILENCE_SEC, LONG_SPEECH_WAV, MODEL_PATH, PAUSE_SEC, RENDERER_DIST, REPO_ROOT, SENTENCES, SPEECH_WAV,
  TAIL_SILENCE_SEC,
} from './paths.js';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(path) : st.mtimeMs);
  }
  return newest;
}

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

export function ensureModel(): void {
  if (existsSync(MODEL_PATH)) return;
  mkdirSync(ASSET_DIR, { recursive: true });
  const tmp = `${MODEL_PATH}.tmp`;
  run(process.execPath, ['--import', 'tsx', 'test/support/model/make-model.ts', '--preset', 'tiny', '--type', 'q8_0', '--out', tmp]);
  renameSync(tmp, MODEL_PATH);
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

/** The speech file played ten times in a row (sox `repeat 9`), for file jobs long enough to cancel. */
export function ensureLongSpeech(): void {
  ensureSpeech();
  if (existsSync(LONG_SPEECH_WAV)) return;
  const tmp = `${LONG_SPEECH_WAV}.tmp.wav`;
  run('sox', [SPEECH_WAV, tmp, 'repeat', '9']);
  renameSync(tmp, LONG_SPEECH_WAV);
}

export function checkTools(): string[] {
  const missing: string[] = [];
  for (const tool of ['espeak-ng', 'sox']) {
    try {
      execFileSync('which', [tool], { stdio: 'ignore' });
    } catch {
      missing.push(tool);
    }
  }
  return missing;
}
