// The engine's restart policy (app/main/engine/restart-supervisor.ts) with a
// hand-driven clock and timers: backoff per death within a minute, giving up
// past the limit, one more try after that, dispose; and whom a death blames.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RestartSupervisor, blamedDevice, type SupervisorTimers } from '../../../app/main/engine/restart-supervisor.js';
import type { EngineRequest } from '../../../app/engine-process/protocol.js';

/** A clock and timers the test moves by hand. */
function harness(options: { delays?: number[]; max?: number } = {}) {
  let now = 1_000_000;
  let restarts = 0;
  const pending = new Map<number, { at: number; run: () => void }>();
  let nextHandle = 1;
  const timers: SupervisorTimers = {
    set: (run, ms) => {
      const handle = nextHandle++;
      pending.set(handle, { at: now + ms, run });
      return handle;
    },
    clear: (handle) => {
      pending.delete(handle as number);
    },
  };
  const supervisor = new RestartSupervisor({
    restart: () => {
      restarts += 1;
    },
    restartDelaysMs: options.delays,
    maxCrashesPerMinute: options.max,
    now: () => now,
    timers,
  });
  return {
    supervisor,
    get restarts() {
      return restarts;
    },
    get scheduled() {
      return pending.size;
    },
    /** Moves the clock on by `ms`, running the timers that fall due. */
    advance(ms: number) {
      now += ms;
      for (const [handle, t] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at <= now) {
          pending.delete(handle);
          t.run();
        }
      }
    },
  };
}

test('each death within a minute waits the next delay (0, 500, 2000, 5000, then 5000 again) before the restart', () => {
  const h = harness();
  const delays: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const verdict = h.supervisor.crashed();
    assert.equal(verdict.restarting, true, `death ${i + 1}`);
    assert.equal(verdict.recent, i + 1);
    delays.push(verdict.delayMs);
    if (verdict.delayMs > 0) {
      h.advance(verdict.delayMs - 1);
      assert.equal(h.restarts, i, `death ${i + 1}: not restarted before its delay`);
      assert.equal(h.supervisor.restartPending, true);
    }
    h.advance(1);
    assert.equal(h.restarts, i + 1, `death ${i + 1}: restarted once its delay passed`);
    assert.equal(h.supervisor.restartPending, false);
  }
  assert.deepEqual(delays, [0, 500, 2000, 5000, 5000]);
  assert.equal(h.supervisor.restarts, 5, 'every death counted');
});

test('deaths older than a minute are forgotten: the backoff starts again from the first delay', () => {
  const h = harness();
  h.supervisor.crashed();
  h.advance(0);
  h.advance(30_000);
  assert.equal(h.supervisor.crashed().delayMs, 500, 'second death within the minute');
  h.advance(61_000);
  const verdict = h.supervisor.crashed();
  assert.equal(verdict.recent, 1, 'the earlier deaths fell out of the window');
  assert.equal(verdict.delayMs, 0);
});

test('more deaths in a minute than the limit: no restart is scheduled and it has given up; a new request earns one more try', () => {
  const h = harness({ max: 2, delays: [0] });
  assert.equal(h.supervisor.crashed().restarting, true);
  h.advance(0);
  assert.equal(h.supervisor.crashed().restarting, true);
  h.advance(0);
  const third = h.supervisor.crashed();
  assert.equal(third.restarting, false);
  assert.equal(third.recent, 3);
  assert.equal(h.supervisor.gaveUp, true);
  assert.equal(h.scheduled, 0, 'nothing scheduled');
  h.advance(120_000);
  assert.equal(h.restarts, 2, 'no restart after giving up');
  assert.equal(h.supervisor.revive(), true, 'revive: restart now');
  assert.equal(h.supervisor.gaveUp, false);
  assert.equal(h.supervisor.revive(), false, 'a second revive has nothing to revive');
  // The count starts again: two more deaths restart, the third gives up.
  assert.equal(h.supervisor.crashed().restarting, true);
  h.advance(0);
  assert.equal(h.supervisor.crashed().restarting, true);
  h.advance(0);
  assert.equal(h.supervisor.crashed().restarting, false);
  assert.equal(h.supervisor.restarts, 6);
});

test('revive while not given up does nothing; revive with a restart still scheduled says not to restart now', () => {
  const h = harness({ max: 1, delays: [1000] });
  assert.equal(h.supervisor.revive(), false);
  h.supervisor.crashed();
  assert.equal(h.supervisor.restartPending, true);
  assert.equal(h.supervisor.revive(), false, 'not given up: the scheduled restart stands');
  h.advance(1000);
  assert.equal(h.restarts, 1);
});

test('dispose cancels a scheduled restart, and a death after it schedules nothing', () => {
  const h = harness({ delays: [500] });
  h.supervisor.crashed();
  h.supervisor.dispose();
  assert.equal(h.scheduled, 0);
  h.advance(1000);
  assert.equal(h.restarts, 0);
  const after = h.supervisor.crashed();
  assert.equal(after.restarting, false);
  assert.equal(h.supervisor.gaveUp, false, 'disposed is not "gave up": nothing will revive it');
  assert.equal(h.supervisor.revive(), false);
  assert.equal(h.scheduled, 0);
});

test('blame: a load blames the device it asked for, a self-test its device, a decode the model\'s; a validation or nothing blames none', () => {
  const pcm = new Float32Array(16);
  const load: EngineRequest = { op: 'load', path: '/m.gguf', options: { device: 'Vulkan0' } };
  const loadAuto: EngineRequest = { op: 'load', path: '/m.gguf', options: {} };
  const selfTest: EngineRequest = { op: 'selfTest', device: 'CUDA1', trigger: 'manual' };
  const decode: EngineRequest = { op: 'transcribe', pcm, options: {} };
  const validate: EngineRequest = { op: 'validate', path: '/other.gguf' };
  assert.equal(blamedDevice([decode, load], 'CUDA0'), 'Vulkan0', 'the load comes first');
  assert.equal(blamedDevice([loadAuto], 'CUDA0'), 'CUDA0', 'a load without a device: the model’s');
  assert.equal(blamedDevice([loadAuto], null), null);
  assert.equal(blamedDevice([decode, selfTest], 'CUDA0'), 'CUDA1');
  assert.equal(blamedDevice([decode], 'CUDA0'), 'CUDA0');
  assert.equal(blamedDevice([{ op: 'fileWindow', handle: 1, index: 0, options: {} }], 'CPU'), 'CPU');
  assert.equal(blamedDevice([validate], 'CUDA0'), null, 'a validation runs on the CPU in its own model');
  assert.equal(blamedDevice([], 'CUDA0'), null, 'nothing running');
});
