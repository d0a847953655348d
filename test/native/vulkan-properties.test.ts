// Issue 42 item 3 on a real Vulkan device (Vulkan0; lavapipe in CI, see helpers/vulkan.ts): the device's own
// properties as the Vulkan loader reports them (driver, API version, fp16 / integer dot / cooperative
// matrix), the software renderer recognised by the driver's own type, the first decode announced as the
// one-time preparation (pipeline compilation), and the self-test's speed measured on the device and on
// the CPU with the same model and signal.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { listDevices, Model } from '../../native/index.js';
import { FirstUse } from '../../app/engine-process/first-use.js';
import type { EngineToHost } from '../../app/engine-process/protocol.js';
import { runSelfTest } from '../../app/engine-process/self-test-run.js';
import { selfTestSignal } from '../../app/engine-process/self-test.js';
import { generateModel } from '../support/model/generate.js';
import { scratchDir } from './helpers/tmp.js';
import { VULKAN_DEVICE, vulkanDevice, vulkanSkip } from './helpers/vulkan.js';

const skip = vulkanSkip();
const dir = scratchDir('vulkan-properties');
const modelPath = join(dir, 'tiny-ctc.gguf');

before(() => {
  if (!skip) generateModel(modelPath, { preset: 'tiny', arch: 'ctc', seed: 5 });
});

/** The installed Mesa's version ("25.0.7"), from the package manager: an independent source for lavapipe's driverInfo. */
function installedMesaVersion(): string | null {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Version}', 'mesa-vulkan-drivers'], { encoding: 'utf8' });
  if (r.status !== 0 || !r.stdout) return null;
  return /^(?:\d+:)?(\d+\.\d+\.\d+)/.exec(r.stdout)?.[1] ?? null;
}

describe(`${VULKAN_DEVICE}'s own properties`, () => {
  test('the Vulkan device carries the driver, API version and precision features; the CPU carries none', { skip }, () => {
    const gpu = vulkanDevice()!;
    assert.ok(gpu.gpu, `no GPU properties on ${JSON.stringify(gpu)}`);
    console.log(`${gpu.name}: ${JSON.stringify(gpu.gpu)}`);
    assert.equal(gpu.gpu.api, 'Vulkan');
    assert.match(gpu.gpu.apiVersion, /^1\.\d+\.\d+$/);
    assert.ok(gpu.gpu.driverName.length > 0, 'a Vulkan 1.2+ driver names itself');
    for (const key of ['fp16', 'integerDot', 'cooperativeMatrix'] as const) assert.equal(typeof gpu.gpu[key], 'boolean', key);
    const cpu = listDevices().find((d) => d.type === 'cpu')!;
    assert.equal(cpu.gpu, undefined, 'the CPU has no GPU properties (absent, not faked)');
  });

  test('lavapipe is a software renderer by its own driver type, with Mesa\'s version and fp16', { skip }, (t) => {
    const gpu = vulkanDevice()!;
    if (!/llvmpipe|lavapipe/i.test(gpu.description)) {
      t.skip(`${gpu.name} is ${gpu.description}, not lavapipe`);
      return;
    }
    assert.equal(gpu.softwareRenderer, true);
    assert.equal(gpu.gpu?.driverName, 'llvmpipe');
    const mesa = installedMesaVersion();
    if (mesa) assert.ok(gpu.gpu?.driverInfo.startsWith(`Mesa ${mesa}`), `driverInfo "${gpu.gpu?.driverInfo}" vs the installed Mesa ${mesa}`);
    // lavapipe implements 16-bit storage and shaderFloat16 (Mesa ≥ 21): ggml-vulkan's fp16 path runs on it.
    assert.equal(gpu.gpu?.fp16, true);
  });
});

describe(`the first use and the speed of ${VULKAN_DEVICE}`, () => {
  test('the first decode is announced as the preparation, with its duration; the next one is not', { skip, timeout: 900_000 }, async () => {
    const model = await Model.load(modelPath, { device: VULKAN_DEVICE });
    try {
      const posted: Extract<EngineToHost, { t: 'preparing' }>[] = [];
      const firstUse = new FirstUse((m) => posted.push(m));
      const device = { name: model.info().device.device.name, type: model.info().device.device.type };
      assert.equal(device.name, VULKAN_DEVICE);
      const pcm = selfTestSignal();
      const first = await firstUse.around(device, () => model.transcribe(pcm));
      assert.deepEqual(first.devicesRan, [VULKAN_DEVICE]);
      assert.equal(posted.length, 2, JSON.stringify(posted));
      assert.deepEqual(posted[0], { t: 'preparing', device: VULKAN_DEVICE, done: false });
      assert.ok(posted[1]?.done && (posted[1].ms ?? 0) > 0, JSON.stringify(posted[1]));
      await firstUse.around(device, () => model.transcribe(pcm));
      assert.equal(posted.length, 2, 'a later decode is not announced');
    } finally {
      model.dispose();
    }
  });

  test('the self-test measures the device and its CPU twin on the same signal, after the verdict\'s run', { skip, timeout: 900_000 }, async () => {
    const load = (path: string, options: Parameters<typeof Model.load>[1]) => Model.load(path, options);
    const resident = await Model.load(modelPath, { device: VULKAN_DEVICE });
    try {
      const result = await runSelfTest({ resident, path: modelPath, load, trigger: 'manual' });
      assert.equal(result.passed, true, result.detail);
      assert.equal(result.device, VULKAN_DEVICE);
      assert.equal(result.reference, 'cpu');
      const speed = result.speed;
      assert.ok(speed, 'a passed test carries its speed');
      console.log(`${VULKAN_DEVICE}: 1 s of audio in ${speed.deviceMs} ms; the CPU twin ${speed.referenceMs} ms (smoke figures, not a benchmark)`);
      assert.equal(speed.audioMs, 1000);
      assert.ok(speed.deviceMs > 0 && speed.referenceMs > 0, JSON.stringify(speed));
      // The speed runs come after the verdict's run, inside the whole test's wall time.
      assert.ok(speed.deviceMs + speed.referenceMs < result.durationMs, JSON.stringify(result));
      const cpu = await runSelfTest({ resident, path: modelPath, load, device: 'CPU', trigger: 'manual' });
      assert.equal(cpu.passed, true, cpu.detail);
      assert.equal(cpu.reference, 'cpu-scheduled');
      assert.ok(cpu.speed && cpu.speed.deviceMs > 0, 'the CPU has its own measured speed too');
    } finally {
      resident.dispose();
    }
  });
});
