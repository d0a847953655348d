// EngineHost's lane with a scripted engine: a file window that is running when a final (or a partial)
// arrives is stopped through the engine's cancel and run again after it, so the live decode waits for the
// cancel, not for the window; a window stopped MAX_FILE_PREEMPTIONS times runs to its end the next time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineHost, MAX_FILE_PREEMPTIONS } from '../../../app/main/engine/engine-host.js';
import type { EngineToHost, HostToEngine } from '../../../app/main/engine/protocol.js';
import type { TransportFactory } from '../../../app/main/engine/transport.js';
import { nullLogger } from '../../../app/main/log.js';

const WINDOW_MS = 400;

function scriptedEngine(log: string[]): TransportFactory {
  return (handlers) => {
    const timers = new Map<number, NodeJS.Timeout>();
    const post = (m: EngineToHost): void => {
      setImmediate(() => handlers.message(m));
    };
    const transcript = (text: string) => ({
      text, words: [], tokens: [], durationSec: 1, decoder: 'tdt', device: 'CPU', devicesRan: ['CPU'],
      timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, windows: [{ start: 0, end: 1 }],
    });
    post({ t: 'ready', available: true, error: null, build: null, pid: 1 });
    return {
      pid: 1,
      kind: 'inline',
      kill: () => undefined,
      send: (m: HostToEngine) => {
        switch (m.op) {
          case 'load':
            post({ t: 'result', id: m.id, ok: true, value: {
              path: m.path, name: 'scripted', sampleRate: 16_000, hopLength: 160, subsamplingFactor: 8, frameSec: 0.08,
              device: { device: { name: 'CPU', type: 'cpu' } }, loadMs: 1,
            } });
            return;
          case 'fileOpen':
            post({ t: 'result', id: m.id, ok: true, value: {
              handle: 1, sampleRate: 16_000, samples: 48_000, windows: [{ begin: 0, end: 16_000 }, { begin: 16_000, end: 32_000 }, { begin: 32_000, end: 48_000 }],
            } });
            return;
          case 'fileWindow':
            log.push(`window ${m.index} start`);
            timers.set(m.id, setTimeout(() => {
              timers.delete(m.id);
              log.push(`window ${m.index} done`);
              post({ t: 'result', id: m.id, ok: true, value: transcript(`w${m.index}`) });
            }, WINDOW_MS));
            return;
          case 'cancel': {
            const timer = timers.get(m.target);
            if (timer) {
              clearTimeout(timer);
              timers.delete(m.target);
              log.push('window stopped');
              post({ t: 'result', id: m.target, ok: false, error: { code: 'ABORTED', message: 'cancelled' } });
            }
            post({ t: 'result', id: m.id, ok: true, value: null });
            return;
          }
          case 'transcribe':
            log.push('live');
            post({ t: 'result', id: m.id, ok: true, value: transcript('live') });
            return;
          default:
            post({ t: 'result', id: m.id, ok: true, value: null });
        }
      },
    };
  };
}

async function started(log: string[]): Promise<EngineHost> {
  const host = new EngineHost({ mode: 'inline', log: nullLogger, transport: scriptedEngine(log) });
  await host.start();
  await host.loadModel('/scripted.gguf');
  return host;
}

test('a final arriving mid-window stops the window, runs at once, and the window runs again after it', async () => {
  const log: string[] = [];
  const host = await started(log);
  const file = host.transcribeFile('/meeting.wav', {});
  await new Promise((r) => setTimeout(r, 50)); // window 0 is running
  const t0 = performance.now();
  const final = await host.transcribe(new Float32Array(1600), {}, { priority: 'final' });
  const waited = performance.now() - t0;
  assert.equal(final?.text, 'live');
  assert.ok(waited < WINDOW_MS / 2, `the final waited ${waited.toFixed(0)} ms, not the rest of a window`);
  const result = await file;
  assert.equal(result.text, 'w0 w1 w2', 'the stopped window was run again; nothing lost or repeated');
  assert.deepEqual(log.slice(0, 4), ['window 0 start', 'window stopped', 'live', 'window 0 start']);
  await host.dispose();
});

test('a partial mid-window is decoded (not skipped) and stops the window too', async () => {
  const log: string[] = [];
  const host = await started(log);
  const file = host.transcribeFile('/meeting.wav', {});
  await new Promise((r) => setTimeout(r, 50));
  const partial = await host.transcribe(new Float32Array(1600), {}, { priority: 'partial', skipIfBusy: true });
  assert.equal(partial?.text, 'live');
  assert.equal((await file).text, 'w0 w1 w2');
  await host.dispose();
});

test(`a window stopped ${MAX_FILE_PREEMPTIONS} times runs to its end: the file job always progresses`, async () => {
  const log: string[] = [];
  const host = await started(log);
  const file = host.transcribeFile('/meeting.wav', {});
  for (let k = 0; k <= MAX_FILE_PREEMPTIONS; k += 1) {
    await new Promise((r) => setTimeout(r, 50));
    await host.transcribe(new Float32Array(1600), {}, { priority: 'final' });
  }
  await file;
  const stops = log.filter((l) => l === 'window stopped').length;
  assert.equal(stops, MAX_FILE_PREEMPTIONS);
  assert.equal(log.indexOf('window 0 done') < log.lastIndexOf('live'), true, 'the last final waited for the protected window');
  await host.dispose();
});

test('a cancel between two windows stops the job: no later window runs', async () => {
  const log: string[] = [];
  const host = await started(log);
  const controller = new AbortController();
  const file = host.transcribeFile('/meeting.wav', {}, {
    signal: controller.signal,
    // Right after window 0: the abort lands while no window runs.
    onProgress: (fraction) => {
      if (fraction > 0) controller.abort();
    },
  });
  await assert.rejects(file, (e: Error & { code?: string }) => e.code === 'ABORTED');
  await new Promise((r) => setTimeout(r, WINDOW_MS + 100));
  assert.deepEqual(log.filter((l) => l.startsWith('window') && l.endsWith('start')), ['window 0 start']);
  await host.dispose();
});
