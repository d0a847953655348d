// The known-answer device self-test through the real services (engine
// process, generated tiny model, devices:selfTest over the router): on the
// CPU it compares the normal path with the ggml_backend_sched path for real
// (the figure is recomputed here from two in-process runs and must agree);
// with the test hook corrupting the device run, the device is marked failed
// with the self-test's reason, the model is reloaded on the CPU, and the UI
// gets a notice. This machine has no GPU, so the automatic check after a load
// (it skips the CPU) is seen only as its absence.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DeviceSelfTest, EventMap, EventName } from '../../app/ipc/contract.js';
import { judge, selfTestSignal, toleranceFor } from '../../app/engine-process/self-test.js';
import { Model } from '../../native/index.js';
import { startTestServices, tempDir, tinyModel, writeTestSettings, type TestServices } from './helpers.js';

const dir = tempDir('selftest');
const modelPath = tinyModel(dir, 'hybrid_tdt_ctc', 3);
let services: TestServices;
const ctx = { clientId: 'test' };

before(async () => {
  writeTestSettings(dir);
  services = await startTestServices(dir, modelPath);
  assert.equal(services.engine.loadedModel?.device.device.name, 'CPU');
});
after(async () => {
  await services.dispose();
});

function record<E extends EventName>(event: E): { events: EventMap[E][]; stop: () => void } {
  const events: EventMap[E][] = [];
  const stop = services.bus.on(event, (data) => events.push(data));
  return { events, stop };
}

async function selfTest(payload: { name?: string }): Promise<DeviceSelfTest> {
  const result = await services.router.handle('devices:selfTest', payload, ctx);
  assert.ok(result.ok, JSON.stringify(result));
  return result.value as DeviceSelfTest;
}

test('no automatic self-test after a load on the CPU (nothing independent to compare with)', () => {
  assert.deepEqual(services.devices.state().selfTests, []);
});

test('on demand on the CPU: the normal path matches the scheduler path, with real figures', async () => {
  const result = await selfTest({ name: 'cpu' });
  console.log(`CPU self-test (tiny hybrid model): relative error ${result.relL2}, tokens ${result.tokensMatch ? 'equal' : 'differ'}, ${result.durationMs} ms`);
  assert.equal(result.device, 'CPU');
  assert.equal(result.reference, 'cpu-scheduled');
  assert.equal(result.trigger, 'manual');
  assert.equal(result.passed, true, result.detail);
  assert.ok(result.relL2 !== null && result.relL2 < 1e-4, `relative error ${result.relL2}`);
  assert.equal(result.tokensMatch, true);
  assert.equal(result.tolerance, 1e-4, 'the CPU against itself: the strict bound');
  assert.ok(result.durationMs > 0);
  assert.match(result.detail, /^matches the scheduler path on the CPU: relative error/);

  // The same two runs in this process give the same verdict and the same figure: the engine compared real outputs.
  const pcm = selfTestSignal();
  const direct = await Model.load(modelPath, { device: 'cpu', threads: 1 });
  const scheduled = await Model.load(modelPath, { device: 'cpu', threads: 1, alwaysSchedule: true });
  try {
    const a = await direct.transcribe(pcm, { captureEncoder: true });
    const b = await scheduled.transcribe(pcm, { captureEncoder: true });
    assert.ok(a.encoder && b.encoder && a.encoder.validFrames >= 10, 'about a dozen encoder frames');
    let energy = 0;
    for (const v of a.encoder.data) energy += v * v;
    assert.ok(energy > 0, 'the encoder output is not all zero');
    const run = (r: typeof a) => ({ encoder: r.encoder!.data, validFrames: r.encoder!.validFrames, dim: r.encoder!.dim, tokens: r.tokens.map((t) => t.id) });
    const local = judge(run(a), run(b), toleranceFor(direct.info().weightTypes, true), { name: 'x', possessive: "x's" });
    assert.equal(local.passed, true);
    assert.ok(Math.abs((local.relL2 ?? 1) - result.relL2!) <= 1e-9, `engine ${result.relL2} vs in-process ${local.relL2}`);
  } finally {
    direct.dispose();
    scheduled.dispose();
  }

  const state = services.devices.state();
  assert.deepEqual(state.selfTests.map((t) => [t.device, t.passed]), [['CPU', true]]);
  assert.deepEqual(state.failed, []);

  // Its speed (issue 42 item 3): both executors timed on the signal after the verdict's run, inside the test's time.
  const speed = result.speed;
  assert.ok(speed, 'a passed self-test carries its speed');
  assert.equal(speed.audioMs, 1000);
  assert.ok(speed.deviceMs > 0 && speed.referenceMs > 0 && speed.deviceMs + speed.referenceMs < result.durationMs, JSON.stringify(result));
  assert.deepEqual(state.selfTests[0]?.speed, speed, 'the Devices view gets the figures');
  assert.equal(state.selfTests[0]?.model, services.engine.loadedModel?.path, 'what the speed is true for: the model it ran');
  assert.deepEqual(state.autoSkipped, [], 'the CPU is never passed over for being slower than itself');
  assert.equal(state.preparing, null, 'the CPU needs no preparation');
  assert.deepEqual(state.prepared, []);
});

