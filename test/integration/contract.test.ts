// The IPC contract end to end through the router both adapters use: every
// channel has a handler, every malformed payload comes back as
// INVALID_PAYLOAD (never a throw, never reaching a service), unknown channels
// as UNKNOWN_CHANNEL, and a well-formed request always gets a Result.
// Services run for real (inline engine: the addon in this process).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { INVOKE_CHANNELS, type InvokeChannel, type Result } from '../../app/ipc/contract.js';
import { decodeAudioFrame, encodeAudioFrame } from '../../app/ipc/web-protocol.js';
import { PAYLOAD_VALIDATORS } from '../../app/ipc/validate.js';
import { createServices, type Services } from '../../app/main/services.js';

let services: Services;
const userDataDir = mkdtempSync(join(tmpdir(), 'parakeet-app-contract-'));
before(async () => {
  services = await createServices({
    userDataDir,
    mode: 'web',
    engineMode: 'inline',
    // Nothing here may reach the internet: a closed local port answers at once.
    modelEndpoint: 'https://127.0.0.1:9',
    // No display: insert:test must never type into whatever window the developer has focused.
    insertEnv: {},
  });
});
after(async () => {
  await services.dispose();
  rmSync(userDataDir, { recursive: true, force: true });
});

const ctx = { clientId: 'test' };

test('every contract channel has a validator and a handler', () => {
  assert.deepEqual(Object.keys(PAYLOAD_VALIDATORS).sort(), [...INVOKE_CHANNELS].sort());
  assert.deepEqual(services.router.channels(), [...INVOKE_CHANNELS]);
});

/** Payloads that are wrong for every channel, plus per-channel type errors. */
const GENERIC_BAD: unknown[] = [42, 'text', [1, 2], { unknownField: 1 }, true];
const SPECIFIC_BAD: Partial<Record<InvokeChannel, unknown[]>> = {
  'devices:select': [{}, { name: '' }, { name: 7 }, { name: 'x'.repeat(1000) }],
  'devices:selfTest': [undefined, null, { name: '' }, { name: 7 }, { name: 'x'.repeat(1000) }, { name: 'CPU', device: 'CPU' }],
  'engine:loadModel': [{ path: 'relative/model.gguf' }, { path: '' }, { path: '/a\0b' }, {}],
  'models:firstRun': [{ locale: 5 }],
  'models:download': [{ id: '' }, { id: null }],
  'models:import': [{ path: 5 }, { path: 'model.gguf' }],
  'models:setActive': [{}],
  'settings:set': [undefined, { threads: 1.5 }, { threads: -1 }, { dictation: { pauseMs: 1 } }, { audio: { echoCancellation: 'yes' } }, { device: '' }, { mirrorEndpoint: 'ftp://x' },
    { history: { enabled: 'yes' } }, { history: { keepDays: -1 } }, { history: { maxEntries: 0 } }, { history: { retention: 3 } },
    { insert: { mode: 'shout' } }, { insert: { restoreClipboard: 1 } }, { insert: { restoreDelayMs: 10 } }, { hotkey: { toggle: 'A' } },
    { hotkey: { toggle: 'Ctrl+Nope' } }, { hotkey: { toggle: '' } },
    { text: { spokenPunctuation: 'yes' } }, { text: { replacements: [{ from: '', to: 'x' }] } }, { text: { replacements: [{ from: 'a', to: 'b', x: 1 }] } },
    { text: { replacements: 'a=b' } }, { text: { trailingSpace: 1 } }],
  'insert:test': [{ text: '' }, { text: 5 }, { text: 'x'.repeat(2001) }, { mode: 'type' }, { intoOwnWindow: 'yes' }],
  'files:uploadBegin': [{ name: 'a.wav' }, { name: '', sizeBytes: 1 }, { name: 'a.wav', sizeBytes: -1 }, { name: 'a.wav', sizeBytes: 1.5 }, { name: 'a\0.wav', sizeBytes: 1 }],
  'files:uploadCancel': [{ uploadId: 0 }, { uploadId: '1' }, { uploadId: 2 ** 31 }],
  'files:transcribeUpload': [{}, { uploadId: 1, options: { decoder: 'beam' } }],
  'meeting:start': [{ micSampleRate: -1 }, { micSampleRate: 44100.5 }, { systemAudio: 'yes' }, { tracks: 2 }],
  'meeting:stop': [{}, { meetingId: 's1' }, { meetingId: 'm1', sentSamples: -5 }, { meetingId: '../m1' }],
  'meeting:retranscribe': [{}, { entryId: '../x' }, { entryId: '20250101-120000-abcdef', decoder: 'best' }],
  'meeting:attach': [{}, { meetingId: 's1' }, { meetingId: 'm1', micStreamId: 's1' }],
  'meeting:current': [{ meetingId: 'm1' }],
  'meeting:checkSystemAudio': [{ now: true }],
  'meeting:marker': [{ meetingId: 'm1' }, { meetingId: 'm1', text: '' }, { meetingId: 'm1', text: 'x'.repeat(2001) }, { meetingId: 'x', text: 'a' }],
  'dictation:start': [undefined, {}, { sampleRate: 'fast' }, { sampleRate: 100 }, { sampleRate: 16000, preRollMs: -1 }],
  'dictation:stop': [{ sessionId: 'x1' }, { sessionId: 1 }],
  'dictation:cancel': [{}],
  'files:transcribe': [{ path: '/a.wav', options: { decoder: 'beam' } }, { path: '/a.wav', options: 3 }],
  'files:cancel': [{ jobId: 'job' }],
  'history:list': [undefined, null, { query: '' }, { query: 5 }, { kind: 'podcast' }, { limit: 0 }, { limit: 1.5 }, { offset: -1 }, { query: 'x'.repeat(201) }],
  // An id names a file: nothing that could be a path gets through.
  'history:get': [{}, { id: '' }, { id: '../index' }, { id: 'a/b' }, { id: 'A B' }, { id: 7 }],
  'history:delete': [{}, { id: '..' }, { id: '/etc/passwd' }, { id: 'x'.repeat(65) }],
  'history:media': [{}, { id: '../audio' }, { id: 'a/b' }, { id: 'x', source: 'mix' }],
  'history:editSegment': [{ id: 'x', segmentId: 0 }, { id: 'x', segmentId: -1, text: 'a' }, { id: 'x', segmentId: 1.5, text: 'a' },
    { id: 'x', segmentId: 0, text: 7 }, { id: 'x', segmentId: 0, text: 'x'.repeat(100_001) }, { id: '..', segmentId: 0, text: 'a' }],
  'history:renameSpeaker': [{ id: 'x', from: 'Speaker 1' }, { id: 'x', from: 3, to: 'Ana' }, { id: 'x', from: 'a', to: 'x'.repeat(65) }, { id: '..', from: 'a', to: 'b' }],
};

