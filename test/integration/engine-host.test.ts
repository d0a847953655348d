// EngineHost with the real engine process (child_process.fork of the engine
// entry, structured-clone messages) and generated tiny models: load,
// transcribe, serialization, validation beside the resident model,
// cancellation, and survival of the engine's death (crash trigger mid-request
// and an external SIGKILL): restart, CPU reload, the in-flight request re-run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Model } from '../../native/index.js';
import { EngineHost, type CrashInfo } from '../../app/main/engine/engine-host.js';
import { speechLike } from '../unit/app/signals.js';
import { tempDir, testLogger, tinyModel, waitFor } from './helpers.js';

const dir = tempDir('host');
const modelPath = tinyModel(dir, 'tdt');
const otherModel = tinyModel(dir, 'ctc');
const audio = speechLike(2, 5);
let expected = '';
let host: EngineHost;
const crashes: CrashInfo[] = [];
let devicesAsked = 0;

before(async () => {
  // The same model in this process: the reference the engine process must match.
  const model = await Model.load(modelPath, { device: 'cpu', threads: 1 });
  expected = (await model.transcribe(audio)).text;
  model.dispose();
  assert.ok(expected.length > 0, 'the tiny model says something for this signal');
  host = new EngineHost({
    mode: 'process',
    log: testLogger(dir),
    testHooks: true,
    restartDelaysMs: [0, 100],
    deviceAfterCrash: () => {
      devicesAsked += 1;
      return 'CPU';
    },
  });
  host.on('crashed', (c) => crashes.push(c));
  await host.start();
});
after(async () => {
  await host.dispose();
});

test('the engine process starts, lists the CPU, loads a model and transcribes like the addon in-process', async () => {
  assert.equal(host.engineAvailable, true);
  assert.equal(host.status().state, 'no-model');
  assert.ok(host.pid && host.pid !== process.pid, 'a separate process');
  const devices = await host.listDevices();
  assert.ok(devices.some((d) => d.type === 'cpu' && d.memoryTotal > 0));
  const info = await host.loadModel(modelPath, { device: 'cpu', threads: 1 });
  assert.equal(info.arch, 'tdt');
  assert.equal(host.status().state, 'ready');
  const result = await host.transcribe(audio, {}, { priority: 'final' });
  assert.equal(result?.text, expected);
  assert.deepEqual(result?.devicesRan, ['CPU']);
});

test('concurrent decodes are serialized (never BUSY); a partial decode is skipped while the engine is busy', async () => {
  const results = await Promise.all([1, 2, 3].map(() => host.transcribe(audio, {}, { priority: 'final' })));
  assert.deepEqual(results.map((r) => r?.text), [expected, expected, expected]);
  const running = host.transcribe(audio, {}, { priority: 'final' });
  assert.equal(await host.transcribe(audio, {}, { priority: 'partial', skipIfBusy: true }), null);
  await running;
});

test('validation loads another file beside the resident model; a broken file is refused with the engine message', async () => {
  const info = await host.validate(otherModel);
  assert.equal(info.arch, 'ctc');
  assert.equal(host.loadedModel?.path, modelPath, 'the resident model is untouched');
  await assert.rejects(host.validate(`${dir}/missing.gguf`), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'MODEL_INVALID');
    assert.match(e.message, /missing\.gguf/);
    return true;
  });
});

test('a cancelled decode fails with ABORTED and the engine stays usable', async () => {
  const controller = new AbortController();
  const long = speechLike(20, 9);
  const pending = host.transcribe(long, {}, { priority: 'final', signal: controller.signal });
  setTimeout(() => controller.abort(), 5);
  await assert.rejects(pending, (e: Error & { code?: string }) => e.code === 'ABORTED');
  assert.equal((await host.transcribe(audio, {}, { priority: 'final' }))?.text, expected);
});

test('crash mid-request: the engine restarts, reloads on the CPU, the in-flight decode completes, the device is reported', async () => {
  const pidBefore = host.pid;
  const statuses: string[] = [];
  const off = host.on('status', (s) => statuses.push(s.state));
  await host.crash('nextTranscribe');
  const result = await host.transcribe(audio, {}, { priority: 'final' });
  off();
  assert.equal(result?.text, expected, 'the re-run request gives the same text');
  assert.equal(crashes.length, 1);
  assert.equal(crashes[0]!.device, 'CPU', 'the device in use is reported (the registry marks it failed)');
  assert.match(crashes[0]!.reason, /SIGKILL/);
  assert.ok(devicesAsked >= 1, 'the reload asked which device to use');
  const status = host.status();
  assert.equal(status.state, 'ready');
  assert.equal(status.restarts, 1);
  assert.equal(status.lastError?.code, 'ENGINE_CRASHED');
  assert.equal(status.model?.device.device.name, 'CPU');
  assert.equal(status.model?.device.requested, 'CPU');
  assert.ok(host.pid && host.pid !== pidBefore, 'a new engine process');
  for (const state of ['crashed', 'restarting', 'loading', 'ready']) assert.ok(statuses.includes(state), `status ${state} announced (${statuses.join(',')})`);
});

test('killed from outside while idle: restarted with the model reloaded, ready for the next decode', async () => {
  const restarted = waitFor<unknown>((resolve) => host.on('restarted', resolve), 20_000, 'restart');
  process.kill(host.pid!, 'SIGKILL');
  await restarted;
  assert.equal(host.status().restarts, 2);
  assert.equal(host.loadedModel?.path, modelPath);
  assert.equal((await host.transcribe(audio, {}, { priority: 'final' }))?.text, expected);
});

test('inline mode: the same interface in this process; the crash trigger is refused there', async () => {
  const inline = new EngineHost({ mode: 'inline', log: testLogger(dir) });
  try {
    await inline.start();
    assert.equal(inline.pid, null);
    await inline.loadModel(modelPath, { device: 'cpu', threads: 1 });
    assert.equal((await inline.transcribe(audio, {}, { priority: 'final' }))?.text, expected);
    await assert.rejects(inline.crash('now'), (e: Error & { code?: string }) => e.code === 'NOT_SUPPORTED');
  } finally {
    await inline.dispose();
  }
});
