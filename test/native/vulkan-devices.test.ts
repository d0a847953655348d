// The device picker's GPU half on a real Vulkan device (Vulkan0; lavapipe in CI, see helpers/vulkan.ts):
// the registry walk, the automatic pick (a real GPU when one is shown; a software renderer such as lavapipe is passed
// over for the CPU, whose own kernels are faster; the CPU when none is shown), a pick by name and by
// $PARAKEET_DEVICE, an unknown name falling back with the device list, a model placed and run on the device
// ("ran on" per call, weights in the device's memory, none of the engine's CPU-only packed kernels), and a
// device that fails to start or to compute (PARAKEET_DEVICE_FAULT, native/engine/runtime/device_test_hooks.h).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildInfo, listDevices, Model, selectDevice } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { noise, seconds } from './helpers/audio.js';
import { cleanEnv, describeExit, runTsx } from './helpers/child.js';
import { rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';
import { VULKAN_DEVICE, vulkanDevice, vulkanSkip } from './helpers/vulkan.js';
import { matmulKernels, opKernels } from './helpers/kernels.js';

const skip = vulkanSkip();
const dir = scratchDir('vulkan-devices');
const modelPath = join(dir, 'tiny-ctc.gguf');
const savedDevice = process.env.PARAKEET_DEVICE;

before(() => {
  if (skip) return;
  generateModel(modelPath, { preset: 'tiny', arch: 'ctc', seed: 11 });
  delete process.env.PARAKEET_DEVICE;
});
after(() => {
  if (savedDevice === undefined) delete process.env.PARAKEET_DEVICE;
  else process.env.PARAKEET_DEVICE = savedDevice;
});

/** Runs `fn` with the environment variable set (or removed), restoring it afterwards. */
async function withEnv<T>(name: string, value: string | undefined, fn: () => Promise<T> | T): Promise<T> {
  const before = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}

const isLavapipe = (description: string): boolean => /llvmpipe|lavapipe/i.test(description);

interface ChildDevices {
  devices: string[];
  selection: { device: { name: string }; source: string; reason: string };
}

describe(`the registry walk and the picker with ${VULKAN_DEVICE}`, () => {
  test(`buildInfo lists the Vulkan backend; listDevices shows ${VULKAN_DEVICE} as a GPU with memory, and the CPU`, { skip }, () => {
    assert.ok(buildInfo().backends.includes('Vulkan'), JSON.stringify(buildInfo()));
    const devices = listDevices();
    const gpu = vulkanDevice();
    assert.ok(gpu, JSON.stringify(devices));
    console.log(`${gpu.name}: ${gpu.description}; type ${gpu.type}; ${(gpu.memoryTotal / 2 ** 30).toFixed(1)} GiB`);
    assert.equal(gpu.backend, 'Vulkan');
    assert.ok(gpu.type === 'gpu' || gpu.type === 'igpu', `${gpu.name} is typed ${gpu.type}`);
    assert.ok(gpu.memoryTotal > 0 && gpu.memoryFree <= gpu.memoryTotal, JSON.stringify(gpu));
    assert.deepEqual(gpu.cpuFeatures, []);
    assert.equal(gpu.softwareRenderer, isLavapipe(gpu.description), `softwareRenderer for "${gpu.description}"`);
    assert.equal(devices.filter((d) => d.type === 'cpu').length, 1, 'the CPU is still listed, once');
  });

  test(`auto walks the registry: a real GPU is picked; a software renderer (lavapipe) is passed over for the CPU, and the reason says so`, { skip }, async () => {
    const gpu = vulkanDevice()!;
    const sel = await withEnv('PARAKEET_DEVICE', undefined, () => selectDevice());
    assert.equal(sel.source, 'auto');
    assert.equal(sel.fellBack, false);
    if (gpu.softwareRenderer) {
      assert.equal(sel.device.name, 'CPU', sel.reason);
      assert.ok(sel.reason.includes(`${VULKAN_DEVICE} (`) && /software renderer/.test(sel.reason), sel.reason);
    } else {
      assert.equal(sel.device.name, VULKAN_DEVICE, sel.reason);
      assert.match(sel.reason, /GPU/);
    }
  });

  test('auto picks the CPU in a process where ggml hides lavapipe (no GGML_VK_VISIBLE_DEVICES)', { skip }, (t) => {
    const gpu = vulkanDevice();
    if (gpu && !isLavapipe(gpu.description)) {
      t.skip(`${gpu.name} is a real GPU (${gpu.description}): ggml shows it in any process`);
      return;
    }
    const script = join('test', 'native', 'helpers', 'print-devices.ts');
    const env = cleanEnv();
    delete env.GGML_VK_VISIBLE_DEVICES;
    const r = runTsx(script, [], { env, timeoutMs: 120_000 });
    assert.equal(r.status, 0, describeExit(r));
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as ChildDevices;
    assert.deepEqual(out.devices, ['CPU'], 'ggml hides a CPU-type Vulkan device unless asked');
    assert.equal(out.selection.device.name, 'CPU', out.selection.reason);
    assert.equal(out.selection.source, 'auto');
    assert.equal(out.selection.reason, 'automatic: no GPU found, using the CPU');
  });

  test('by name, case-insensitive', { skip }, () => {
    for (const name of [VULKAN_DEVICE, VULKAN_DEVICE.toLowerCase(), VULKAN_DEVICE.toUpperCase()]) {
      const sel = selectDevice(name);
      assert.equal(sel.device.name, VULKAN_DEVICE, `${name}: ${sel.reason}`);
      assert.equal(sel.source, 'argument');
      assert.equal(sel.fellBack, false);
    }
    assert.equal(selectDevice('cpu').device.name, 'CPU', 'the CPU stays choosable beside a GPU');
  });

  test('by $PARAKEET_DEVICE, and an explicit name wins over it', { skip }, async () => {
    const sel = await withEnv('PARAKEET_DEVICE', VULKAN_DEVICE.toLowerCase(), () => selectDevice());
    assert.equal(sel.source, 'environment');
    assert.equal(sel.device.name, VULKAN_DEVICE);
    assert.match(sel.reason, /PARAKEET_DEVICE/);
    const cpu = await withEnv('PARAKEET_DEVICE', VULKAN_DEVICE, () => selectDevice('cpu'));
    assert.equal(cpu.device.name, 'CPU');
    assert.equal(cpu.source, 'argument');
  });

  test('an unknown name falls back to the CPU, and the message names it and lists the devices', { skip }, () => {
    const sel = selectDevice('Vulkan7');
    assert.equal(sel.device.name, 'CPU');
    assert.equal(sel.fellBack, true);
    assert.match(sel.reason, /'Vulkan7'/);
    assert.ok(sel.reason.includes(VULKAN_DEVICE) && sel.reason.includes('CPU'), sel.reason);
  });
});

describe(`a model on ${VULKAN_DEVICE}`, () => {
  test('placed on the device, without the CPU-only packed kernels; each call says it ran there', { skip }, async () => {
    const model = await Model.load(modelPath, { device: VULKAN_DEVICE, threads: 1 });
    try {
      const info = model.info();
      assert.equal(info.device.device.name, VULKAN_DEVICE);
      assert.equal(info.device.fellBack, false, info.device.reason);
      // The engine's CPU kernels never go into a GPU graph: no matmul row, and of the fused ops only the
      // host's (the log-mel and the transducer's per-step work run on the CPU whatever the encoder's device).
      assert.deepEqual(matmulKernels(info.kernels), {}, `kernels ${JSON.stringify(info.kernels)}`);
      const hostOps = ['log_mel_avx512', 'lstm_cell_avx512', 'f32_gemv_avx512', 'int8_decoder_vnni'];
      assert.deepEqual(Object.keys(opKernels(info.kernels)).filter((id) => !hostOps.includes(id)), [], `kernels ${JSON.stringify(info.kernels)}`);
      assert.equal(info.mmap, false, 'weights are uploaded to the device, not used from the file mapping');
      assert.ok(info.weightBytes > 0);
      for (const pcm of [noise(seconds(1), 0.5, 3), noise(seconds(3), 0.5, 4)]) {
        const r = await model.transcribe(pcm);
        assert.deepEqual(r.devicesRan, [VULKAN_DEVICE], 'one graph on one device: the direct (gallocr) path');
        assert.equal(r.device, VULKAN_DEVICE);
      }
    } finally {
      model.dispose();
    }
  });

  test('PARAKEET_DEVICE_FAULT=init: the device does not start, the model loads on the CPU and says why', { skip }, async () => {
    const model = await withEnv('PARAKEET_DEVICE_FAULT', 'init', () => Model.load(modelPath, { device: VULKAN_DEVICE, threads: 1 }));
    try {
      const sel = model.info().device;
      assert.equal(sel.device.name, 'CPU');
      assert.equal(sel.fellBack, true);
      assert.match(sel.reason, new RegExp(`'${VULKAN_DEVICE}' failed to initialize`));
      const r = await model.transcribe(noise(seconds(1), 0.5, 5));
      assert.deepEqual(r.devicesRan, ['CPU']);
    } finally {
      model.dispose();
    }
  });

  test('PARAKEET_DEVICE_FAULT=compute: a decode on the device fails with DEVICE_UNAVAILABLE naming it; the CPU still works', { skip }, async () => {
    const pcm = noise(seconds(1), 0.5, 6);
    const failing = await Model.load(modelPath, { device: VULKAN_DEVICE, threads: 1 });
    const cpu = await Model.load(modelPath, { device: 'cpu', threads: 1 });
    try {
      assert.deepEqual((await failing.transcribe(pcm)).devicesRan, [VULKAN_DEVICE], 'it works until the fault is switched on');
      await withEnv('PARAKEET_DEVICE_FAULT', 'compute', async () => {
        await rejectsWithCode(failing.transcribe(pcm), 'DEVICE_UNAVAILABLE', VULKAN_DEVICE);
        const r = await cpu.transcribe(pcm);
        assert.deepEqual(r.devicesRan, ['CPU'], 'the fault hook never touches the CPU');
      });
    } finally {
      failing.dispose();
      cpu.dispose();
    }
  });
});