test('malformed payloads on every channel: INVALID_PAYLOAD naming the field, and the router keeps working', async () => {
  let checked = 0;
  for (const channel of INVOKE_CHANNELS) {
    for (const payload of [...GENERIC_BAD, ...(SPECIFIC_BAD[channel] ?? [])]) {
      const result = await services.router.handle(channel, payload, ctx);
      assert.equal(result.ok, false, `${channel} accepted ${JSON.stringify(payload)}`);
      if (!result.ok) {
        assert.equal(result.error.code, 'INVALID_PAYLOAD', `${channel} ${JSON.stringify(payload)}: ${result.error.message}`);
        assert.match(result.error.message, new RegExp(`^${channel}: payload`));
      }
      checked += 1;
    }
  }
  assert.ok(checked > 150);
  const info = await services.router.handle('app:info', undefined, ctx);
  assert.equal(info.ok, true);
});

test('unknown channels (including prototype names) are UNKNOWN_CHANNEL', async () => {
  for (const channel of ['nope', '__proto__', 'constructor', 'toString', 42, null, 'app:info '] as unknown[]) {
    const result = await services.router.handle(channel, undefined, ctx);
    assert.deepEqual(result.ok ? null : result.error.code, 'UNKNOWN_CHANNEL', String(channel));
  }
});

