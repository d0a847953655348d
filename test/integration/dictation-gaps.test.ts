// A dictation client that claims samples it never sent: frames whose sample
// index jumps far ahead would each be gap-filled with silence, so a few
// hundred small frames could make the server store hours of audio. Fills are
// bounded by the wall time that passed (per gap and per session), the lost
// samples are still counted exactly, and the audio is freed at stop.
// Real services and engine process, tiny generated model.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { createServices, type Services } from '../../app/main/services.js';
import { RATE } from '../support/audio/signals.js';
import { tempDir, tinyModel, writeTestSettings } from './helpers.js';

const dir = tempDir('gaps');
let services: Services;

before(async () => {
  writeTestSettings(dir);
  services = await createServices({ userDataDir: dir, mode: 'web', engineMode: 'process', modelPath: tinyModel(dir, 'ctc'), modelEndpoint: 'https://127.0.0.1:9' });
  await services.ready;
});
after(async () => {
  await services.dispose();
});

test('jumping sample indices cannot make a session store more silence than the time that passed; memory is freed at stop', async () => {
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'client');
  const session = services.sessions.get(sessionId)!;
  const started = performance.now();
  const FRAMES = 300;
  const FRAME = 2048; // 8 KB of float32
  const JUMP = 30 * RATE;
  let position = 0;
  for (let i = 0; i < FRAMES; i++) {
    assert.equal(services.sessions.pushAudio(sessionId, new Float32Array(FRAME), 'client', position), true);
    position += FRAME + JUMP;
  }
  const elapsedSec = (performance.now() - started) / 1000;
  const receivedSec = (FRAMES * FRAME) / RATE;
  const storedSec = session.storedSamples / RATE;
  // The claimed timeline is 2.5 hours; what is stored is what was sent plus at most the wall time (+2 s slack).
  assert.ok(storedSec <= receivedSec + elapsedSec + 2.1, `stored ${storedSec.toFixed(1)} s after ${elapsedSec.toFixed(2)} s of wall time`);
  assert.ok(session.audioMemoryBytes < 32 * 1024 ** 2, `${(session.audioMemoryBytes / 2 ** 20).toFixed(0)} MiB held`);

  const summary = await services.sessions.stop(sessionId, 'client');
  assert.equal(summary.latency.sampleGaps, (FRAMES - 1) * JUMP, 'every missing sample is still counted');
  assert.equal(session.audioMemoryBytes, 0, 'the audio is freed at stop');
  assert.equal(session.storedSamples, 0);
});

test('a real gap (frames lost while time passes) is still filled, so later speech keeps its time', async () => {
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'client');
  const session = services.sessions.get(sessionId)!;
  const frame = new Float32Array(640);
  services.sessions.pushAudio(sessionId, frame, 'client', 0);
  await sleep(600);
  // 0.5 s of frames lost on the way while 0.6 s passed: filled completely.
  services.sessions.pushAudio(sessionId, frame, 'client', 640 + RATE / 2);
  assert.equal(session.storedSamples, 640 + RATE / 2 + 640);
  const summary = await services.sessions.stop(sessionId, 'client');
  assert.equal(summary.latency.sampleGaps, RATE / 2);
  assert.equal(summary.audioSeconds, (2 * 640 + RATE / 2) / RATE);
});
