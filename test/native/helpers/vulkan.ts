// The Vulkan lane's device: which one the vulkan-*.test.ts files mean, and why they skip when it is not there.
// They run against an addon built with PARAKEET_VULKAN=1 (PARAKEET_ADDON points at it; .ci/run's Vulkan lane
// builds one) and a Vulkan device ggml shows: on a machine without a GPU that is Mesa's lavapipe, a CPU-type
// Vulkan device ggml hides unless GGML_VK_VISIBLE_DEVICES=0 exposes it (as Vulkan0, typed as a GPU).
import { buildInfo, listDevices, type DeviceInfo } from '../../../native/index.js';

/** The device these tests mean ($PARAKEET_TEST_VULKAN_DEVICE picks another, e.g. Vulkan1 on a two-GPU machine). */
export const VULKAN_DEVICE = process.env.PARAKEET_TEST_VULKAN_DEVICE ?? 'Vulkan0';

/** The Vulkan device, or null. */
export function vulkanDevice(): DeviceInfo | null {
  try {
    return listDevices().find((d) => d.name.toLowerCase() === VULKAN_DEVICE.toLowerCase()) ?? null;
  } catch {
    return null;  // no addon at all: vulkanSkip() says so
  }
}

/**
 * node:test's `skip` value: false when the Vulkan device is usable, else the reason. In the Vulkan lane
 * ($PARAKEET_REQUIRE_VULKAN=1, set by `npm test -- --only=vulkan`) a missing device is an error instead: a lane
 * whose tests all skip would otherwise pass while testing nothing.
 */
export function vulkanSkip(): string | false {
  const reason = vulkanMissing();
  if (reason && process.env.PARAKEET_REQUIRE_VULKAN === '1') {
    throw new Error(`the Vulkan lane needs ${VULKAN_DEVICE} (PARAKEET_REQUIRE_VULKAN=1): ${reason}`);
  }
  return reason;
}

/** Why the Vulkan device cannot be used here, or false. */
function vulkanMissing(): string | false {
  let backends: string[];
  try {
    backends = buildInfo().backends;
  } catch (error) {
    return `no native addon (${(error as Error).message})`;
  }
  if (!backends.includes('Vulkan')) {
    return 'this addon has no Vulkan backend: build one with PARAKEET_VULKAN=1 PARAKEET_BUILD_DIR=<dir> npm run build:native ' +
      'and run with PARAKEET_ADDON=<dir>/Release/parakeet.node (.ci/run\'s Vulkan lane does)';
  }
  if (!vulkanDevice()) {
    return `the Vulkan addon sees no ${VULKAN_DEVICE}: on a machine without a GPU, install mesa-vulkan-drivers and set ` +
      'GGML_VK_VISIBLE_DEVICES=0 so ggml shows lavapipe';
  }
  return false;
}