/** One well-formed request per channel; each must come back as a Result (value or coded error). */
const VALID: Record<InvokeChannel, unknown> = {
  'app:info': undefined,
  'app:openLogFolder': undefined,
  'app:diagnostics': undefined,
  'devices:list': undefined,
  'devices:select': { name: 'cpu' },
  'devices:selfTest': { name: 'CPU' },
  'engine:status': undefined,
  'engine:loadModel': { path: '/nonexistent/model.gguf' },
  'models:state': undefined,
  'models:catalog': undefined,
  'models:firstRun': { locale: 'de-DE' },
  'models:download': { id: 'no-such-model' },
  'models:pause': { id: 'no-such-model' },
  'models:resume': { id: 'no-such-model' },
  'models:cancel': { id: 'no-such-model' },
  'models:remove': { id: 'no-such-model' },
  'models:setActive': { id: 'no-such-model' },
  'models:import': { path: '/nonexistent/model.gguf' },
  'models:cancelImport': undefined,
  'models:pickFile': undefined,
  'settings:get': undefined,
  'settings:set': { threads: 1 },
  'dictation:start': { sampleRate: 16000 },
  'dictation:stop': { sessionId: 's999' },
  'dictation:cancel': { sessionId: 's999' },
  'dictation:summary': { sessionId: 's999' },
  'files:transcribe': { path: '/nonexistent/a.wav' },
  'files:cancel': { jobId: 'f999' },
  'files:pickFile': undefined,
  'history:list': { query: 'hello', kind: 'file', limit: 10, offset: 0 },
  'history:get': { id: '20250101-120000-abcdef' },
  'history:delete': { id: '20250101-120000-abcdef' },
  'history:clear': undefined,
  'insert:test': { text: 'x' },
  'files:uploadBegin': { name: 'meeting.wav', sizeBytes: 1000 },
  'files:uploadCancel': { uploadId: 999 },
  'files:transcribeUpload': { uploadId: 999 },
  'insert:check': undefined,
  'meeting:start': { micSampleRate: 16000, systemAudio: false },
  'meeting:stop': { meetingId: 'm999' },
  'meeting:marker': { meetingId: 'm999', text: 'decision' },
  'meeting:current': undefined,
  'meeting:checkSystemAudio': undefined,
  'meeting:attach': { meetingId: 'm999' },
  'meeting:retranscribe': { entryId: '20250101-120000-abcdef', decoder: 'ctc' },
  'history:media': { id: '20250101-120000-abcdef' },
  'history:editSegment': { id: '20250101-120000-abcdef', segmentId: 0, text: 'corrected words' },
  'vocabulary:check': { phrases: [{ phrase: 'Parakeet', weight: 1 }] },
  'history:renameSpeaker': { id: '20250101-120000-abcdef', from: 'Speaker 1', to: 'Ana' },
};

const EXPECTED: Partial<Record<InvokeChannel, string>> = {
  'insert:test': 'NOT_SUPPORTED',
  'files:transcribeUpload': 'NOT_FOUND',
  'devices:selfTest': 'NO_MODEL',
  'app:openLogFolder': 'NOT_SUPPORTED',
  'engine:loadModel': 'NOT_FOUND', // a missing file is "not found" (issue 44 item 4)
  'models:download': 'UNKNOWN_MODEL',
  'models:pause': 'UNKNOWN_MODEL',
  'models:cancel': 'UNKNOWN_MODEL',
  'models:setActive': 'UNKNOWN_MODEL',
  'models:import': 'IO_ERROR',
  'models:pickFile': 'NOT_SUPPORTED',
  'dictation:start': 'NO_MODEL',
  'dictation:stop': 'SESSION_NOT_FOUND',
  'dictation:cancel': 'SESSION_NOT_FOUND',
  'dictation:summary': 'SESSION_NOT_FOUND',
  'files:transcribe': 'NO_MODEL',
  'files:cancel': 'NOT_FOUND',
  'files:pickFile': 'NOT_SUPPORTED',
  'models:resume': 'UNKNOWN_MODEL',
  'models:remove': 'UNKNOWN_MODEL',
  'history:get': 'NOT_FOUND',
  'history:delete': 'NOT_FOUND',
  'meeting:stop': 'NOT_FOUND',
  'meeting:marker': 'NOT_FOUND',
  'meeting:attach': 'NOT_FOUND',
  'meeting:retranscribe': 'NOT_FOUND',
  'history:media': 'NOT_FOUND',
  'history:editSegment': 'NOT_FOUND',
  'history:renameSpeaker': 'NOT_FOUND',
};

