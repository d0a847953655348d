// One window planner (native/windows.ts), two paths: the `parakeet transcribe` CLI (one engine call, the
// windows planned in native/index.ts) and the app's file job (the engine process's fileOpen, planned while
// the file is read in blocks) cut the same audio at the same samples, for a 16 kHz mono WAV and a 44.1 kHz
// stereo one (resampled on the way by both). The engine accepts the windows either path sends and refuses
// a long clip that comes without them.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { encodeWav16 } from '../../app/shared/wav.js';
import { Model, native } from '../../native/index.js';
import { EngineCoreClient } from '../support/engine-core-client.js';
import { meetingLike } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { describeExit } from './helpers/child.js';
import { parakeet } from './helpers/cli.js';
import { ONE_THREAD } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('window-paths');
const modelPath = join(dir, 'tdt.gguf');
generateModel(modelPath, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 41 });
const MAX_WINDOW_SEC = 10;
const pcm = meetingLike(47.3, 4100);

const mono = join(dir, 'mono-16k.wav');
writeFileSync(mono, encodeWav16(pcm, 16000));
/** The same meeting at 44.1 kHz stereo (nearest-sample upsampling; the right channel quieter). */
const stereo = join(dir, 'stereo-44k.wav');
{
  const rate = 44100;
  const frames = Math.floor((pcm.length * rate) / 16000);
  const interleaved = new Float32Array(frames * 2);
  for (let i = 0; i < frames; i += 1) {
    const x = pcm[Math.min(pcm.length - 1, Math.floor((i * 16000) / rate))]!;
    interleaved[2 * i] = x;
    interleaved[2 * i + 1] = 0.5 * x;
  }
  writeFileSync(stereo, encodeWav16(interleaved, rate, 2));
}

interface SecondsWindow {
  start: number;
  end: number;
}

const engine = new EngineCoreClient();
after(() => engine.dispose());

/** The windows the app's file job decodes, in seconds as the engine reports them. */
async function fileJobWindows(path: string): Promise<SecondsWindow[]> {
  const model = await engine.request({ op: 'load', path: modelPath, options: { device: 'cpu', threads: 1 } });
  const file = await engine.request({
    op: 'fileOpen', path, sampleRate: model.sampleRate, maxWindowSec: MAX_WINDOW_SEC, align: model.hopLength * model.subsamplingFactor,
  });
  await engine.request({ op: 'fileClose', handle: file.handle });
  return file.windows.map((w) => ({ start: w.begin / file.sampleRate, end: w.end / file.sampleRate }));
}

function cliWindows(path: string): SecondsWindow[] {
  const r = parakeet(['transcribe', path, '--model', modelPath, '--json', '--max-window-sec', String(MAX_WINDOW_SEC), '--threads', '1']);
  assert.equal(r.status, 0, describeExit(r));
  return (JSON.parse(r.stdout) as { windows: SecondsWindow[] }).windows;
}

describe('the CLI and the app cut the same audio alike', () => {
  for (const [label, path] of [['16 kHz mono', mono], ['44.1 kHz stereo', stereo]] as const) {
    test(`${label}: the CLI's windows are the file job's`, async () => {
      const app = await fileJobWindows(path);
      const cli = cliWindows(path);
      assert.ok(app.length >= 5, `several windows (${app.length})`);
      for (const w of app) assert.ok(w.end - w.start <= MAX_WINDOW_SEC, `window ${JSON.stringify(w)} fits ${MAX_WINDOW_SEC} s`);
      assert.deepEqual(cli, app);
    });
  }
});

test('the binding plans a long clip\'s windows; the engine refuses one that comes without them or with broken ones', async () => {
  const model = await Model.load(modelPath, ONE_THREAD);
  try {
    const planned = await model.transcribe(pcm, { maxWindowSec: MAX_WINDOW_SEC });
    assert.ok(planned.windows.length >= 5, `planned into ${planned.windows.length} windows`);
    assert.equal((await model.transcribe(pcm.subarray(0, 9 * 16000), { maxWindowSec: MAX_WINDOW_SEC })).windows.length, 1);
  } finally {
    model.dispose();
  }
  // The addon itself, below the binding's planning: what a caller that skips the planner gets.
  const raw = await native().loadModel(modelPath, { device: 'cpu', threads: 1 });
  try {
    await assert.rejects(async () => raw.transcribe(pcm, { maxWindowSec: MAX_WINDOW_SEC }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'BAD_ARGUMENT');
      assert.match(e.message, /the clip is 47\.3\d* s long, over max_window_sec \(10\.0+ s\), and no windows were given/);
      return true;
    });
    const cut = 100 * 1280;
    await assert.rejects(async () => raw.transcribe(pcm, { maxWindowSec: MAX_WINDOW_SEC, windows: [{ begin: 0, end: cut }, { begin: cut + 1280, end: pcm.length }] }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'BAD_ARGUMENT');
      assert.match(e.message, /window 1 begins at sample 129280 where 128000 was expected/);
      return true;
    });
    await assert.rejects(async () => raw.transcribe(pcm, { maxWindowSec: MAX_WINDOW_SEC, windows: [{ begin: 0, end: 0.5 }] }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'BAD_ARGUMENT');
      assert.match(e.message, /windows\[0\] must be \{ begin: number, end: number \} \(whole sample indices\)/);
      return true;
    });
  } finally {
    raw.dispose();
  }
});
