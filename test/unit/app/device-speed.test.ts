// Issue 42 item 3 (main-process half): the self-test's speed decides whether Auto uses a GPU (never one
// measured slower than the CPU, unless the user names it), a GPU's first use is shown while it compiles,
// and the Devices view's words for both. Real DeviceRegistry, DeviceCheck, ModelResidency and FirstUse;
// the engine is an event source with a device list (these tests are about the host's decisions).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DeviceSelfTest, DevicesState, Notice } from '../../../app/ipc/contract.js';
import { DeviceRegistry, slowerThanCpu } from '../../../app/main/devices/device-registry.js';
import { DeviceCheck } from '../../../app/main/engine/device-check.js';
import type { EngineHost, EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import { ModelResidency, type ResidencyDeps } from '../../../app/main/engine/model-residency.js';
import { EventBus } from '../../../app/main/events.js';
import { nullLogger } from '../../../app/main/log.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import { FirstUse } from '../../../app/engine-process/first-use.js';
import type { EngineToHost } from '../../../app/engine-process/protocol.js';
import { gpuDriverText, gpuFeaturesText } from '../../../app/shared/gpu-facts.js';
import { measuredSpeed, speedText } from '../../../renderer/views/devices/device-facts.js';
import type { DeviceInfo, ModelInfo } from '../../../native/index.js';

function device(name: string, type: DeviceInfo['type'], extra: Partial<DeviceInfo> = {}): DeviceInfo {
  return {
    name, type, description: `${name} device`, backend: type === 'cpu' ? 'CPU' : 'Vulkan', memoryFree: 1e9, memoryTotal: 2e9,
    deviceId: '', cpuFeatures: [], cpuThreads: type === 'cpu' ? 2 : 0, softwareRenderer: false, ...extra,
  };
}

const DEVICES = [device('CPU', 'cpu'), device('Vulkan0', 'gpu'), device('Vulkan1', 'gpu')];

function selfTest(name: string, deviceMs: number, referenceMs: number, extra: Partial<DeviceSelfTest> = {}): DeviceSelfTest {
  return {
    device: name, reference: 'cpu', trigger: 'load', passed: true, relL2: 1e-3, tolerance: 3e-2, tokensMatch: true, durationMs: 900,
    at: new Date(0).toISOString(), detail: "matches the CPU's", speed: { audioMs: 1000, deviceMs, referenceMs }, ...extra,
  };
}

/** The engine as the registry hears it: events and a device list. */
class FakeEngine extends TypedEmitter<EngineHostEvents> {
  engineAvailable = true;
  loadedModel: ModelInfo | null = null;
  async listDevices(): Promise<DeviceInfo[]> {
    return DEVICES;
  }

  /** What the engine host emits. */
  fire<K extends keyof EngineHostEvents & string>(event: K, ...args: EngineHostEvents[K]): void {
    this.emit(event, ...args);
  }
}

async function registryWith(device: string): Promise<{ registry: DeviceRegistry; engine: FakeEngine; settings: SettingsStore; states: DevicesState[]; done: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'parakeet-device-speed-'));
  const settings = await SettingsStore.open(dir, nullLogger);
  await settings.set({ device });
  const engine = new FakeEngine();
  const bus = new EventBus();
  const states: DevicesState[] = [];
  bus.on('devices:changed', (state) => states.push(state));
  const registry = new DeviceRegistry({
    engine: engine as unknown as EngineHost, settings, bus, log: nullLogger, reloadModel: async () => {},
    systemMemory: () => ({ totalBytes: 8e9, availableBytes: 4e9, source: 'MemAvailable' }),
  });
  await registry.refresh();
  return { registry, engine, settings, states, done: () => rm(dir, { recursive: true, force: true }) };
}

