// Issue 42: the registry's device for a load once something failed or measured slower than the CPU.
// A device the user names (the setting, or $PARAKEET_DEVICE) is used unless it failed; "auto" is a
// choice in any spelling (names are compared case-insensitively, as the engine does); the automatic
// order is the engine's (a GPU, then an integrated GPU; an accelerator is never a device of its own).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DeviceSelfTest, Notice } from '../../../app/ipc/contract.js';
import { DeviceRegistry } from '../../../app/main/devices/device-registry.js';
import type { EngineHost, EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import { EventBus } from '../../../app/main/events.js';
import { nullLogger } from '../../../app/main/log.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import type { DeviceInfo, ModelInfo } from '../../../native/index.js';

function device(name: string, type: DeviceInfo['type'], extra: Partial<DeviceInfo> = {}): DeviceInfo {
  return {
    name, type, description: `${name} device`, backend: type === 'cpu' ? 'CPU' : 'Vulkan', memoryFree: 1e9, memoryTotal: 2e9,
    deviceId: '', cpuFeatures: [], cpuThreads: type === 'cpu' ? 2 : 0, softwareRenderer: false, ...extra,
  };
}

class FakeEngine extends TypedEmitter<EngineHostEvents> {
  engineAvailable = true;
  loadedModel: ModelInfo | null = null;
  buildInfo: { backendsNotLoaded: string[] } | null = null;
  constructor(private readonly devices: DeviceInfo[]) {
    super();
  }

  async listDevices(): Promise<DeviceInfo[]> {
    return this.devices;
  }

  fire<K extends keyof EngineHostEvents & string>(event: K, ...args: EngineHostEvents[K]): void {
    this.emit(event, ...args);
  }
}

function slower(name: string): DeviceSelfTest {
  return {
    device: name, reference: 'cpu', trigger: 'manual', passed: true, relL2: 1e-3, tolerance: 3e-2, tokensMatch: true, durationMs: 900,
    at: new Date(0).toISOString(), detail: 'matches the CPU', speed: { audioMs: 1000, deviceMs: 900, referenceMs: 80 },
  };
}

function failedTest(name: string): DeviceSelfTest {
  return { ...slower(name), passed: false, speed: undefined, relL2: 1.4, detail: 'its output differs from the CPU\'s' };
}

async function registry(
  devices: DeviceInfo[], settingsDevice: string, environmentDevice?: string,
): Promise<{ registry: DeviceRegistry; engine: FakeEngine; notices: Notice[]; done: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'parakeet-device-registry-'));
  const settings = await SettingsStore.open(dir, nullLogger);
  await settings.set({ device: settingsDevice });
  const engine = new FakeEngine(devices);
  const bus = new EventBus();
  const notices: Notice[] = [];
  bus.on('notice', (notice) => notices.push(notice));
  const reg = new DeviceRegistry({
    engine: engine as unknown as EngineHost, settings, bus, log: nullLogger, reloadModel: async () => {},
    systemMemory: () => ({ totalBytes: 8e9, availableBytes: 4e9, source: 'MemAvailable' }),
    environmentDevice: () => environmentDevice,
  });
  await reg.refresh();
  return { registry: reg, engine, notices, done: () => rm(dir, { recursive: true, force: true }) };
}

const TWO_GPUS = [device('CPU', 'cpu'), device('Vulkan0', 'gpu'), device('Vulkan1', 'gpu')];

test('"Auto" in another spelling (settings:set accepts any name) is Auto: a failed GPU is not picked again', async () => {
  for (const spelling of ['Auto', 'AUTO']) {
    const { registry: reg, engine, done } = await registry(TWO_GPUS, spelling);
    try {
      assert.equal(reg.effectiveDevice(), undefined, 'nothing failed: the engine picks');
      engine.fire('selfTest', failedTest('Vulkan0'));
      // "Auto" handed to the engine would be its automatic choice again: Vulkan0, the device that just failed.
      assert.equal(reg.effectiveDevice(), 'Vulkan1', `${spelling}: the next GPU, not "${spelling}"`);
    } finally {
      await done();
    }
  }
});

