// Issue 42: a device that fails while decoding is marked failed and the session continues on the CPU
// with nothing lost. A file window and a live final run beside each other on the same model, so a lost
// GPU fails both: the model must move once (not once per failed call), and the call whose decode the
// move itself aborted (the engine's load disposes the old model, and its calls in flight end ABORTED)
// must run again on the CPU instead of failing as if the user had cancelled it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Notice } from '../../../app/ipc/contract.js';
import { EngineHost } from '../../../app/main/engine/engine-host.js';
import type { TransportFactory } from '../../../app/main/engine/transport.js';
import type { HostToEngine } from '../../../app/engine-process/protocol.js';
import { nullLogger } from '../../../app/main/log.js';
import { scriptedTranscript, scriptedTransport } from '../../support/scripted-engine.js';

interface Script {
  /** How long a window / a live decode takes on the GPU before it fails (the CPU answers after the same time). */
  windowMs: number;
  liveMs: number;
  loadMs: number;
}

interface Seen {
  loads: (string | undefined)[];
  /** Calls the engine answered with a transcript, by kind and device. */
  done: string[];
}

function scriptedEngine(script: Script, seen: Seen): TransportFactory {
  return scriptedTransport(({ post }) => {
    let device: { name: string; type: 'gpu' | 'cpu' } = { name: 'CPU', type: 'cpu' };
    const inFlight = new Map<number, NodeJS.Timeout>();
    /** A decode on the model's device as it was when the call started: the GPU is lost, the CPU works. */
    const decode = (id: number, ms: number, text: string): void => {
      const on = device;
      inFlight.set(id, setTimeout(() => {
        inFlight.delete(id);
        if (on.type === 'gpu') {
          post({ t: 'result', id, ok: false, error: { code: 'DEVICE_UNAVAILABLE', message: `the compute device ${on.name} failed while running the encoder` } });
        } else {
          seen.done.push(`${text} on ${on.name}`);
          post({ t: 'result', id, ok: true, value: scriptedTranscript(text, on.name) });
        }
      }, ms));
    };
    return (m: HostToEngine) => {
      switch (m.op) {
        case 'load': {
          seen.loads.push(m.options.device);
          setTimeout(() => {
            // Model.dispose of the old model: its calls in flight end with ABORTED.
            for (const [id, timer] of inFlight) {
              clearTimeout(timer);
              post({ t: 'result', id, ok: false, error: { code: 'ABORTED', message: 'transcription cancelled' } });
            }
            inFlight.clear();
            device = m.options.device === 'CPU' ? { name: 'CPU', type: 'cpu' } : { name: 'Vulkan0', type: 'gpu' };
            post({ t: 'result', id: m.id, ok: true, value: {
              path: m.path, name: 'scripted', sampleRate: 16_000, hopLength: 160, subsamplingFactor: 8, frameSec: 0.08, threads: 2,
              device: { requested: '', source: 'auto', device, fellBack: false, reason: '' }, loadMs: 1,
            } });
          }, script.loadMs);
          return;
        }
        case 'selfTest':
          post({ t: 'result', id: m.id, ok: true, value: {
            device: device.name, reference: 'cpu', trigger: m.trigger, passed: true, relL2: 1e-3, tolerance: 3e-2, tokensMatch: true,
            detail: 'matches the CPU', durationMs: 1, at: new Date(0).toISOString(),
          } });
          return;
        case 'fileOpen':
          post({ t: 'result', id: m.id, ok: true, value: { handle: 1, sampleRate: 16_000, samples: 16_000, windows: [{ begin: 0, end: 16_000 }], speechCut: { detector: 'energy' } } });
          return;
        case 'fileWindow':
          decode(m.id, script.windowMs, 'window');
          return;
        case 'transcribe':
          decode(m.id, script.liveMs, 'live');
          return;
        case 'cancel': {
          const timer = inFlight.get(m.target);
          if (timer) {
            clearTimeout(timer);
            inFlight.delete(m.target);
            post({ t: 'result', id: m.target, ok: false, error: { code: 'ABORTED', message: 'transcription cancelled' } });
          }
          post({ t: 'result', id: m.id, ok: true, value: null });
          return;
        }
        default:
          post({ t: 'result', id: m.id, ok: true, value: null });
      }
    };
  });
}

async function hostOnGpu(script: Script): Promise<{ host: EngineHost; seen: Seen; notices: Notice[] }> {
  const seen: Seen = { loads: [], done: [] };
  const failed = new Set<string>();
  const host = new EngineHost({
    mode: 'inline', log: nullLogger, transport: scriptedEngine(script, seen),
    // The registry's answer: the automatic choice until the GPU failed, then the CPU.
    deviceAfterCrash: () => (failed.size > 0 ? 'CPU' : undefined),
  });
  host.on('deviceFailed', ({ device }) => failed.add(device));
  const notices: Notice[] = [];
  host.on('notice', (n) => notices.push(n));
  await host.start();
  await host.loadModel('/scripted.gguf');
  assert.equal(host.loadedModel?.device.device.name, 'Vulkan0');
  return { host, seen, notices };
}

