// A device that cannot start, on a real Vulkan device (Vulkan0; lavapipe in CI, see helpers/vulkan.ts), through
// the app's real services with the engine inline: PARAKEET_DEVICE_FAULT=init makes the Vulkan backend fail to
// initialize (its init returns nothing, as a device without its driver would), =init-throw makes it throw (as
// ggml-vulkan's createDevice does with vk::SystemError, and with "Unsupported device"), =weights leaves no room for
// the model's weights (a GPU with too little memory). The settings name the device, so the model loads on the CPU
// instead (the engine's fallback); the device must be marked failed with the reason, the user told once what runs
// instead and what to do, and the decodes run on the CPU.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Notice } from '../../app/ipc/contract.js';
import type { Services } from '../../app/main/service-types.js';
import { tempDir, tinyModel } from '../integration/helpers.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { VULKAN_DEVICE, vulkanSkip } from './helpers/vulkan.js';
import { servicesOnVulkan } from './helpers/vulkan-services.js';

const skip = vulkanSkip();
const dir = tempDir('vulkan-start-failure');
let services: Services | undefined;
const notices: Notice[] = [];
const saved = { device: process.env.PARAKEET_DEVICE, fault: process.env.PARAKEET_DEVICE_FAULT };

before(() => {
  if (skip) return;
  delete process.env.PARAKEET_DEVICE;
});

after(async () => {
  if (saved.fault === undefined) delete process.env.PARAKEET_DEVICE_FAULT;
  else process.env.PARAKEET_DEVICE_FAULT = saved.fault;
  if (saved.device !== undefined) process.env.PARAKEET_DEVICE = saved.device;
  await services?.dispose();
});

const FAULTS = [
  { fault: 'init', reason: /could not start .*failed to initialize \(simulated: PARAKEET_DEVICE_FAULT=init\)/ },
  { fault: 'init-throw', reason: /could not start .*failed to initialize \(simulated: PARAKEET_DEVICE_FAULT=init-throw\)/ },
] as const;

for (const { fault, reason } of FAULTS) {
  test(`${VULKAN_DEVICE} named in Settings but unable to start (PARAKEET_DEVICE_FAULT=${fault}): the model on the CPU, the device marked failed, the user told once`, { skip }, async () => {
    process.env.PARAKEET_DEVICE_FAULT = fault;
    notices.length = 0;
    await services?.dispose();
    services = await servicesOnVulkan(join(dir, fault), tinyModel(dir, 'ctc', 6), notices);
    const s = services;
    await s.devices.refresh();
    const selection = s.engine.loadedModel?.device;
    assert.equal(selection?.device.name, 'CPU', JSON.stringify(selection));
    assert.equal(selection?.fellBack, true);
    const failure = s.devices.state().failed.find((f) => f.name === VULKAN_DEVICE);
    assert.ok(failure, JSON.stringify(s.devices.state().failed));
    assert.match(failure.reason, reason);
    const told = notices.filter((n) => n.code === 'DEVICE_FAILED');
    assert.equal(told.length, 1, JSON.stringify(notices));
    assert.match(told[0]!.message, new RegExp(`^${VULKAN_DEVICE} could not start \\(.*\\), so the model runs on the CPU`));

    const result = await s.engine.transcribe(speechSamples(dir, seconds(2)), {}, { priority: 'final' });
    assert.deepEqual(result?.devicesRan, ['CPU'], 'decodes run on the CPU');
    assert.equal(notices.filter((n) => n.code === 'DEVICE_FAILED').length, 1, 'said once, not again at the next decode');
  });
}

test(`${VULKAN_DEVICE} without room for the model's weights (PARAKEET_DEVICE_FAULT=weights): the model on the CPU, the device not failed but passed over for this model, the user told once`, { skip }, async () => {
  process.env.PARAKEET_DEVICE_FAULT = 'weights';
  notices.length = 0;
  await services?.dispose();
  const modelPath = tinyModel(dir, 'ctc', 6);
  services = await servicesOnVulkan(join(dir, 'weights'), modelPath, notices);
  const s = services;
  await s.devices.refresh();
  const selection = s.engine.loadedModel?.device;
  assert.equal(selection?.device.name, 'CPU', JSON.stringify(selection));
  assert.deepEqual([selection?.fellBack, selection?.noRoom], [true, true]);
  assert.match(selection?.reason ?? '', new RegExp(`'${VULKAN_DEVICE}' has too little free memory for this model's weights \\(not enough memory on ${VULKAN_DEVICE} for the model weights`));
  const state = s.devices.state();
  assert.deepEqual(state.failed, [], 'the device works; only this model does not fit');
  assert.deepEqual(state.autoSkipped.map((d) => d.name), [VULKAN_DEVICE]);
  assert.deepEqual(notices.map((n) => n.code), ['DEVICE_NO_ROOM'], JSON.stringify(notices));
  const result = await s.engine.transcribe(speechSamples(dir, seconds(2)), {}, { priority: 'final' });
  assert.deepEqual(result?.devicesRan, ['CPU'], 'decodes run on the CPU');
  // The fault gone (a smaller model would fit): the same device is tried for another model file.
  delete process.env.PARAKEET_DEVICE_FAULT;
  await s.loadModel(tinyModel(dir, 'ctc', 7));
  assert.equal(s.engine.loadedModel?.device.device.name, VULKAN_DEVICE, 'another model goes to the device again');
});
