// Issue 42: a device that fails is marked failed and the session continues on the CPU. A GPU driver that
// kills the engine process while the model loads on the automatic choice (no device named: the engine
// picks the first GPU) must be blamed for it; otherwise nothing is marked, the load is sent again to the
// same automatic choice, and the engine dies on the same GPU again (and at every later try).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CrashInfo } from '../../../app/main/engine/engine-host.js';
import { EngineHost } from '../../../app/main/engine/engine-host.js';
import type { TransportFactory } from '../../../app/main/engine/transport.js';
import type { HostToEngine } from '../../../app/engine-process/protocol.js';
import { nullLogger } from '../../../app/main/log.js';
import { scriptedTransport } from '../../support/scripted-engine.js';

/** An engine whose automatic choice is Vulkan0, and whose driver kills the process when a model loads on it. */
function crashingGpuEngine(loads: (string | undefined)[]): TransportFactory {
  return scriptedTransport(({ post, handlers }) => {
    let dead = false;
    return (m: HostToEngine) => {
      if (dead) return;
      if (m.op === 'load') {
        loads.push(m.options.device);
        const device = m.options.device ?? 'Vulkan0';
        if (device.toLowerCase() === 'vulkan0') {
          dead = true;
          setImmediate(() => handlers.exit({ code: null, signal: 'SIGSEGV' }));
          return;
        }
        post({ t: 'result', id: m.id, ok: true, value: {
          path: m.path, name: 'scripted', sampleRate: 16_000, hopLength: 160, subsamplingFactor: 8, frameSec: 0.08, threads: 2,
          device: { requested: device, source: 'argument', device: { name: 'CPU', type: 'cpu' }, fellBack: false, reason: '' }, loadMs: 1,
        } });
        return;
      }
      post({ t: 'result', id: m.id, ok: true, value: null });
    };
  });
}

test('the engine dies while loading on the automatic choice: that GPU is blamed, and the load goes to the CPU', async () => {
  const loads: (string | undefined)[] = [];
  const failed = new Set<string>();
  const host = new EngineHost({
    mode: 'inline', log: nullLogger, transport: crashingGpuEngine(loads), restartDelaysMs: [0],
    // The registry: its device for a reload (the failed ones excluded), and what the engine's Auto picks.
    deviceAfterCrash: () => (failed.size > 0 ? 'CPU' : undefined),
    autoDevice: () => 'Vulkan0',
  });
  const crashes: CrashInfo[] = [];
  host.on('crashed', (info) => {
    crashes.push(info);
    if (info.device) failed.add(info.device.toLowerCase());
  });
  try {
    await host.start();
    const info = await host.loadModel('/m.gguf');
    assert.equal(info.device.device.name, 'CPU');
    assert.deepEqual(crashes.map((c) => c.device), ['Vulkan0'], 'the death is blamed on the GPU the automatic load ran on');
    assert.deepEqual(loads, [undefined, 'CPU'], 'sent again once, to the CPU');
  } finally {
    await host.dispose();
  }
});
