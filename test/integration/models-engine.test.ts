// The model manager wired to the engine: "installed" means the engine loaded
// the file once (in the engine process, beside the resident model). A
// malformed import is refused with the engine's own message; a generated
// model imports, activates and transcribes a WAV file; a download from a
// local HTTPS server (Hugging Face's shape) is verified and validated by the
// engine, and a download that is not a model is not installed.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { EngineStatus, FileTranscript, InstalledModel, ModelsState } from '../../app/ipc/contract.js';
import { createServices, type Services } from '../../app/main/services.js';
import { encodeWav16, decodeWav } from '../../app/shared/wav.js';
import { TestHttpsServer, hfRedirect, serveBytes } from '../support/https-server/server.js';
import { generateModel } from '../support/model/generate.js';
import { MALFORMED_CASES } from '../support/model/malformed.js';
import { RESOLVE, testCatalog } from '../unit/models/helpers.js';
import { RATE, concat, quiet, speechLike } from '../support/audio/signals.js';
import { tempDir, tinyModel, writeTestSettings } from './helpers.js';

const dir = tempDir('models');
const ctx = { clientId: 'test' };
let server: TestHttpsServer;
let services: Services;

before(async () => {
  server = await TestHttpsServer.start();
  const userDataDir = join(dir, 'user');
  mkdirSync(userDataDir, { recursive: true });
  writeTestSettings(userDataDir);
  services = await createServices({
    userDataDir,
    mode: 'web',
    engineMode: 'process',
    modelEndpoint: server.origin,
    extraCa: server.ca,
    modelManager: {
      catalog: testCatalog([{ slug: 'tiny' }, { slug: 'junk' }]),
      retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 20 },
      progressIntervalMs: 20,
    },
  });
});
after(async () => {
  await services.dispose();
  await server.close();
});

test('importing malformed files is refused with the engine message, naming the file the user chose', async () => {
  for (const name of ['random-bytes', 'truncated-in-tensor-infos']) {
    const c = MALFORMED_CASES.find((m) => m.name === name)!;
    const file = join(dir, `${name}.gguf`);
    c.write(file);
    const result = await services.router.handle('models:import', { path: file }, ctx);
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error.code, 'MODEL_INVALID');
      assert.ok(result.error.message.includes(c.expectedMessageIncludes), result.error.message);
      assert.ok(result.error.message.startsWith(file), `names ${file}: ${result.error.message}`);
    }
  }
  // A well-formed file of a kind this app cannot use (a VAD-only model).
  const vad = join(dir, 'vad-only.gguf');
  generateModel(vad, { preset: 'tiny', arch: 'tdt', archLabel: 'vad' });
  const refused = await services.router.handle('models:import', { path: vad }, ctx);
  assert.equal(refused.ok ? null : refused.error.code, 'MODEL_INVALID');
  const state = await services.router.handle('models:state', undefined, ctx);
  assert.ok(state.ok && (state.value as ModelsState).installed.length === 0, 'nothing was listed');
});

