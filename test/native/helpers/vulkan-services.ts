// The app's real services with the engine inline (in the test's process, so a test can switch
// PARAKEET_DEVICE_FAULT on and off) and the settings naming the Vulkan lane's device: what the lane's
// failover tests run against, collecting every notice the user would see.
import { mkdirSync } from 'node:fs';
import type { Notice } from '../../../app/ipc/contract.js';
import { createServices } from '../../../app/main/services.js';
import type { Services } from '../../../app/main/service-types.js';
import { writeTestSettings } from '../../integration/helpers.js';
import { VULKAN_DEVICE } from './vulkan.js';

export async function servicesOnVulkan(dir: string, modelPath: string, notices: Notice[]): Promise<Services> {
  mkdirSync(dir, { recursive: true });
  writeTestSettings(dir, { device: VULKAN_DEVICE });
  const services = await createServices({
    userDataDir: dir, mode: 'web', engineMode: 'inline', modelPath, modelEndpoint: 'https://127.0.0.1:9',
    logToStderr: process.env.PARAKEET_TEST_LOG === '1',
  });
  services.bus.on('notice', (notice) => notices.push(notice));
  await services.ready;
  return services;
}
