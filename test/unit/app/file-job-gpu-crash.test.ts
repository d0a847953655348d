// A file job whose engine dies during a window: on a GPU the death is the device's (the host marks it failed and
// reloads the model on the next device), so the job reads the file again and goes on from that window, keeping
// the windows already decoded (a 30-minute file is not lost at window 70); on the CPU the file itself may be the
// cause, so the job fails as it did. Once per job; a second reading with another plan fails it too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeviceInfo, ModelInfo } from '../../../native/index.js';
import type { EngineFileHandle, EngineTranscript } from '../../../app/engine-process/protocol.js';
import { runFileJob, type FileJobDeps } from '../../../app/main/engine/file-job.js';
import { nullLogger } from '../../../app/main/log.js';
import { CodedError } from '../../../types/errors.js';

const RATE = 16_000;
const MODEL = {
  sampleRate: RATE, hopLength: 160, subsamplingFactor: 8, defaultDecoder: 'ctc', device: { device: { name: 'Vulkan0' } },
} as unknown as ModelInfo;
const GPU = { name: 'Vulkan0', type: 'gpu' } as DeviceInfo;
const CPU = { name: 'CPU', type: 'cpu' } as DeviceInfo;

function plan(handle: number, windows = 4): EngineFileHandle {
  return {
    handle, sampleRate: RATE, samples: windows * RATE,
    windows: Array.from({ length: windows }, (_, i) => ({ begin: i * RATE, end: (i + 1) * RATE })), speechCut: { detector: 'energy' },
  };
}

function windowResult(text: string, device: string): EngineTranscript {
  return {
    text, words: [], tokens: [], durationSec: 1, decoder: 'ctc', device, devicesRan: [device], windows: [], threadsUsed: 1,
    timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, phrasesFired: [], phrasesRejected: [],
  };
}

/** The engine dies at the window indices in `crashAt` (each once); after a death the model is on the CPU. */
function engine(crashAt: number[], plans: EngineFileHandle[]) {
  const calls: string[] = [];
  let device = GPU;
  let opens = 0;
  const request = (async (r: { op: string; index?: number; handle?: number }) => {
    calls.push(`${r.op}${r.index !== undefined ? ` ${r.index}` : ''}${r.handle !== undefined ? ` @${r.handle}` : ''}`);
    if (r.op === 'fileOpen') return plans[Math.min(opens++, plans.length - 1)];
    if (r.op === 'fileWindow') {
      const at = crashAt.indexOf(r.index!);
      if (at >= 0) {
        crashAt.splice(at, 1);
        device = CPU;
        throw new CodedError('ENGINE_CRASHED', 'the engine process stopped (killed by SIGSEGV) while transcribing this file; it was not tried again');
      }
      return windowResult(`w${r.index}`, device.name);
    }
    return null;
  }) as FileJobDeps['request'];
  const deps: FileJobDeps = {
    log: nullLogger, request, inLane: (work) => work(), reloadIfIdle: async () => {}, windowThreads: () => undefined, ran: () => {},
    modelDevice: () => device,
  };
  return { deps, calls, setDevice: (d: DeviceInfo) => { device = d; } };
}

test('the engine dies during a window on a GPU: the file is read again and the job goes on from that window, nothing decoded twice or lost', async () => {
  const e = engine([2], [plan(1), plan(2)]);
  const result = await runFileJob(e.deps, MODEL, '/long.wav', {}, {});
  assert.equal(result.text, 'w0 w1 w2 w3');
  assert.deepEqual(result.devicesRan.sort(), ['CPU', 'Vulkan0']);
  assert.deepEqual(e.calls, ['fileOpen', 'fileWindow 0 @1', 'fileWindow 1 @1', 'fileWindow 2 @1', 'fileOpen', 'fileWindow 2 @2', 'fileWindow 3 @2', 'fileClose @2']);
});

test('the device is the one the window ran on, read in the lane: a failover ahead of it (the model moved to the CPU) makes a death there the file\'s', async () => {
  const e = engine([1], [plan(1), plan(2)]);
  // The lane runs a dictation failover before window 1: the model is on the CPU when the window starts.
  const deps: FileJobDeps = { ...e.deps, inLane: async (work) => { if (e.calls.length === 2) e.setDevice(CPU); return work(); } };
  await assert.rejects(runFileJob(deps, MODEL, '/e.wav', {}, {}), /the engine process stopped/);
  assert.equal(e.calls.filter((c) => c === 'fileOpen').length, 1, 'not read again');
});

test('on the CPU, a second death, or a second reading with another plan, the job fails with the engine\'s error', async () => {
  const onCpu = engine([1], [plan(1), plan(2)]);
  onCpu.setDevice(CPU);
  await assert.rejects(runFileJob(onCpu.deps, MODEL, '/a.wav', {}, {}), /ENGINE_CRASHED|the engine process stopped/);
  assert.equal(onCpu.calls.filter((c) => c === 'fileOpen').length, 1, 'not read again: the file may be the cause');
  assert.ok(!onCpu.calls.some((c) => c.startsWith('fileClose')), 'the dead engine\'s handle is not closed in the new one (numbers start again there)');

  const twice = engine([1, 2], [plan(1), plan(2)]);
  // The second death happens on the device the first one moved to: the CPU, so it is the file's.
  await assert.rejects(runFileJob(twice.deps, MODEL, '/b.wav', {}, {}), /the engine process stopped/);

  const twiceOnGpus = engine([1, 2], [plan(1), plan(2), plan(3)]);
  const gpuAgain = { ...twiceOnGpus.deps, modelDevice: () => GPU };
  await assert.rejects(runFileJob(gpuAgain, MODEL, '/c.wav', {}, {}), /the second time for this file: it had been read again after the engine stopped on Vulkan0/, 'once per job');

  const replanned = engine([1], [plan(1), plan(2, 5)]);
  await assert.rejects(runFileJob(replanned.deps, MODEL, '/d.wav', {}, {}), /the engine process stopped/);
});
