// Dictation beside a long file job, through the real engine process: while a
// dictation session holds the model (inUse) and a 6-minute file is being
// transcribed window by window, finals asked for in the middle of windows come
// back while the file job is still running, with the text the same phrase
// gets with the engine otherwise idle; the file's own transcript is the one it
// gets with no dictation beside it. The engine decodes the two on two states
// of the model, with the model's two threads split one each.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { encodeWav16 } from '../../app/shared/wav.js';
import { EngineHost, FILE_WINDOW_SEC } from '../../app/main/engine/engine-host.js';
import { RATE, meetingLike, speechLike } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { tempDir, testLogger } from './helpers.js';

const dir = tempDir('file-beside');
// The 'small' preset: windows long enough (tens of ms each) to ask for a final in the middle of one.
const modelPath = join(dir, 'small-tdt.gguf');
generateModel(modelPath, { preset: 'small', arch: 'tdt', seed: 3 });
const FILE_SEC = 6 * 60;
let host: EngineHost;

const audio = meetingLike(FILE_SEC);
const wav = join(dir, 'long.wav');
writeFileSync(wav, encodeWav16(audio, RATE));

before(async () => {
  host = new EngineHost({ mode: 'process', log: testLogger(dir), inUse: () => true });
  await host.start();
  await host.loadModel(modelPath, { device: 'cpu', threads: 2 });
});
after(async () => {
  await host.dispose();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('finals asked for mid-window come back while a long file job is in progress, with their own text; the file\'s text is unchanged', async () => {
  const phrase = speechLike(2.5, 7);
  const alone = await host.transcribe(phrase, {}, { priority: 'final' });
  assert.ok(alone && alone.tokens.length > 0, 'the phrase decodes to tokens');

  let windowsDone = 0;
  let fileDone = false;
  const started = performance.now();
  const file = host.transcribeFile(wav, {}, {
    onProgress: (fraction) => {
      if (fraction > 0) windowsDone += 1;
    },
  }).then((r) => {
    fileDone = true;
    return r;
  });
  const finals: { text: string; ms: number; during: boolean; window: number }[] = [];
  for (let k = 0; k < 5; k += 1) {
    // Into the middle of a window: just after one ended, the next is running.
    const target = 1 + 3 * k;
    while (windowsDone < target && !fileDone) await pause(2);
    assert.equal(fileDone, false, `the file job ended before final ${k} was asked for`);
    await pause(5);
    const t = performance.now();
    const r = await host.transcribe(phrase, {}, { priority: 'final' });
    finals.push({ text: r?.text ?? '(skipped)', ms: performance.now() - t, during: !fileDone, window: windowsDone });
  }
  const result = await file;
  const fileMs = performance.now() - started;
  const windows = result.windows.length;
  console.log(
    `file: ${FILE_SEC} s in ${windows} windows of ≤ ${FILE_WINDOW_SEC} s, ${(fileMs / windows).toFixed(0)} ms per window; ` +
      `finals beside it: ${finals.map((f) => `${f.ms.toFixed(0)} ms`).join(', ')} (alone: ${alone.timings.totalMs.toFixed(0)} ms of decode)`,
  );
  for (const [k, f] of finals.entries()) {
    assert.equal(f.during, true, `final ${k} came back while the file job was in progress`);
    assert.equal(f.text, alone.text, `final ${k}: the same text as with the engine idle`);
  }
  assert.ok(windows >= 20, `a long job (${windows} windows)`);
  const unhurried = await host.transcribeFile(wav, {});
  assert.equal(result.text, unhurried.text, 'the file\'s text does not depend on dictation running beside it');
  assert.deepEqual(result.windows, unhurried.windows);
});
