// EngineHost's lane with a scripted engine: a final (or a partial) that arrives while a file window runs
// runs beside it at once (the engine has a state for each), the window is never stopped or run twice,
// finals never run two at a time, a load waits for the window, and while dictation holds the model the
// threads are split between the two sides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineHost } from '../../../app/main/engine/engine-host.js';
import type { HostToEngine } from '../../../app/engine-process/protocol.js';
import type { TransportFactory } from '../../../app/main/engine/transport.js';
import { nullLogger } from '../../../app/main/log.js';
import { scriptedTranscript, scriptedTransport } from '../../support/scripted-engine.js';

const WINDOW_MS = 400;
const LIVE_MS = 60;

/** What the scripted engine saw: the order of events, the threads each call asked for, the most calls at once. */
interface Seen {
  log: string[];
  threads: { op: string; maxThreads: number | undefined }[];
  live: number;
  maxLive: number;
  calls: number;
  maxCalls: number;
}

function seen(): Seen {
  return { log: [], threads: [], live: 0, maxLive: 0, calls: 0, maxCalls: 0 };
}

function scriptedEngine(s: Seen): TransportFactory {
  const log = s.log;
  return scriptedTransport(({ post }) => {
    const timers = new Map<number, NodeJS.Timeout>();
    return (m: HostToEngine) => {
      switch (m.op) {
        case 'load':
          log.push('load');
          post({ t: 'result', id: m.id, ok: true, value: {
            path: m.path, name: 'scripted', sampleRate: 16_000, hopLength: 160, subsamplingFactor: 8, frameSec: 0.08, threads: 2,
            device: { device: { name: 'CPU', type: 'cpu' } }, loadMs: 1,
          } });
          return;
        case 'fileOpen':
          post({ t: 'result', id: m.id, ok: true, value: {
            handle: 1, sampleRate: 16_000, samples: 48_000, windows: [{ begin: 0, end: 16_000 }, { begin: 16_000, end: 32_000 }, { begin: 32_000, end: 48_000 }], speechCut: { detector: 'energy' },
          } });
          return;
        case 'fileWindow':
          log.push(`window ${m.index} start`);
          s.threads.push({ op: 'window', maxThreads: m.options.maxThreads });
          s.maxCalls = Math.max(s.maxCalls, ++s.calls);
          timers.set(m.id, setTimeout(() => {
            timers.delete(m.id);
            s.calls -= 1;
            log.push(`window ${m.index} done`);
            post({ t: 'result', id: m.id, ok: true, value: scriptedTranscript(`w${m.index}`) });
          }, WINDOW_MS));
          return;
        case 'cancel': {
          const timer = timers.get(m.target);
          if (timer) {
            clearTimeout(timer);
            timers.delete(m.target);
            s.calls -= 1;
            log.push('window stopped');
            post({ t: 'result', id: m.target, ok: false, error: { code: 'ABORTED', message: 'cancelled' } });
          }
          post({ t: 'result', id: m.id, ok: true, value: null });
          return;
        }
        case 'transcribe':
          log.push('live');
          s.threads.push({ op: 'live', maxThreads: m.options.maxThreads });
          s.maxLive = Math.max(s.maxLive, ++s.live);
          s.maxCalls = Math.max(s.maxCalls, ++s.calls);
          setTimeout(() => {
            s.live -= 1;
            s.calls -= 1;
            log.push('live done');
            post({ t: 'result', id: m.id, ok: true, value: scriptedTranscript('live') });
          }, LIVE_MS);
          return;
        default:
          post({ t: 'result', id: m.id, ok: true, value: null });
      }
    };
  });
}