test('a device named by $PARAKEET_DEVICE is a named device: kept when slower, and used while another device failed', async () => {
  const devices = [device('CPU', 'cpu'), device('Vulkan0', 'gpu'), device('Vulkan1', 'gpu', { softwareRenderer: true })];
  const { registry: reg, engine, done } = await registry(devices, 'auto', 'vulkan1');
  try {
    engine.fire('selfTest', slower('Vulkan1'));
    assert.equal(reg.autoSkips('Vulkan1'), false, 'the user named it (in the environment): slower is said, not overridden');
    assert.notEqual(reg.effectiveDevice(), 'CPU', 'not moved to the CPU');
    engine.fire('selfTest', failedTest('Vulkan0'));
    const next = reg.effectiveDevice();
    assert.ok(next === undefined || next.toLowerCase() === 'vulkan1', `the named device stays the choice, got ${String(next)}`);
    engine.fire('selfTest', failedTest('Vulkan1'));
    assert.equal(reg.effectiveDevice(), 'CPU', 'the named device failed too: the automatic order without them, down to the CPU');
  } finally {
    await done();
  }
});

test('$PARAKEET_DEVICE=auto (any spelling) or empty names nothing', async () => {
  for (const env of ['AUTO', '']) {
    const { registry: reg, engine, done } = await registry(TWO_GPUS, 'auto', env);
    try {
      engine.fire('selfTest', failedTest('Vulkan0'));
      assert.equal(reg.effectiveDevice(), 'Vulkan1');
      engine.fire('selfTest', slower('Vulkan1'));
      assert.equal(reg.autoSkips('Vulkan1'), true);
    } finally {
      await done();
    }
  }
});

test('the setting wins over $PARAKEET_DEVICE', async () => {
  const { registry: reg, engine, done } = await registry(TWO_GPUS, 'Vulkan0', 'Vulkan1');
  try {
    assert.equal(reg.effectiveDevice(), 'Vulkan0');
    engine.fire('selfTest', slower('Vulkan1'));
    assert.equal(reg.autoSkips('Vulkan1'), true, 'the environment does not name it when the setting names another');
  } finally {
    await done();
  }
});

test('after a GPU failed, Auto never hands the engine an accelerator (it would only fall back to the CPU with a warning)', async () => {
  const devices = [device('CPU', 'cpu'), device('Vulkan0', 'gpu'), device('BLAS', 'accel', { backend: 'BLAS' })];
  const { registry: reg, engine, done } = await registry(devices, 'auto');
  try {
    engine.fire('deviceFailed', { device: 'Vulkan0', reason: 'failed while decoding (lost)' });
    assert.equal(reg.effectiveDevice(), 'CPU');
  } finally {
    await done();
  }
});

test('autoChoice: the device the engine loads on when given none (a death during that load is blamed on it)', async () => {
  const devices = [device('CPU', 'cpu'), device('Vulkan0', 'gpu', { softwareRenderer: true }), device('Vulkan1', 'igpu')];
  const plain = await registry(devices, 'auto');
  const env = await registry(devices, 'auto', 'vulkan0');
  const unknown = await registry(devices, 'auto', 'CUDA7');
  try {
    assert.equal(plain.registry.autoChoice(), 'Vulkan1', 'the software renderer is skipped; the integrated GPU is next');
    assert.equal(env.registry.autoChoice(), 'Vulkan0', 'named in the environment');
    assert.equal(unknown.registry.autoChoice(), 'CPU', 'an unknown name: the engine falls back to the CPU');
  } finally {
    await Promise.all([plain.done(), env.done(), unknown.done()]);
  }
});

function modelFellBack(requested: string, source: 'auto' | 'argument' | 'environment', reason: string): ModelInfo {
  // The fields the registry reads; the rest of a ModelInfo plays no part here.
  const partial = { name: 'test', device: { requested, source, device: device('CPU', 'cpu'), fellBack: true, reason } };
  return partial as unknown as ModelInfo;
}

