// Issue 42: a self-test asked for in Devices whose own decode fails with DEVICE_UNAVAILABLE (a lost GPU) fails
// the device as a failed decode does: reported (Auto stops choosing it) and, when the model is on it, the model
// moves to the next device, which the load's self-test then checks; a device not in use is only reported. The
// user still gets the error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeviceSelfTest } from '../../../app/ipc/contract.js';
import { EngineHost } from '../../../app/main/engine/engine-host.js';
import { nullLogger } from '../../../app/main/log.js';
import { scriptedTransport } from '../../support/scripted-engine.js';

/** Vulkan0 is lost: its self-test's decode fails; the CPU works. Auto puts the model on Vulkan0. */
function lostGpuEngine(loads: (string | undefined)[]): ReturnType<typeof scriptedTransport> {
  return scriptedTransport(({ post }) => {
    let device = { name: 'Vulkan0', type: 'gpu' as 'gpu' | 'cpu' };
    return (m) => {
      if (m.op === 'load') {
        loads.push(m.options.device);
        device = m.options.device === 'CPU' ? { name: 'CPU', type: 'cpu' } : { name: 'Vulkan0', type: 'gpu' };
        post({ t: 'result', id: m.id, ok: true, value: {
          path: m.path, name: 'scripted', sampleRate: 16_000, hopLength: 160, subsamplingFactor: 8, frameSec: 0.08, threads: 2,
          device: { requested: m.options.device ?? '', source: 'auto', device, fellBack: false, reason: '' }, loadMs: 1,
        } });
        return;
      }
      if (m.op === 'selfTest') {
        const tested = m.device ?? device.name;
        if (tested === 'Vulkan0' && m.trigger === 'manual') {
          post({ t: 'result', id: m.id, ok: false, error: { code: 'DEVICE_UNAVAILABLE', message: 'the compute device Vulkan0 failed while running the encoder' } });
          return;
        }
        const result: DeviceSelfTest = {
          device: tested, reference: 'cpu', trigger: m.trigger, passed: true, relL2: 1e-3, tolerance: 3e-2, tokensMatch: true,
          detail: 'matches the CPU', durationMs: 1, at: new Date(0).toISOString(),
        };
        post({ t: 'result', id: m.id, ok: true, value: result });
        return;
      }
      post({ t: 'result', id: m.id, ok: true, value: null });
    };
  });
}

async function host(loads: (string | undefined)[]): Promise<{ host: EngineHost; failed: string[] }> {
  const failed: string[] = [];
  const h = new EngineHost({ mode: 'inline', log: nullLogger, transport: lostGpuEngine(loads), deviceAfterCrash: () => (failed.length > 0 ? 'CPU' : undefined) });
  h.on('deviceFailed', ({ device }) => failed.push(device));
  await h.start();
  await h.loadModel('/m.gguf');
  return { host: h, failed };
}

test('a manual self-test of the GPU in use that fails with DEVICE_UNAVAILABLE: the GPU is failed and the model moves to the CPU', async () => {
  const loads: (string | undefined)[] = [];
  const { host: h, failed } = await host(loads);
  try {
    assert.equal(h.loadedModel?.device.device.name, 'Vulkan0');
    await assert.rejects(h.selfTest(), { code: 'DEVICE_UNAVAILABLE' });
    assert.deepEqual(failed, ['Vulkan0']);
    assert.equal(h.loadedModel?.device.device.name, 'CPU', 'the model left the lost GPU');
    assert.deepEqual(loads, [undefined, 'CPU']);
  } finally {
    await h.dispose();
  }
});

test('a manual self-test of a GPU not in use that fails with DEVICE_UNAVAILABLE: the GPU is reported failed, the model stays', async () => {
  const loads: (string | undefined)[] = [];
  const { host: h, failed } = await host(loads);
  try {
    await h.loadModel('/m.gguf', { device: 'CPU' });
    await assert.rejects(h.selfTest('Vulkan0'), { code: 'DEVICE_UNAVAILABLE' });
    assert.deepEqual(failed, ['Vulkan0']);
    assert.equal(h.loadedModel?.device.device.name, 'CPU');
    assert.deepEqual(loads, [undefined, 'CPU'], 'no reload');
  } finally {
    await h.dispose();
  }
});
