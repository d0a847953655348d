// A device that cannot start, on a real Vulkan device (Vulkan0; lavapipe in CI, see helpers/vulkan.ts), through
// the app's real services with the engine inline: PARAKEET_DEVICE_FAULT=init makes the Vulkan backend fail to
// initialize, as a device without its driver or memory would. The settings name the device, so the model loads
// on the CPU instead (the engine's fallback); the device must be marked failed with the reason, the user told
// once what runs instead and what to do, and the decodes run on the CPU.
import assert from 'node:assert/strict';
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

before(async () => {
  if (skip) return;
  delete process.env.PARAKEET_DEVICE;
  process.env.PARAKEET_DEVICE_FAULT = 'init';
  services = await servicesOnVulkan(dir, tinyModel(dir, 'ctc', 6), notices);
});

after(async () => {
  if (saved.fault === undefined) delete process.env.PARAKEET_DEVICE_FAULT;
  else process.env.PARAKEET_DEVICE_FAULT = saved.fault;
  if (saved.device !== undefined) process.env.PARAKEET_DEVICE = saved.device;
  await services?.dispose();
});

test(`${VULKAN_DEVICE} named in Settings but unable to start: the model on the CPU, the device marked failed, the user told once`, { skip }, async () => {
  const s = services!;
  await s.devices.refresh();
  const selection = s.engine.loadedModel?.device;
  assert.equal(selection?.device.name, 'CPU', JSON.stringify(selection));
  assert.equal(selection?.fellBack, true);
  const failure = s.devices.state().failed.find((f) => f.name === VULKAN_DEVICE);
  assert.ok(failure, JSON.stringify(s.devices.state().failed));
  assert.match(failure.reason, /could not start .*simulated: PARAKEET_DEVICE_FAULT=init/);
  const told = notices.filter((n) => n.code === 'DEVICE_FAILED');
  assert.equal(told.length, 1, JSON.stringify(notices));
  assert.match(told[0]!.message, new RegExp(`^${VULKAN_DEVICE} could not start \\(.*\\), so the model runs on the CPU`));

  const result = await s.engine.transcribe(speechSamples(dir, seconds(2)), {}, { priority: 'final' });
  assert.deepEqual(result?.devicesRan, ['CPU'], 'decodes run on the CPU');
  assert.equal(notices.filter((n) => n.code === 'DEVICE_FAILED').length, 1, 'said once, not again at the next decode');
});
