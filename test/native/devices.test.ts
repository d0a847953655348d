// Devices: listing (CPU with memory and ISA features), selection by name, by
// $PARAKEET_DEVICE (in this process and in a child), automatic, and the
// fallback to the CPU for an unknown name (also as seen by Model.load).
import assert from 'node:assert/strict';
import { availableParallelism, cpus, freemem, totalmem } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { buildInfo, listDevices, Model, selectDevice, type DeviceSelection } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { cleanEnv, describeExit, runTsx } from './helpers/child.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('devices');
const modelPath = join(dir, 'tiny-ctc.gguf');
generateModel(modelPath, { preset: 'tiny', arch: 'ctc', seed: 11 });

const savedEnv = process.env.PARAKEET_DEVICE;
delete process.env.PARAKEET_DEVICE;
after(() => {
  if (savedEnv === undefined) delete process.env.PARAKEET_DEVICE;
  else process.env.PARAKEET_DEVICE = savedEnv;
});

/** Runs `fn` with $PARAKEET_DEVICE set (or removed), restoring it afterwards. */
async function withDeviceEnv<T>(value: string | undefined, fn: () => T | Promise<T>): Promise<T> {
  const before = process.env.PARAKEET_DEVICE;
  if (value === undefined) delete process.env.PARAKEET_DEVICE;
  else process.env.PARAKEET_DEVICE = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.PARAKEET_DEVICE;
    else process.env.PARAKEET_DEVICE = before;
  }
}

function assertCpuFallback(sel: DeviceSelection, requested: string, source: DeviceSelection['source']): void {
  assert.equal(sel.requested, requested);
  assert.equal(sel.source, source);
  assert.equal(sel.device.name, 'CPU');
  assert.equal(sel.device.type, 'cpu');
  assert.equal(sel.fellBack, true, `an unknown device must be reported as a fallback: ${JSON.stringify(sel)}`);
  assert.ok(sel.reason.includes(requested), `the reason must name the unknown device '${requested}': ${sel.reason}`);
}

describe('listDevices', () => {
  const devices = listDevices();
  const cpu = devices.filter((d) => d.type === 'cpu');

  test('lists exactly one CPU device with memory, threads and ISA features', () => {
    assert.ok(devices.length >= 1);
    assert.equal(cpu.length, 1, JSON.stringify(devices));
    const d = cpu[0];
    console.log(`CPU: ${d.description}; ${d.cpuThreads} threads; ${(d.memoryTotal / 2 ** 30).toFixed(1)} GiB; features ${d.cpuFeatures.join(' ')}`);
    assert.equal(d.name, 'CPU');
    assert.equal(d.backend, 'CPU');
    assert.ok(d.memoryTotal > 0, `memoryTotal ${d.memoryTotal}`);
    assert.ok(d.memoryFree > 0 && d.memoryFree <= d.memoryTotal, `memoryFree ${d.memoryFree} of ${d.memoryTotal}`);
    // Free is what the host has available now, not the total again (ggml's CPU device reports the total for both).
    assert.ok(d.memoryFree < d.memoryTotal, `memoryFree ${d.memoryFree} equals memoryTotal`);
    assert.ok(Math.abs(d.memoryFree - freemem()) < 0.1 * totalmem(), `memoryFree ${d.memoryFree}, the host has ${freemem()} available`);
    // ggml reports the host's physical memory for the CPU device.
    assert.ok(d.memoryTotal <= totalmem() * 1.01, `memoryTotal ${d.memoryTotal} exceeds the machine's ${totalmem()}`);
    assert.ok(d.memoryTotal >= totalmem() * 0.5, `memoryTotal ${d.memoryTotal} is far below the machine's ${totalmem()}`);
    assert.ok(Number.isInteger(d.cpuThreads) && d.cpuThreads >= 1);
    assert.ok(d.cpuThreads <= Math.max(cpus().length, availableParallelism()), `cpuThreads ${d.cpuThreads}`);
    assert.ok(Array.isArray(d.cpuFeatures) && d.cpuFeatures.length > 0, 'CPU features must be listed');
    for (const f of d.cpuFeatures) assert.match(f, /^[A-Z0-9_]+$/, `feature name ${f}`);
    if (process.arch === 'x64') {
      for (const f of ['SSE3', 'SSSE3']) assert.ok(d.cpuFeatures.includes(f), `an x86-64 CPU has ${f}: ${d.cpuFeatures.join(' ')}`);
    }
  });

  const others = devices.filter((x) => x.type !== 'cpu');
  test('non-CPU devices carry a backend and memory', {
    skip: others.length === 0 ? 'this build sees no GPU or other non-CPU device (CPU-only build or machine)' : false,
  }, () => {
    for (const d of others) {
      assert.ok(d.name.length > 0 && d.backend.length > 0, JSON.stringify(d));
      assert.ok(d.memoryTotal > 0, `${d.name} memoryTotal ${d.memoryTotal}`);
      assert.deepEqual(d.cpuFeatures, []);
    }
  });

  test('buildInfo names the CPU backend and the ggml version', () => {
    const b = buildInfo();
    assert.ok(b.backends.includes('CPU'), JSON.stringify(b));
    assert.match(b.ggmlVersion, /^\d+\.\d+\.\d+/);
    assert.ok(b.ggmlCommit.length > 0);
    // Every backend this build ships started (a build without loadable backends has none that could fail to).
    assert.deepEqual(b.backendsNotLoaded, b.backendDl ? b.backendsNotLoaded.filter((line) => /^[A-Za-z]+: /.test(line)) : []);
  });
});

