// The Devices view's words for a self-test: figures when it passed, the reason
// and the consequence when it failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeviceSelfTest } from '../../../app/ipc/contract.js';
import { selfTestOf } from '../../../renderer/store/devices.js';
import { selfTestText, selfTestTitle } from '../../../renderer/views/devices/self-test-text.js';

const passed: DeviceSelfTest = {
  device: 'CUDA0', reference: 'cpu', trigger: 'load', passed: true, relL2: 2.1e-7, tolerance: 3e-2, tokensMatch: true,
  durationMs: 34, at: '2025-01-01T10:00:00.000Z', detail: 'matches the CPU: relative error 2.1e-7, same tokens',
};

test('a pass shows what it was compared with and the figures', () => {
  assert.equal(selfTestText(passed, 'CUDA0'), 'Passed: matches the CPU: relative error 2.1e-7, same tokens, 34 ms');
  assert.equal(
    selfTestText({ ...passed, device: 'CPU', reference: 'cpu-scheduled', relL2: 0, tokensMatch: false }, 'CPU'),
    "Passed: matches the CPU's scheduler path: relative error 0, one token differs (a near tie), 34 ms",
  );
  assert.match(selfTestTitle(passed), /automatically after the model was loaded .* allowed relative error 0\.030/);
});

test('a failure says why, that the device is out for this run, and where the engine runs now', () => {
  const failed: DeviceSelfTest = {
    ...passed, passed: false, relL2: 0.83,
    detail: "its output differs from the CPU's (relative error 0.83, allowed 0.030); results on it would be wrong",
  };
  assert.equal(
    selfTestText(failed, 'CPU'),
    "Failed: its output differs from the CPU's (relative error 0.83, allowed 0.030); results on it would be wrong — marked unusable for this run, running on CPU",
  );
});

test('the last result per device, by name in any case', () => {
  const state = { devices: [], selected: 'auto', active: null, lastRan: [], failed: [], selfTests: [passed], preparing: null, prepared: [], autoSkipped: [], backendsNotLoaded: [] };
  assert.equal(selfTestOf(state, 'cuda0'), passed);
  assert.equal(selfTestOf(state, 'CPU'), null);
  assert.equal(selfTestOf(null, 'CPU'), null);
});