test('a GPU that fails to start (the model loaded on the CPU instead) is marked failed and said once; the next load tries the next GPU', async () => {
  const { registry: reg, engine, notices, done } = await registry(TWO_GPUS, 'auto');
  try {
    engine.loadedModel = modelFellBack('', 'auto', "device 'Vulkan0' failed to initialize; using the CPU");
    engine.fire('status', { state: 'ready', mode: 'inline', model: engine.loadedModel, modelId: null, restarts: 0, lastError: null, pid: null, vad: { detector: 'energy', text: '' } });
    assert.equal(reg.isFailed('Vulkan0'), true, JSON.stringify(reg.state().failed));
    assert.match(reg.state().failed[0]?.reason ?? '', /failed to initialize/);
    assert.equal(reg.effectiveDevice(), 'Vulkan1', 'not the device that could not start');
    // Said to the user once, with what runs instead and what to do.
    assert.equal(notices.length, 1, JSON.stringify(notices));
    assert.equal(notices[0]?.code, 'DEVICE_FAILED');
    assert.match(notices[0]?.message ?? '', /^Vulkan0 could not start \(.*failed to initialize.*\), so the model runs on the CPU/);
    assert.match(notices[0]?.action ?? '', /driver/);
    engine.fire('status', { state: 'ready', mode: 'inline', model: engine.loadedModel, modelId: null, restarts: 0, lastError: null, pid: null, vad: { detector: 'energy', text: '' } });
    assert.equal(notices.length, 1, 'a later status of the same load says nothing new');
  } finally {
    await done();
  }
});

test('a fallback that is not a device failure marks nothing: an unknown name, an accelerator', async () => {
  const devices = [...TWO_GPUS, device('BLAS', 'accel', { backend: 'BLAS' })];
  for (const [named, reason] of [
    ['CUDA7', "no device named 'CUDA7' (this machine has: CPU, Vulkan0, Vulkan1); using the CPU"],
    ['BLAS', "'BLAS' is an accelerator that works alongside the CPU, not a device of its own; using the CPU"],
  ] as const) {
    const { registry: reg, engine, notices, done } = await registry(devices, named);
    try {
      engine.loadedModel = modelFellBack(named, 'argument', reason);
      engine.fire('status', { state: 'ready', mode: 'inline', model: engine.loadedModel, modelId: null, restarts: 0, lastError: null, pid: null, vad: { detector: 'energy', text: '' } });
      assert.deepEqual(reg.state().failed, []);
      assert.deepEqual(notices, [], 'no device notice: nothing failed');
    } finally {
      await done();
    }
  }
});

test('a GPU backend the engine could not start here (no Vulkan loader) reaches Devices with its reason; none when all started', async () => {
  const { registry: reg, engine, done } = await registry([device('CPU', 'cpu')], 'auto');
  try {
    assert.deepEqual(reg.state().backendsNotLoaded, [], 'before the engine reported its build');
    const why = 'Vulkan: its library could not be loaded: libvulkan.so.1: cannot open shared object file: No such file or directory';
    engine.buildInfo = { backendsNotLoaded: [why] };
    assert.deepEqual(reg.state().backendsNotLoaded, [why]);
    engine.buildInfo = { backendsNotLoaded: [] };
    assert.deepEqual(reg.state().backendsNotLoaded, []);
  } finally {
    await done();
  }
});