test('a GPU slower than its CPU twin is passed over by Auto, with the figures; a faster one is not', async () => {
  const { registry, engine, done } = await registryWith('auto');
  try {
    assert.equal(registry.effectiveDevice(), undefined, 'nothing measured: the engine picks');
    engine.fire('selfTest', selfTest('Vulkan0', 30, 80));
    assert.equal(registry.effectiveDevice(), undefined, 'faster than the CPU: Auto keeps the engine\'s pick');
    assert.deepEqual(registry.state().autoSkipped, []);
    engine.fire('selfTest', selfTest('Vulkan0', 120, 80));
    assert.equal(registry.autoSkips('Vulkan0'), true);
    assert.equal(registry.effectiveDevice(), 'Vulkan1', 'the next GPU in the automatic order');
    const [skipped] = registry.state().autoSkipped;
    assert.equal(skipped?.name, 'Vulkan0');
    assert.match(skipped?.reason ?? '', /slower than the CPU.*1 s of audio in 120 ms, 80 ms on the CPU/);
    engine.fire('selfTest', selfTest('Vulkan1', 95, 80));
    assert.equal(registry.effectiveDevice(), 'CPU', 'every GPU slower: the CPU');
    assert.deepEqual(registry.state().autoSkipped.map((d) => d.name), ['Vulkan0', 'Vulkan1']);
  } finally {
    await done();
  }
});

test('a device the user names is used even when it measured slower (said, not overridden)', async () => {
  const { registry, engine, done } = await registryWith('Vulkan0');
  try {
    engine.fire('selfTest', selfTest('Vulkan0', 120, 80));
    assert.equal(registry.autoSkips('Vulkan0'), false);
    assert.equal(registry.effectiveDevice(), 'Vulkan0');
    assert.equal(registry.state().autoSkipped[0]?.name, 'Vulkan0', 'the view still says it is slower');
  } finally {
    await done();
  }
});

test('only a passed GPU test with a speed can make a device "slower"', () => {
  assert.equal(slowerThanCpu(selfTest('Vulkan0', 120, 80, { passed: false })), null, 'a failed test is a failure, not a speed');
  assert.equal(slowerThanCpu(selfTest('CPU', 120, 80, { reference: 'cpu-scheduled' })), null, 'the CPU is never slower than itself');
  assert.equal(slowerThanCpu({ ...selfTest('Vulkan0', 1, 1), speed: undefined }), null);
  assert.equal(slowerThanCpu(selfTest('Vulkan0', 80, 80)), null, 'as fast is not slower');
});

test('the first use of a GPU is shown while it runs, then its duration; a crash forgets both', async () => {
  const { registry, engine, states, done } = await registryWith('auto');
  try {
    engine.fire('preparing', { device: 'Vulkan0', done: false });
    assert.equal(registry.state().preparing?.device, 'Vulkan0');
    assert.equal(states.at(-1)?.preparing?.device, 'Vulkan0', 'announced to the views');
    engine.fire('preparing', { device: 'Vulkan0', done: true, ms: 95_000 });
    assert.equal(registry.state().preparing, null);
    assert.deepEqual(registry.state().prepared, [{ device: 'Vulkan0', ms: 95_000 }]);
    engine.fire('preparing', { device: 'Vulkan1', done: false });
    engine.fire('crashed', { device: 'Vulkan1', reason: 'killed by SIGSEGV' });
    assert.equal(registry.state().preparing, null);
    assert.deepEqual(registry.state().prepared, [], 'a new engine process prepares again');
  } finally {
    await done();
  }
});

function modelOn(name: string, type: DeviceInfo['type']): ModelInfo {
  // The fields the residency and the device check read; the rest of a ModelInfo plays no part here.
  const partial = { name: 'test', loadMs: 1, device: { requested: '', source: 'auto', device: device(name, type), fellBack: false, reason: '' } };
  return partial as unknown as ModelInfo;
}

async function checkAfterLoad(autoSkips: boolean): Promise<{ loads: (string | undefined)[]; notices: Notice[]; device: string | undefined }> {
  const loads: (string | undefined)[] = [];
  const notices: Notice[] = [];
  const residency = new ModelResidency({
    log: nullLogger,
    status: { state: () => 'ready', setState: () => {}, setLastError: () => {} },
    // Only loads reach it here: each answers with a model on the device asked for (the engine's auto: Vulkan0).
    request: (async (request: { op: string; options?: { device?: string } }) => {
      loads.push(request.options?.device);
      return modelOn(request.options?.device ?? 'Vulkan0', request.options?.device === 'CPU' ? 'cpu' : 'gpu');
    }) as ResidencyDeps['request'],
  });
  await residency.load({ path: '/m.gguf', options: {}, reason: 'user' });
  const check = new DeviceCheck({
    log: nullLogger,
    residency,
    request: async () => selfTest('Vulkan0', 120, 80),
    nextDevice: () => 'CPU',
    autoSkips: () => autoSkips,
    emitSelfTest: () => {},
    emitDeviceFailed: () => {},
    emitNotice: (notice) => notices.push(notice),
    disposed: () => false,
  });
  await check.afterLoad(false);
  return { loads, notices, device: residency.model?.device.device.name };
}