async function started(s: Seen, inUse = false): Promise<EngineHost> {
  const host = new EngineHost({ mode: 'inline', log: nullLogger, transport: scriptedEngine(s), inUse: () => inUse });
  await host.start();
  await host.loadModel('/scripted.gguf');
  return host;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pcm = new Float32Array(1600);

/** A started host with window 0 of a file job running. */
async function windowRunning(s: Seen, inUse = false): Promise<{ host: EngineHost; file: Promise<{ text: string }> }> {
  const host = await started(s, inUse);
  const file = host.transcribeFile('/meeting.wav', {});
  await pause(50);
  return { host, file };
}

test('a final arriving mid-window runs beside it at once; the window is neither stopped nor run again', async () => {
  const s = seen();
  const { host, file } = await windowRunning(s);
  const t0 = performance.now();
  const final = await host.transcribe(pcm, {}, { priority: 'final' });
  const waited = performance.now() - t0;
  assert.equal(final?.text, 'live');
  assert.ok(waited < LIVE_MS + WINDOW_MS / 4, `the final took ${waited.toFixed(0)} ms: its own decode, not the rest of a window`);
  const result = await file;
  assert.equal(result.text, 'w0 w1 w2', 'every window once; nothing lost or repeated');
  assert.deepEqual(s.log.slice(1, 5), ['window 0 start', 'live', 'live done', 'window 0 done']);
  assert.equal(s.log.filter((l) => l === 'window stopped').length, 0);
  assert.equal(s.log.filter((l) => l === 'window 0 start').length, 1);
  assert.equal(s.maxCalls, 2, 'the final and the window ran at the same time');
  await host.dispose();
});

test('a partial mid-window is decoded at once (not skipped); a partial behind a running final is skipped', async () => {
  const s = seen();
  const { host, file } = await windowRunning(s);
  const partial = await host.transcribe(pcm, {}, { priority: 'partial', skipIfBusy: true });
  assert.equal(partial?.text, 'live');
  const final = host.transcribe(pcm, {}, { priority: 'final' });
  await pause(5);
  assert.equal(await host.transcribe(pcm, {}, { priority: 'partial', skipIfBusy: true }), null);
  await final;
  assert.equal((await file).text, 'w0 w1 w2');
  await host.dispose();
});

test('finals never run two at a time (one dictation state), even beside a window; they keep their order', async () => {
  const s = seen();
  const { host, file } = await windowRunning(s);
  const texts = await Promise.all([0, 1, 2].map(() => host.transcribe(pcm, {}, { priority: 'final' })));
  assert.deepEqual(texts.map((t) => t?.text), ['live', 'live', 'live']);
  assert.equal(s.maxLive, 1);
  assert.ok(s.maxCalls <= 2, `at most a window and a final at once (${s.maxCalls})`);
  await file;
  await host.dispose();
});

test('a load asked for mid-window waits for the window to end, and the next window waits for the load', async () => {
  const s = seen();
  const { host, file } = await windowRunning(s);
  await host.loadModel('/other.gguf');
  assert.equal((await file).text, 'w0 w1 w2');
  assert.deepEqual(s.log.slice(1, 5), ['window 0 start', 'window 0 done', 'load', 'window 1 start']);
  await host.dispose();
});

test('while a dictation session holds the model, a file window gets half the threads and a live decode the rest; otherwise all', async () => {
  for (const inUse of [false, true]) {
    const s = seen();
    const { host, file } = await windowRunning(s, inUse);
    await host.transcribe(pcm, {}, { priority: 'final' });
    await file;
    const expected = inUse ? 1 : undefined;
    assert.deepEqual(s.threads.filter((t) => t.op === 'window').map((t) => t.maxThreads), [expected, expected, expected], `inUse ${inUse}: windows`);
    assert.deepEqual(s.threads.filter((t) => t.op === 'live').map((t) => t.maxThreads), [expected], `inUse ${inUse}: the final`);
    // No file job: a final gets every thread.
    await host.transcribe(pcm, {}, { priority: 'final' });
    assert.equal(s.threads.at(-1)!.maxThreads, undefined);
    await host.dispose();
  }
});

test('a cancel between two windows stops the job: no later window runs', async () => {
  const s = seen();
  const host = await started(s);
  const controller = new AbortController();
  const file = host.transcribeFile('/meeting.wav', {}, {
    signal: controller.signal,
    // Right after window 0: the abort lands while no window runs.
    onProgress: (fraction) => {
      if (fraction > 0) controller.abort();
    },
  });
  await assert.rejects(file, (e: Error & { code?: string }) => e.code === 'ABORTED');
  await pause(WINDOW_MS + 100);
  assert.deepEqual(s.log.filter((l) => l.startsWith('window') && l.endsWith('start')), ['window 0 start']);
  await host.dispose();
});