test('a corrupted device run fails: the device is marked with the reason, the model stays on the CPU (nothing else left), a notice says so', async () => {
  const notices = record('notice');
  const devicesChanged = record('devices:changed');
  const states: string[] = [];
  const off = services.engine.on('status', (s) => states.push(s.state));
  try {
    await services.triggers.corruptNextSelfTest('noise');
    const result = await selfTest({});
    assert.equal(result.device, 'CPU');
    assert.equal(result.passed, false);
    assert.ok(result.relL2 !== null && result.relL2 > 0.5, `relative error ${result.relL2}`);
    assert.match(result.detail, /^its output differs from the scheduler path's on the CPU \(relative error 1\.\d, allowed 1\.0e-4\); results on it would be wrong$/);
    assert.equal(result.speed, undefined, 'a wrong device has no speed worth showing');

    const state = services.devices.state();
    const failure = state.failed.find((f) => f.name === 'CPU');
    assert.ok(failure, JSON.stringify(state.failed));
    assert.equal(failure.reason, `self-test: ${result.detail}`);
    assert.equal(state.selfTests.at(-1)?.passed, false);
    assert.ok(devicesChanged.events.some((s) => s.failed.some((f) => f.name === 'CPU')), 'the renderer is told');

    // The registry's next choice is the CPU again (no other device: the last resort), so no reload onto itself.
    assert.ok(!states.includes('loading'), states.join(','));
    assert.equal(services.engine.loadedModel?.device.device.name, 'CPU');
    assert.equal(services.engine.status().state, 'ready');
    const notice = notices.events.find((n) => n.code === 'DEVICE_SELF_TEST_FAILED');
    assert.ok(notice, JSON.stringify(notices.events));
    assert.equal(notice.level, 'warning');
    assert.match(notice.message, /^The self-test of the CPU failed: its output differs .*\. The model stays on the CPU .*so its results may be wrong\.$/);
  } finally {
    off();
    notices.stop();
    devicesChanged.stop();
  }

  // The engine keeps working, and the CPU can still be tested (it stays the last resort).
  const text = await services.engine.transcribe(selfTestSignal(), {}, { priority: 'final' });
  assert.ok(text);
  const again = await selfTest({ name: 'CPU' });
  assert.equal(again.passed, true, again.detail);
});

test('NaN from the device fails without a relative error', async () => {
  await services.triggers.corruptNextSelfTest('nan');
  const result = await selfTest({});
  assert.equal(result.passed, false);
  assert.equal(result.relL2, null);
  assert.match(result.detail, /NaN or infinity/);
});

test('an unknown device is refused with the devices there are', async () => {
  const result = await services.router.handle('devices:selfTest', { name: 'CUDA7' }, ctx);
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.error.code, 'DEVICE_UNAVAILABLE');
    assert.match(result.error.message, /CUDA7.*available: .*CPU/);
  }
});