test('after a load, Auto\'s GPU that measured slower than the CPU hands the model to the CPU, with a notice', async () => {
  const moved = await checkAfterLoad(true);
  assert.deepEqual(moved.loads, [undefined, 'CPU']);
  assert.equal(moved.device, 'CPU');
  assert.equal(moved.notices[0]?.code, 'DEVICE_SLOWER_THAN_CPU');
  assert.match(moved.notices[0]?.message ?? '', /Vulkan0 works but measured slower than the CPU \(1 s of audio in 120 ms here, 80 ms on the CPU\); Auto uses CPU/);
  const kept = await checkAfterLoad(false);
  assert.deepEqual(kept.loads, [undefined], 'a named device stays');
  assert.equal(kept.device, 'Vulkan0');
  assert.deepEqual(kept.notices, []);
});

test('FirstUse announces a GPU\'s first decode once, with its duration; the CPU never; a failed first try is not "done"', async () => {
  const posted: Extract<EngineToHost, { t: 'preparing' }>[] = [];
  let clock = 0;
  const firstUse = new FirstUse((m) => posted.push(m), () => clock);
  const gpu = { name: 'Vulkan0', type: 'gpu' as const };
  await firstUse.around({ name: 'CPU', type: 'cpu' }, async () => 1);
  assert.deepEqual(posted, [], 'the CPU needs no preparation');
  await assert.rejects(firstUse.around(gpu, async () => {
    throw new Error('device lost');
  }));
  assert.deepEqual(posted, [{ t: 'preparing', device: 'Vulkan0', done: false }, { t: 'preparing', device: 'Vulkan0', done: true }]);
  posted.length = 0;
  // Two decodes during the preparation: one start, one end, at the first success.
  let release!: () => void;
  const first = firstUse.around(gpu, () => new Promise<string>((resolve) => { release = () => resolve('a'); }));
  const second = firstUse.around(gpu, async () => 'b');
  clock = 90_000;
  assert.equal(await second, 'b');
  release();
  assert.equal(await first, 'a');
  assert.deepEqual(posted, [{ t: 'preparing', device: 'Vulkan0', done: false }, { t: 'preparing', device: 'Vulkan0', done: true, ms: 90_000 }]);
  await firstUse.around(gpu, async () => 'c');
  assert.equal(posted.length, 2, 'later decodes are not announced');
  assert.equal(firstUse.isReady(gpu), true);
});

test('the Devices view\'s words: the CPU\'s speed from a GPU test\'s twin, a GPU\'s ratio, a GPU\'s driver and features', () => {
  const state: DevicesState = {
    devices: DEVICES, selected: 'auto', active: null, lastRan: [], failed: [], preparing: null, prepared: [], autoSkipped: [], backendsNotLoaded: [],
    selfTests: [selfTest('Vulkan0', 40, 100)],
  };
  const cpu = measuredSpeed(state, DEVICES[0]!);
  assert.deepEqual(cpu, { decodeMs: 100, audioMs: 1000 });
  assert.equal(speedText(cpu!), '1 s of audio in 100 ms (10× real time)');
  assert.equal(speedText(measuredSpeed(state, DEVICES[1]!)!), "1 s of audio in 40 ms (25× real time) · 2.50× the CPU's speed");
  assert.equal(measuredSpeed(state, DEVICES[2]!), null, 'not tested: no figure');
  const gpu = { api: 'Vulkan' as const, apiVersion: '1.3.289', driverName: 'llvmpipe', driverInfo: 'Mesa 25.0.7', fp16: true, integerDot: false, cooperativeMatrix: true };
  assert.equal(gpuDriverText(gpu), 'Vulkan 1.3.289 · driver llvmpipe (Mesa 25.0.7)');
  assert.equal(gpuFeaturesText(gpu), 'fp16: yes, integer dot product: no, cooperative matrix: yes');
});