describe('selectDevice', () => {
  test('by name, case-insensitive: "cpu" and "CPU"', () => {
    for (const name of ['cpu', 'CPU', 'Cpu']) {
      const sel = selectDevice(name);
      assert.equal(sel.requested, name);
      assert.equal(sel.source, 'argument');
      assert.equal(sel.device.name, 'CPU');
      assert.equal(sel.fellBack, false, `${name}: ${sel.reason}`);
      assert.ok(sel.reason.length > 0);
    }
  });

  test('auto: the first GPU that is not a software renderer, else the CPU', async () => {
    const sel = await withDeviceEnv(undefined, () => selectDevice());
    assert.equal(sel.source, 'auto');
    assert.equal(sel.requested, '');
    assert.equal(sel.fellBack, false);
    const gpu = listDevices().find((d) => (d.type === 'gpu' || d.type === 'igpu') && !d.softwareRenderer);
    assert.equal(sel.device.name, gpu ? gpu.name : 'CPU', sel.reason);
  });

  test('an unknown name falls back to the CPU and the reason names it', () => {
    assertCpuFallback(selectDevice('nosuch'), 'nosuch', 'argument');
    assertCpuFallback(selectDevice('CUDA7'), 'CUDA7', 'argument');
  });

  test('$PARAKEET_DEVICE set in this process decides when no name is given', async () => {
    const sel = await withDeviceEnv('cpu', () => selectDevice());
    assert.equal(sel.source, 'environment');
    assert.equal(sel.requested, 'cpu');
    assert.equal(sel.device.name, 'CPU');
    assert.equal(sel.fellBack, false, sel.reason);
    assert.ok(sel.reason.includes('PARAKEET_DEVICE'), sel.reason);
    assertCpuFallback(await withDeviceEnv('nosuch-env', () => selectDevice()), 'nosuch-env', 'environment');
  });

  test('an explicit name wins over $PARAKEET_DEVICE', async () => {
    const sel = await withDeviceEnv('nosuch-env', () => selectDevice('cpu'));
    assert.equal(sel.source, 'argument');
    assert.equal(sel.fellBack, false);
    assert.equal(sel.device.name, 'CPU');
  });
});

describe('Model.load device selection', () => {
  test('{ device: "nosuch" } loads on the CPU and info().device reports the fallback', async () => {
    const model = await Model.load(modelPath, { device: 'nosuch' });
    try {
      assertCpuFallback(model.info().device, 'nosuch', 'argument');
      const r = await model.transcribe(new Float32Array(8000).fill(0.01));
      assert.deepEqual(r.devicesRan, ['CPU']);
      assert.equal(r.device, 'CPU');
    } finally {
      model.dispose();
    }
  });

  test('{ device: "CPU" } is honoured', async () => {
    const model = await Model.load(modelPath, { device: 'CPU' });
    try {
      const d = model.info().device;
      assert.equal(d.source, 'argument');
      assert.equal(d.fellBack, false);
      assert.equal(d.device.name, 'CPU');
    } finally {
      model.dispose();
    }
  });

  test('$PARAKEET_DEVICE is read by Model.load when no device is given', async () => {
    const info = await withDeviceEnv('nosuch-env', async () => {
      const model = await Model.load(modelPath);
      const i = model.info();
      model.dispose();
      return i;
    });
    assertCpuFallback(info.device, 'nosuch-env', 'environment');
  });

  test('$PARAKEET_DEVICE in a child process (selectDevice and Model.load)', () => {
    const script = join('test', 'native', 'helpers', 'print-device.ts');
    for (const value of ['cpu', 'nosuch-child']) {
      const r = runTsx(script, [modelPath], { env: cleanEnv({ PARAKEET_DEVICE: value }), timeoutMs: 60_000 });
      assert.equal(r.status, 0, describeExit(r));
      const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { selection: DeviceSelection; loaded: DeviceSelection; env: string };
      assert.equal(out.env, value);
      for (const sel of [out.selection, out.loaded]) {
        if (value === 'cpu') {
          assert.equal(sel.source, 'environment');
          assert.equal(sel.requested, 'cpu');
          assert.equal(sel.device.name, 'CPU');
          assert.equal(sel.fellBack, false);
        } else {
          assertCpuFallback(sel, value, 'environment');
        }
      }
    }
    const r = runTsx(script, [], { env: cleanEnv(), timeoutMs: 60_000 });
    assert.equal(r.status, 0, describeExit(r));
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { selection: DeviceSelection };
    assert.equal(out.selection.source, 'auto');
  });
});
