// Idle unload through the real services (engine process, tiny generated
// model), with the timeout in milliseconds: after it the model is unloaded
// (engine alive, state 'idle-unloaded'); a dictation, a file job and a
// self-test afterwards reload it first and give what they gave before; a
// running session or file job keeps it loaded; the setting 0 never unloads.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, test } from 'node:test';
import type { EngineState, SessionSummary } from '../../app/ipc/contract.js';
import type { Services } from '../../app/main/services.js';
import { encodeWav16 } from '../../app/shared/wav.js';
import { RATE, concat, quiet, speechLike } from '../support/audio/signals.js';
import { dictate, startTestServices, tempDir, tinyModel, waitFor, writeTestSettings } from './helpers.js';

const dir = tempDir('idle');
let services: Services;
const audio = concat(quiet(0.4, 1), speechLike(1.2, 2), quiet(0.9, 3), speechLike(0.9, 4), quiet(0.8, 5));

before(async () => {
  writeTestSettings(dir);
  services = await startTestServices(dir, tinyModel(dir, 'tdt', 5));
});
after(async () => {
  await services.dispose();
});
beforeEach(async () => {
  services.engine.setIdleUnload(0);
  // Every test starts with the model resident (a self-test is a use that reloads it).
  if (services.engine.status().state === 'idle-unloaded') await services.engine.selfTest();
  assertResident();
});

function stateReached(state: EngineState, ms = 5000): Promise<unknown> {
  return waitFor((resolve) => services.bus.on('engine:status', (s) => s.state === state && resolve(s)), ms, `engine state ${state}`);
}

async function unloadNow(ms = 150): Promise<void> {
  const unloaded = stateReached('idle-unloaded');
  services.engine.setIdleUnload(ms);
  await unloaded;
  services.engine.setIdleUnload(0);
}

/** Resident: 'ready', or 'busy' while the lane finishes the call just awaited. */
function assertResident(): void {
  const { state } = services.engine.status();
  assert.ok(state === 'ready' || state === 'busy', `engine state ${state}`);
}

const finals = (s: SessionSummary) => s.segments.map((f) => ({ text: f.text, startSample: f.startSample, endSample: f.endSample }));

test('after the idle time the model is unloaded, the engine stays up, and the status says so', async () => {
  const pid = services.engine.pid;
  const model = services.engine.loadedModel;
  await unloadNow();
  const status = services.engine.status();
  assert.equal(status.state, 'idle-unloaded');
  assert.equal(status.pid, pid, 'the engine process was not restarted');
  assert.deepEqual(status.model, model, 'the status still names the model that comes back');
  assert.equal(services.engine.unloadedForIdle, true);
});

test('a dictation after the unload reloads the model first and gives the same finals as without it', async () => {
  const fresh = await dictate(services, audio, 2);
  assert.ok(fresh.segments.length >= 1 && fresh.text.length > 0, JSON.stringify(fresh.segments));
  await unloadNow();
  const loading = stateReached('loading');
  const reloaded = await dictate(services, audio, 2);
  await loading;
  assert.deepEqual(finals(reloaded), finals(fresh));
  assert.equal(reloaded.latency.sampleGaps, 0);
  assertResident();
});

test('a file job and a self-test after the unload reload the model', async () => {
  const wav = join(dir, 'phrase.wav');
  writeFileSync(wav, encodeWav16(audio, RATE));
  const before = await services.files.transcribe(wav);
  await unloadNow();
  const after = await services.files.transcribe(wav);
  assert.equal(after.text, before.text);
  await unloadNow();
  const selfTest = await services.engine.selfTest();
  assert.equal(selfTest.passed, true);
  assertResident();
});

test('a running session keeps the model loaded through its pauses; it goes once the session ends', async () => {
  const states: EngineState[] = [];
  const off = services.bus.on('engine:status', (s) => states.push(s.state));
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  services.engine.setIdleUnload(100);
  for (let i = 0; i < 10; i += 1) {
    services.sessions.pushAudio(sessionId, quiet(0.04, i), 'test');
    await sleep(60);
  }
  assert.ok(!states.includes('idle-unloaded'), `unloaded during the session: ${states.join(', ')}`);
  const unloaded = stateReached('idle-unloaded');
  await services.sessions.stop(sessionId, 'test');
  await unloaded;
  off();
});

test('a file job longer than the idle time keeps the model loaded', async () => {
  const wav = join(dir, 'long.wav');
  writeFileSync(wav, encodeWav16(concat(...Array.from({ length: 60 }, (_, i) => speechLike(3, 10 + i))), RATE));
  const states: EngineState[] = [];
  const off = services.bus.on('engine:status', (s) => states.push(s.state));
  // The idle time starts once the engine runs the job (before that, reading the file header is not a use).
  const running = waitFor((resolve) => services.bus.on('files:progress', (p) => p.fraction > 0 && resolve(p)), 10_000, 'the engine running the job');
  const job = services.files.transcribe(wav);
  await running;
  services.engine.setIdleUnload(50);
  const result = await job;
  off();
  services.engine.setIdleUnload(0);
  assert.ok(result.elapsedMs > 50, `the job (${result.elapsedMs} ms) must outlast the idle time for this test to mean anything`);
  assert.ok(!states.includes('idle-unloaded'), `unloaded during the job: ${states.join(', ')}`);
});

test('idleUnloadMinutes 0 never unloads', async () => {
  services.engine.setIdleUnload(100);
  // The setting changing to 0 (from the default) turns the timer off.
  await services.settings.set({ idleUnloadMinutes: 0 });
  await sleep(400);
  assertResident();
  await services.settings.set({ idleUnloadMinutes: 1 });
  assert.equal(services.settings.get().idleUnloadMinutes, 1);
});