test('a CPU the user named stays the device after it failed (an engine death during a CPU decode, its self-test): never moved onto a GPU', async () => {
  for (const [spelling, how] of [['CPU', 'settings'], ['cpu', 'environment']] as const) {
    const { registry: reg, engine, done } = await registry(TWO_GPUS, how === 'settings' ? spelling : 'auto', how === 'environment' ? spelling : undefined);
    try {
      engine.fire('crashed', { device: 'CPU', reason: 'killed by SIGKILL' });
      assert.ok(reg.isFailed('CPU'), 'the CPU is marked (Devices says what happened)');
      // The setting: the CPU by name; the environment: undefined, so the engine reads $PARAKEET_DEVICE (the CPU) itself.
      assert.equal(reg.effectiveDevice(), how === 'settings' ? 'CPU' : undefined, `${how}: not Vulkan0`);
      engine.fire('selfTest', failedTest('CPU'));
      assert.equal(reg.effectiveDevice(), how === 'settings' ? 'CPU' : undefined, `${how}, after a failed CPU self-test too`);
      // Choosing it again is allowed (the last resort); a failed GPU is refused.
      if (how === 'settings') {
        await reg.select('cpu');
        engine.fire('selfTest', failedTest('Vulkan0'));
        await assert.rejects(reg.select('Vulkan0'), /Vulkan0 failed earlier in this run/);
      }
    } finally {
      await done();
    }
  }
  // Under Auto a failed CPU changes nothing: the GPUs are still what Auto would pick first.
  const { registry: reg, engine, done } = await registry(TWO_GPUS, 'auto');
  try {
    engine.fire('crashed', { device: 'CPU', reason: 'killed by SIGKILL' });
    assert.equal(reg.effectiveDevice(), 'Vulkan0');
  } finally {
    await done();
  }
});

test('a device measured slower than the CPU is passed over for that model only: another model loaded, Auto tries it again', async () => {
  const { registry: reg, engine, done } = await registry(TWO_GPUS, 'auto');
  try {
    engine.loadedModel = { path: '/models/small-q8.gguf' } as ModelInfo;
    engine.fire('selfTest', { ...slower('Vulkan0'), model: '/models/small-q8.gguf' });
    assert.equal(reg.autoSkips('Vulkan0'), true);
    assert.equal(reg.effectiveDevice(), 'Vulkan1', 'with the model it was measured with: passed over');
    // The device for the next model is asked while the old one is still loaded (EngineHost.loadModel's deviceAtLoad):
    // the verdict of the model being replaced must not decide where the new one goes.
    assert.equal(reg.effectiveDevice('/models/large-f16.gguf'), undefined, 'asked for another model: the engine\'s own choice');
    engine.loadedModel = { path: '/models/large-f16.gguf' } as ModelInfo;
    assert.equal(reg.autoSkips('Vulkan0'), false, 'another model: the old verdict says nothing about it');
    assert.equal(reg.effectiveDevice(), undefined, 'the engine\'s own choice again (its load-time self-test measures it anew)');
    engine.loadedModel = { path: '/models/small-q8.gguf' } as ModelInfo;
    assert.equal(reg.effectiveDevice(), 'Vulkan1', 'back to the first model: its verdict holds again');
  } finally {
    await done();
  }
});

test('a GPU with too little free memory for a model\'s weights is not a failed device: passed over for that model only, said once', async () => {
  const { registry: reg, engine, notices, done } = await registry(TWO_GPUS, 'auto');
  try {
    const status = () => engine.fire('status', { state: 'ready', mode: 'inline', model: engine.loadedModel, modelId: null, restarts: 0, lastError: null, pid: null, vad: { detector: 'energy', text: '' } });
    const big = modelFellBack('', 'auto', "device 'Vulkan0' has too little free memory for this model's weights (not enough memory on Vulkan0 for the model weights (weights)); using the CPU");
    engine.loadedModel = { ...big, path: '/models/big.gguf', device: { ...big.device, noRoom: true } } as ModelInfo;
    status();
    assert.deepEqual(reg.state().failed, [], 'the device works');
    assert.equal(notices.length, 1, JSON.stringify(notices));
    assert.equal(notices[0]?.code, 'DEVICE_NO_ROOM');
    assert.match(notices[0]?.message ?? '', /^Vulkan0 has too little free memory for this model's weights, so the model runs on the CPU\. Other models still go to Vulkan0\./);
    assert.match(notices[0]?.action ?? '', /smaller model, or a smaller weight type/);
    status();
    assert.equal(notices.length, 1, 'said once for this model');
    assert.equal(reg.effectiveDevice(), 'Vulkan1', 'this model: the next GPU, not Vulkan0 again');
    assert.deepEqual(reg.state().autoSkipped.map((d) => d.name), ['Vulkan0'], 'Devices says why Auto skips it');
    assert.equal(reg.effectiveDevice('/models/small.gguf'), undefined, 'another model: Vulkan0 is tried');
  } finally {
    await done();
  }
});