test('an imported generated model is validated by the engine, becomes active and transcribes a WAV file', async () => {
  const source = tinyModel(dir, 'tdt', 3);
  const imported = await services.router.handle('models:import', { path: source }, ctx);
  assert.ok(imported.ok, JSON.stringify(imported));
  const model = imported.value as InstalledModel;
  assert.equal(model.architecture, 'tdt', 'metadata from the engine');
  assert.deepEqual(model.decoders, ['tdt']);
  assert.match(model.id, /^imported\//);

  const active = await services.router.handle('models:setActive', { id: model.id }, ctx);
  assert.ok(active.ok && (active.value as ModelsState).activeId === model.id);
  const status = (await services.router.handle('engine:status', undefined, ctx)) as { ok: true; value: EngineStatus };
  assert.equal(status.value.state, 'ready');
  assert.equal(status.value.modelId, model.id);

  const samples = concat(quiet(0.3, 1), speechLike(2, 31), quiet(0.3, 2));
  const wav = join(dir, 'speech.wav');
  writeFileSync(wav, encodeWav16(samples, RATE));
  const progress: { jobId: string; fraction: number; path?: string }[] = [];
  const off = services.bus.on('files:progress', (p) => progress.push(p));
  const done = await services.router.handle('files:transcribe', { path: wav }, ctx);
  off();
  assert.ok(done.ok, JSON.stringify(done));
  const transcript = done.value as FileTranscript;
  const reference = await services.engine.transcribe(decodeWav(new Uint8Array(readFileSync(wav))).samples, { sampleRate: RATE }, { priority: 'final' });
  assert.equal(transcript.text, reference?.text);
  assert.ok(transcript.text.length > 0);
  assert.deepEqual(transcript.devicesRan, ['CPU']);
  assert.ok(Math.abs(transcript.durationSec - samples.length / RATE) < 0.01);
  assert.equal(progress[0]?.jobId, transcript.jobId);
  assert.equal(progress[0]?.path, wav, 'the job id is announced with its path before the result');
  assert.equal(progress.at(-1)?.fraction, 1);
  const devices = services.devices.state();
  assert.deepEqual(devices.lastRan, ['CPU'], 'the device view shows the device that ran the decode');

  const notWav = await services.router.handle('files:transcribe', { path: source }, ctx);
  assert.equal(notWav.ok ? null : notWav.error.code, 'BAD_AUDIO');
  assert.match(notWav.ok ? '' : notWav.error.message, /ffmpeg -i/, 'says how to convert');
  // A path that is not there: named, in words (not Node's errno text).
  const missing = join(dir, 'no-such-recording.wav');
  const absent = await services.router.handle('files:transcribe', { path: missing }, ctx);
  assert.deepEqual(absent.ok ? null : absent.error, { code: 'NOT_FOUND', message: `There is no file at ${missing}.` });
  const folder = await services.router.handle('files:transcribe', { path: dir }, ctx);
  assert.equal(folder.ok ? null : folder.error.code, 'BAD_ARGUMENT');
});

test('a download from the mirror is verified, then validated by the engine; bytes that are not a model are not installed', async () => {
  const modelFile = tinyModel(dir, 'ctc', 4);
  const bytes = readFileSync(modelFile);
  server.route(`${RESOLVE}/tiny-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/tiny`, bytes));
  server.route('/cdn/tiny', (req, res) => serveBytes(req, res, bytes, { chunkSize: 64 * 1024 }));
  const junk = Buffer.from('GGUF'.padEnd(4096, 'x'));
  server.route(`${RESOLVE}/junk-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/junk`, junk));
  server.route('/cdn/junk', (req, res) => serveBytes(req, res, junk));

  const queued = await services.router.handle('models:download', { id: 'tiny-q8_0' }, ctx);
  assert.ok(queued.ok, JSON.stringify(queued));
  const done = await services.models.waitForDownload('tiny-q8_0');
  assert.equal(done.state, 'installed', JSON.stringify(done.error));
  const installed = (await services.models.listInstalled()).find((m) => m.id === 'tiny-q8_0');
  assert.equal(installed?.architecture, 'ctc', 'the engine read the architecture from the file');

  await services.router.handle('models:download', { id: 'junk-q8_0' }, ctx);
  const failed = await services.models.waitForDownload('junk-q8_0');
  assert.equal(failed.state, 'failed');
  assert.equal(failed.error?.code, 'MODEL_INVALID');
  assert.ok(failed.error?.message.length, 'with the engine message');
  assert.equal((await services.models.listInstalled()).some((m) => m.id === 'junk-q8_0'), false);

  // The downloaded model is usable: make it active and dictate a phrase.
  const activated = await services.router.handle('models:setActive', { id: 'tiny-q8_0' }, ctx);
  assert.ok(activated.ok);
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  const audio = concat(quiet(0.4, 5), speechLike(1, 32), quiet(0.9, 6));
  services.sessions.pushAudio(sessionId, audio, 'test', 0);
  const summary = await services.sessions.stop(sessionId, 'test');
  assert.equal(summary.segments.length, 1);
  assert.deepEqual(summary.segments[0]!.devicesRan, ['CPU']);
});
