// EngineHost with the real engine process (child_process.fork of the engine
// entry, structured-clone messages) and generated tiny models: load,
// transcribe, serialization, validation beside the resident model, WAV files
// read by the engine, cancellation, and survival of the engine's death (crash
// trigger mid-request and an external SIGKILL): restart, CPU reload, the
// in-flight request re-run — but not a validation or a file transcription,
// and a validation's crash blames no device.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { decodeWav, encodeWav16 } from '../../app/shared/wav.js';
import { resample } from '../../app/shared/resample.js';
import { Model } from '../../native/index.js';
import { EngineHost, type CrashInfo } from '../../app/main/engine/engine-host.js';
import { inlineTransport } from '../../app/main/engine/transport.js';
import { withEngineTriggers } from '../support/engine-triggers.js';
import { speechLike } from '../support/audio/signals.js';
import { tempDir, testLogger, tinyModel, waitFor } from './helpers.js';

const dir = tempDir('host');
const modelPath = tinyModel(dir, 'tdt');
const otherModel = tinyModel(dir, 'ctc');
const audio = speechLike(2, 5);
let expected = '';
let host: EngineHost;
const engine = withEngineTriggers();
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
    transport: engine.transport,
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
  await engine.triggers.crash('nextTranscribe');
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

test('a stereo 22.05 kHz WAV file gives exactly what the addon gives for its channels averaged and resampled in one call', async () => {
  // Two different channels, a rate to resample from: the engine process averages and resamples while reading the file.
  const left = speechLike(2, 11);
  const right = speechLike(2, 12, 0.2);
  const interleaved = new Float32Array(left.length * 2);
  for (let i = 0; i < left.length; i += 1) {
    interleaved[2 * i] = left[i]!;
    interleaved[2 * i + 1] = right[i]!;
  }
  const wav = join(dir, 'stereo-22050.wav');
  const bytes = encodeWav16(interleaved, 22_050, 2);
  writeFileSync(wav, bytes);
  const decoded = decodeWav(bytes);
  const model = await Model.load(modelPath, { device: 'cpu', threads: 1 });
  const mono = Float32Array.from({ length: decoded.frames }, (_, i) => (decoded.samples[2 * i]! + decoded.samples[2 * i + 1]!) / 2);
  const reference = await model.transcribe(resample(mono, 22_050, 16_000), { sampleRate: 16_000 });
  model.dispose();
  const result = await host.transcribeFile(wav, {});
  assert.equal(result.text, reference.text);
  assert.deepEqual(result.tokens.map((t) => [t.id, t.frame]), reference.tokens.map((t) => [t.id, t.frame]));
  assert.equal(result.durationSec, reference.durationSec);
});

test('a crash while validating a model file: not re-run, ENGINE_CRASHED, no device blamed; the engine comes back', async () => {
  const before = crashes.length;
  const restarted = waitFor<unknown>((resolve) => host.on('restarted', resolve), 20_000, 'restart');
  await engine.triggers.crash('nextValidate');
  await assert.rejects(host.validate(otherModel), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'ENGINE_CRASHED');
    assert.match(e.message, /checking this model file; it was not tried again/);
    return true;
  });
  await restarted;
  assert.equal(crashes.length, before + 1);
  assert.equal(crashes.at(-1)!.device, null, 'the CPU model in use is not blamed for the validation');
  assert.equal(host.loadedModel?.path, modelPath, 'the resident model was reloaded');
  assert.equal((await host.validate(otherModel)).arch, 'ctc', 'and validation works again');
});

test('a crash while transcribing a file: not re-run (the file may be the cause); the device that ran it is reported', async () => {
  const wav = join(dir, 'mono.wav');
  writeFileSync(wav, encodeWav16(audio, 16_000));
  const before = crashes.length;
  const restarted = waitFor<unknown>((resolve) => host.on('restarted', resolve), 20_000, 'restart');
  await engine.triggers.crash('nextTranscribe');
  await assert.rejects(host.transcribeFile(wav, {}), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'ENGINE_CRASHED');
    assert.match(e.message, /transcribing this file; it was not tried again/);
    return true;
  });
  await restarted;
  assert.equal(crashes.length, before + 1);
  assert.equal(crashes.at(-1)!.device, 'CPU');
  assert.ok((await host.transcribeFile(wav, {})).durationSec > 1.9, 'the same file works when asked again');
});

test('inline mode: the same interface in this process; the crash trigger is refused there', async () => {
  const inlineEngine = withEngineTriggers(inlineTransport);
  const inline = new EngineHost({ mode: 'inline', log: testLogger(dir), transport: inlineEngine.transport });
  try {
    await inline.start();
    assert.equal(inline.pid, null);
    await inline.loadModel(modelPath, { device: 'cpu', threads: 1 });
    assert.equal((await inline.transcribe(audio, {}, { priority: 'final' }))?.text, expected);
    await assert.rejects(inlineEngine.triggers.crash('now'), (e: Error & { code?: string }) => e.code === 'NOT_SUPPORTED');
  } finally {
    await inline.dispose();
  }
});
