// A device that fails mid-session, on a real Vulkan device (Vulkan0; lavapipe in CI, see helpers/vulkan.ts),
// through the app's real services with the engine inline (in this process, so the test can switch the fault
// on after the device passed its load-time self-test): PARAKEET_DEVICE_FAULT=compute makes every compute on
// the device report failure, =compute-throw makes it throw (ggml-vulkan throws vk::DeviceLostError from a lost
// device: that must be the device's failure too, not an internal error retried on the same device). The decode
// in flight must still return the CPU's text, the device must be marked failed with the reason, the user told,
// and the session go on on the CPU.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Notice } from '../../app/ipc/contract.js';
import type { Services } from '../../app/main/service-types.js';
import { Model } from '../../native/index.js';
import { tempDir, tinyModel } from '../integration/helpers.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { ids } from './helpers/compare.js';
import { VULKAN_DEVICE, vulkanSkip } from './helpers/vulkan.js';
import { servicesOnVulkan } from './helpers/vulkan-services.js';

const skip = vulkanSkip();
const dir = tempDir('vulkan-failover');
let services: Services | undefined;
const notices: Notice[] = [];
const savedDevice = process.env.PARAKEET_DEVICE;

before(() => {
  if (skip) return;
  delete process.env.PARAKEET_DEVICE;
});
after(async () => {
  delete process.env.PARAKEET_DEVICE_FAULT;
  if (savedDevice !== undefined) process.env.PARAKEET_DEVICE = savedDevice;
  await services?.dispose();
});

describe(`${VULKAN_DEVICE} failing mid-session`, () => {
  for (const fault of ['compute', 'compute-throw'] as const) {
    test(`PARAKEET_DEVICE_FAULT=${fault}: the decode in flight moves to the CPU with nothing lost; the device is marked failed; the next decodes run on the CPU`, { skip }, async () => {
      delete process.env.PARAKEET_DEVICE_FAULT;
      notices.length = 0;
      const modelPath = tinyModel(dir, 'hybrid_tdt_ctc', 5);
      await services?.dispose();
      services = await servicesOnVulkan(join(dir, fault), modelPath, notices);
      const s = services;
      await s.devices.refresh();
      assert.equal(s.engine.loadedModel?.device.device.name, VULKAN_DEVICE, 'the model starts on the device the settings name');
      const passed = s.devices.state().selfTests.find((t) => t.device === VULKAN_DEVICE);
      assert.ok(passed?.passed, `the load-time self-test ran on ${VULKAN_DEVICE} and passed: ${JSON.stringify(passed)}`);

      const pcm = speechSamples(dir, seconds(3));
      const before = await s.engine.transcribe(pcm, {}, { priority: 'final' });
      assert.deepEqual(before?.devicesRan, [VULKAN_DEVICE]);

      process.env.PARAKEET_DEVICE_FAULT = fault;
      const moved = await s.engine.transcribe(pcm, {}, { priority: 'final' });
      assert.deepEqual(moved?.devicesRan, ['CPU'], 'the failed decode ran again on the CPU');
      const cpu = await Model.load(modelPath, { device: 'cpu', threads: 1 });
      try {
        const expected = await cpu.transcribe(pcm);
        assert.deepEqual(ids(moved!.tokens), ids(expected.tokens), 'the CPU\'s own tokens: nothing of the audio was lost');
        assert.equal(moved!.text, expected.text);
      } finally {
        cpu.dispose();
      }

      const state = s.devices.state();
      assert.equal(state.active?.device.name, 'CPU');
      const failure = state.failed.find((f) => f.name === VULKAN_DEVICE);
      assert.ok(failure, JSON.stringify(state.failed));
      assert.match(failure.reason, /failed while decoding/);
      if (fault === 'compute-throw') assert.match(failure.reason, /simulated: PARAKEET_DEVICE_FAULT=compute-throw/, 'the driver\'s own words are kept');
      const notice = notices.find((n) => n.code === 'DEVICE_FAILED');
      assert.ok(notice, JSON.stringify(notices));
      assert.match(notice.message, new RegExp(`${VULKAN_DEVICE} failed .*continues on CPU`));

      const next = await s.engine.transcribe(pcm, {}, { priority: 'final' });
      assert.deepEqual(next?.devicesRan, ['CPU'], 'the session goes on on the CPU');
    });
  }
});
