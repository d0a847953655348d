// The Devices view's Type column: a software renderer (lavapipe/llvmpipe, SwiftShader: a GPU API device that
// computes on the CPU) is not called a GPU there; real GPUs and the CPU keep their type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeviceInfo, DevicesState } from '../../../app/ipc/contract.js';
import { deviceChoosable, deviceTypeText } from '../../../renderer/views/devices/device-facts.js';

function device(name: string, type: DeviceInfo['type'], extra: Partial<DeviceInfo> = {}): DeviceInfo {
  return {
    name, type, description: `${name} device`, backend: type === 'cpu' ? 'CPU' : 'Vulkan', memoryFree: 1e9, memoryTotal: 2e9,
    deviceId: '', cpuFeatures: [], cpuThreads: type === 'cpu' ? 2 : 0, softwareRenderer: false, ...extra,
  };
}

test('lavapipe is a software renderer in the Type column, not a GPU', () => {
  const lavapipe = device('Vulkan0', 'gpu', { description: 'llvmpipe (LLVM 19.1.7, 256 bits)', softwareRenderer: true });
  const text = deviceTypeText(lavapipe);
  assert.match(text, /software renderer/i);
  assert.doesNotMatch(text, /^GPU$|^Integrated GPU$/);
});

test('the CPU and real GPUs keep their type', () => {
  assert.equal(deviceTypeText(device('CPU', 'cpu')), 'CPU');
  assert.equal(deviceTypeText(device('Vulkan0', 'gpu')), 'GPU');
  assert.equal(deviceTypeText(device('Vulkan1', 'igpu')), 'Integrated GPU');
  assert.equal(deviceTypeText(device('X0', 'accel')), 'Accelerator');
});

test('"Use" is offered for a device that failed only when it is the CPU (the last resort); a failed GPU waits for a restart', () => {
  const state = { failed: [{ name: 'cpu', reason: 'the engine process stopped', at: '' }, { name: 'Vulkan0', reason: 'self-test', at: '' }] } as unknown as DevicesState;
  assert.equal(deviceChoosable(state, device('CPU', 'cpu')), true);
  assert.equal(deviceChoosable(state, device('Vulkan0', 'gpu')), false);
  assert.equal(deviceChoosable(state, device('Vulkan1', 'gpu')), true);
});