test('a well-formed request on every channel gets a Result: a value or an error with a stable code', async () => {
  for (const channel of INVOKE_CHANNELS) {
    const result: Result<unknown> = await services.router.handle(channel, VALID[channel], ctx);
    const expected = EXPECTED[channel];
    if (expected) assert.deepEqual(result.ok ? 'ok' : result.error.code, expected, `${channel}: ${JSON.stringify(result)}`);
    else assert.equal(result.ok, true, `${channel}: ${JSON.stringify(result)}`);
  }
  const devices = await services.router.handle('devices:list', undefined, ctx);
  assert.ok(devices.ok && (devices.value as { devices: { name: string }[] }).devices.some((d) => d.name === 'CPU'));
  const firstRun = await services.router.handle('models:firstRun', { locale: 'de-DE' }, ctx);
  assert.ok(firstRun.ok && (firstRun.value as { recommended: string }).recommended === 'multilingual');
  // The first-run proposal carries this CPU's measured speed (the engine's quick Q8_0 matmul probe).
  const machine = (firstRun.value as { machine: { gflops: number; speedClass: string; realTime: Record<string, number> } | null }).machine;
  assert.ok(machine && machine.gflops > 0, JSON.stringify(machine));
  assert.ok(['fast', 'fine', 'slow'].includes(machine.speedClass));
  assert.ok(machine.realTime['english-dictation']! > machine.realTime.multilingual!);
});

test('models:remove of an id that is not installed is UNKNOWN_MODEL, never ok (path-like ids included)', async () => {
  for (const id of ['../../../etc/passwd', 'no-such-model', 'imported/../../x', '/etc/passwd']) {
    const result = await services.router.handle('models:remove', { id }, ctx);
    assert.equal(result.ok ? 'ok' : result.error.code, 'UNKNOWN_MODEL', id);
  }
});

/** Names every object inherits: `key in shape` would take them for known fields. */
const PROTOTYPE_NAMES = ['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf', 'isPrototypeOf'];

test('prototype names as extra fields are refused on every channel, nested settings groups included', async () => {
  let checked = 0;
  for (const channel of INVOKE_CHANNELS) {
    const valid = VALID[channel];
    const base = typeof valid === 'object' && valid !== null ? JSON.stringify(valid).slice(1, -1) : '';
    for (const name of PROTOTYPE_NAMES) {
      // JSON.parse makes "__proto__" an own property, exactly as a client's message would arrive.
      const payload: unknown = JSON.parse(`{${base}${base ? ',' : ''}"${name}":1}`);
      assert.ok(Object.hasOwn(payload as object, name));
      const result = await services.router.handle(channel, payload, ctx);
      assert.equal(result.ok ? 'ok' : result.error.code, 'INVALID_PAYLOAD', `${channel} accepted extra field ${name}`);
      checked += 1;
    }
  }
  for (const group of ['audio', 'dictation', 'history', 'insert', 'hotkey']) {
    for (const name of PROTOTYPE_NAMES) {
      const result = await services.router.handle('settings:set', JSON.parse(`{"${group}":{"${name}":1}}`), ctx);
      assert.equal(result.ok ? 'ok' : result.error.code, 'INVALID_PAYLOAD', `settings:set ${group}.${name}`);
      checked += 1;
    }
  }
  assert.ok(checked > 200);
});

test('web protocol: audio frames round-trip with and without a sample index; malformed frames throw', () => {
  const frame = Float32Array.from([0.5, -0.25, 1]);
  const plain = decodeAudioFrame(new Uint8Array(encodeAudioFrame(7, frame)));
  assert.deepEqual(plain, { sessionNumber: 7, frame });
  // A Node Buffer view into a larger pool (what ws hands the server).
  const pooled = Buffer.concat([Buffer.alloc(3), Buffer.from(encodeAudioFrame(3, frame, 48_000))]).subarray(3);
  assert.deepEqual(decodeAudioFrame(pooled), { sessionNumber: 3, frame, startSample: 48_000 });
  assert.throws(() => decodeAudioFrame(new Uint8Array(2)));
  assert.throws(() => decodeAudioFrame(new Uint8Array(7)));
  assert.throws(() => decodeAudioFrame(new Uint8Array(encodeAudioFrame(1, frame, 1)).slice(0, 10)));
});
