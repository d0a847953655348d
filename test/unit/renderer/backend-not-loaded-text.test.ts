// The Devices view's line for a GPU backend shipped with the app that could not start on this machine (the
// engine's "<Name>: <why>"): it says the engine runs on the CPU, keeps the loader's reason, and what to install.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backendNotLoadedText } from '../../../renderer/views/devices/device-facts.js';

test('no Vulkan loader: the reason, the CPU, and what to install', () => {
  const text = backendNotLoadedText('Vulkan: its library could not be loaded: libvulkan.so.1: cannot open shared object file: No such file or directory');
  assert.match(text, /^Vulkan is not available on this machine, so the engine runs on the CPU: /);
  assert.match(text, /libvulkan\.so\.1: cannot open shared object file/);
  assert.match(text, /libvulkan1/);
  assert.match(text, /restart the app/);
});

test('another backend, or a line without a name: still a sentence with the reason', () => {
  assert.match(backendNotLoadedText('CUDA: its library loads but registered no backend (no usable device or driver)'),
    /^CUDA is not available on this machine, so the engine runs on the CPU: its library loads but registered no backend .*Install the driver or runtime CUDA needs/);
  assert.match(backendNotLoadedText('something odd'), /^A GPU backend is not available on this machine, so the engine runs on the CPU: something odd\./);
});