const pcm = new Float32Array(1600);

test('a GPU lost under a file window and a final beside it: the model moves to the CPU once, both calls run again there', async () => {
  const { host, seen, notices } = await hostOnGpu({ windowMs: 60, liveMs: 60, loadMs: 40 });
  try {
    const file = host.transcribeFile('/meeting.wav', {});
    await new Promise((r) => setTimeout(r, 10));
    const final = host.transcribe(pcm, {}, { priority: 'final' });
    const [fileResult, finalResult] = await Promise.all([file, final]);
    assert.equal(fileResult.text, 'window');
    assert.deepEqual(fileResult.devicesRan, ['CPU']);
    assert.equal(finalResult?.text, 'live');
    assert.deepEqual(finalResult?.devicesRan, ['CPU']);
    assert.deepEqual(seen.loads, [undefined, 'CPU'], 'one move to the CPU, not one per failed call');
    assert.equal(notices.filter((n) => n.code === 'DEVICE_FAILED').length, 1, JSON.stringify(notices));
    assert.equal(host.loadedModel?.device.device.name, 'CPU');
  } finally {
    await host.dispose();
  }
});

test('the final fails first and the move aborts the file window beside it: the window runs again on the CPU (not "cancelled")', async () => {
  const { host, seen } = await hostOnGpu({ windowMs: 400, liveMs: 20, loadMs: 20 });
  try {
    const file = host.transcribeFile('/meeting.wav', {});
    await new Promise((r) => setTimeout(r, 10));
    const final = await host.transcribe(pcm, {}, { priority: 'final' });
    assert.deepEqual(final?.devicesRan, ['CPU']);
    const fileResult = await file;
    assert.equal(fileResult.text, 'window', 'the window aborted by the move is decoded again, nothing lost');
    assert.deepEqual(fileResult.devicesRan, ['CPU']);
    assert.deepEqual(seen.loads, [undefined, 'CPU']);
    assert.deepEqual(seen.done.sort(), ['live on CPU', 'window on CPU'], 'each call decoded once on the CPU');
  } finally {
    await host.dispose();
  }
});

test('the file window fails first and the move aborts the final beside it: the final runs again on the CPU', async () => {
  const { host, seen } = await hostOnGpu({ windowMs: 20, liveMs: 400, loadMs: 20 });
  try {
    const file = host.transcribeFile('/meeting.wav', {});
    await new Promise((r) => setTimeout(r, 10));
    const final = await host.transcribe(pcm, {}, { priority: 'final' });
    assert.equal(final?.text, 'live', 'the final aborted by the move is decoded again, nothing lost');
    assert.deepEqual(final?.devicesRan, ['CPU']);
    assert.equal((await file).text, 'window');
    assert.deepEqual(seen.loads, [undefined, 'CPU']);
  } finally {
    await host.dispose();
  }
});

test('a call the caller cancelled stays cancelled (no re-run after a move)', async () => {
  const { host, seen } = await hostOnGpu({ windowMs: 20, liveMs: 400, loadMs: 20 });
  try {
    const controller = new AbortController();
    const final = host.transcribe(pcm, {}, { priority: 'final', signal: controller.signal });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await assert.rejects(final, (error: Error & { code?: string }) => error.code === 'ABORTED');
    assert.deepEqual(seen.loads, [undefined]);
  } finally {
    await host.dispose();
  }
});

test('a load queued behind a decode that fails over asks for its device when it runs: the model is not put back on the GPU that just failed', async () => {
  const seen: Seen = { loads: [], done: [] };
  const failed = new Set<string>();
  const registryChoice = (): string | undefined => (failed.size > 0 ? 'CPU' : undefined);
  const host = new EngineHost({ mode: 'inline', log: nullLogger, transport: scriptedEngine({ windowMs: 60, liveMs: 60, loadMs: 10 }, seen), deviceAfterCrash: registryChoice });
  host.on('deviceFailed', ({ device }) => failed.add(device));
  try {
    await host.start();
    await host.loadModel('/scripted.gguf');
    assert.equal(host.loadedModel?.device.device.name, 'Vulkan0');
    const final = host.transcribe(pcm, {}, { priority: 'final' });
    await new Promise((r) => setTimeout(r, 10));
    // A settings change (threads) queues a reload while the final runs on the GPU; Auto's choice then is "the engine's" (the GPU).
    const reload = host.loadModel('/scripted.gguf', { device: registryChoice(), threads: 3, deviceAtLoad: registryChoice });
    await Promise.all([final, reload]);
    assert.deepEqual(seen.loads, [undefined, 'CPU', 'CPU'], 'the failover\'s load, then the queued reload, both on the CPU');
    assert.equal(host.loadedModel?.device.device.name, 'CPU');
  } finally {
    await host.dispose();
  }
});
