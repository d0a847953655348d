// Live dictation never starves behind a file job (issue 11): through the real engine process, a file job
// runs one window per lane step, so a final and a partial asked for while the file is being transcribed
// are decoded before the file job ends (before: the whole file was one engine call, the final waited for
// all of it and the partial was skipped). The windows are the ones the engine's own long-audio pass plans,
// and the stepped transcript equals the engine's transcript of those windows one by one.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { encodeWav16 } from '../../app/shared/wav.js';
import { Model } from '../../native/index.js';
import { EngineHost, FILE_WINDOW_SEC } from '../../app/main/engine/engine-host.js';
import { quiet, speechLike, RATE } from '../support/audio/signals.js';
import { tempDir, testLogger, tinyModel } from './helpers.js';

const dir = tempDir('file-yield');
const modelPath = tinyModel(dir, 'tdt');
let host: EngineHost;

/** Phrases and pauses: `seconds` long, so the planner has quiet places to cut. */
function meeting(seconds: number): Float32Array {
  const parts: Float32Array[] = [];
  let n = 0;
  for (let k = 0; n < seconds * RATE; k += 1) {
    const p = k % 2 === 0 ? speechLike(2 + (k % 5) * 0.7, 40 + k) : quiet(0.4 + (k % 3) * 0.3, 90 + k);
    parts.push(p);
    n += p.length;
  }
  const out = new Float32Array(seconds * RATE);
  let at = 0;
  for (const p of parts) {
    out.set(p.subarray(0, Math.min(p.length, out.length - at)), at);
    at += p.length;
    if (at >= out.length) break;
  }
  return out;
}

const pcm = meeting(Math.round(FILE_WINDOW_SEC * 6.5));
const wav = join(dir, 'meeting.wav');
writeFileSync(wav, encodeWav16(pcm, RATE));

before(async () => {
  host = new EngineHost({ mode: 'process', log: testLogger(dir) });
  await host.start();
  await host.loadModel(modelPath, { device: 'cpu', threads: 1 });
});
after(async () => {
  await host.dispose();
});

test('a file job is decoded in the windows the engine plans; the text is the engine\'s, window by window', async () => {
  const model = await Model.load(modelPath, { device: 'cpu', threads: 1 });
  // 16-bit file: the reference reads the same quantized samples.
  const samples = Float32Array.from(pcm, (x) => Math.max(-32768, Math.min(32767, Math.round(x * 32767))) / 32768);
  const oneCall = await model.transcribe(samples, { maxWindowSec: FILE_WINDOW_SEC });
  assert.ok(oneCall.windows.length >= 6, `several windows (${oneCall.windows.length})`);
  const pieces: string[] = [];
  for (const w of oneCall.windows) {
    const slice = samples.subarray(Math.round(w.start * RATE), Math.round(w.end * RATE));
    const r = await model.transcribe(slice, { maxWindowSec: FILE_WINDOW_SEC + 1 });
    if (r.text) pieces.push(r.text);
  }
  model.dispose();
  const progress: number[] = [];
  const result = await host.transcribeFile(wav, {}, { onProgress: (f) => f > 0 && progress.push(f) });
  assert.deepEqual(result.windows, oneCall.windows, 'the cut points of the engine\'s one-call pass');
  assert.equal(result.text, pieces.join(' '));
  assert.equal(progress.length, oneCall.windows.length, 'progress after every window');
  assert.equal(progress.at(-1), 1);
  assert.ok(result.words.every((w, i, a) => i === 0 || w.start >= a[i - 1]!.start), 'word times in file order');
  assert.ok(result.words.at(-1)!.end <= result.durationSec + 1e-9, 'no word ends after the audio');
});

test('a final and a partial asked for during a file job run before the file job ends (the real engine)', async () => {
  const order: string[] = [];
  const phrase = speechLike(2, 7);
  const asked: Promise<unknown>[] = [];
  let partial: unknown = undefined;
  let windowsDone = 0;
  const file = host.transcribeFile(wav, {}, {
    onProgress: (fraction) => {
      if (fraction === 0) return; // announced before the first window
      // Dictation speaks while the rest of the file waits: a partial after the first window, a final after the second.
      windowsDone += 1;
      if (windowsDone === 1) {
        asked.push(host.transcribe(phrase, {}, { priority: 'partial', skipIfBusy: true }).then((r) => {
          partial = r;
          order.push('partial');
        }));
      }
      if (windowsDone === 2) asked.push(host.transcribe(phrase, {}, { priority: 'final' }).then(() => order.push('final')));
    },
  }).then(() => order.push('file'));
  await file;
  await Promise.all(asked);
  assert.notEqual(partial, null, 'the partial was decoded, not skipped because a file job holds the engine');
  assert.deepEqual(order, ['partial', 'final', 'file']);
});

test('a partial is still skipped behind live work (another final), never queued', async () => {
  const phrase = speechLike(2, 8);
  const running = host.transcribe(phrase, {}, { priority: 'final' });
  assert.equal(await host.transcribe(phrase, {}, { priority: 'partial', skipIfBusy: true }), null);
  await running;
});
