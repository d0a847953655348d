// The device self-test around loads: after a load on a device that is not the
// CPU, the device's known-answer test runs (self-test.ts) before the model is
// reported ready; a failure on the device in use moves the model to the
// registry's next choice, which is checked in turn, down to the CPU.
import type { DeviceSelfTest, Notice, SelfTestSpeed } from '../../ipc/contract.js';
import type { Logger } from '../log.js';
import { engineNotices } from './engine-notices.js';
import type { ModelResidency } from './model-residency.js';
import type { EngineLoadOptions, EngineRequest, EngineResponseMap } from '../../engine-process/protocol.js';
import type { CodedError } from '../../../types/errors.js';

/** Each failed self-test removes a device from the registry's choice; this bounds the walk to the CPU. */
const MAX_SELF_TEST_FALLBACKS = 8;

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** "1 s of audio in 85 ms here, 40 ms on the CPU" */
function speedFigures(speed: SelfTestSpeed): string {
  return `${speed.audioMs / 1000} s of audio in ${Math.round(speed.deviceMs)} ms here, ${Math.round(speed.referenceMs)} ms on the CPU`;
}

export interface DeviceCheckDeps {
  log: Logger;
  residency: ModelResidency;
  request: (request: Extract<EngineRequest, { op: 'selfTest' }>, how?: { internal?: boolean }) => Promise<EngineResponseMap['selfTest']>;
  /** The registry's device for a reload (the failed one already excluded). */
  nextDevice: () => string | undefined;
  /** Whether Auto now passes over `device` (it measured slower than the CPU and the user did not name it). */
  autoSkips: (device: string) => boolean;
  emitSelfTest: (result: DeviceSelfTest) => void;
  /** A decode failed on `device` (not a self-test): the registry marks it before nextDevice() is asked. */
  emitDeviceFailed: (failure: { device: string; reason: string }) => void;
  emitNotice: (notice: Notice) => void;
  disposed: () => boolean;
}

export class DeviceCheck {
  /**
   * Automatic self-tests passed in this run, by device + file + load options. Only the reload after an idle
   * unload reuses one: same device, same file, nothing happened to the device meanwhile, and repeating the
   * test would add its two encodes (and a CPU twin's load) to every first dictation after a pause.
   */
  private readonly passed = new Set<string>();

  constructor(private readonly deps: DeviceCheckDeps) {}

  /**
   * After a load: the self-test of the model's device unless it is the CPU (the automatic check has nothing
   * independent to compare the CPU with; the asked-for one uses the scheduler path). Each failure moves the
   * model to the next device, which is checked again, down to the CPU. Rethrows ENGINE_CRASHED (the crash
   * path owns what follows); a test that cannot run otherwise is reported and the device kept.
   */
  async afterLoad(internal: boolean, how: { reusePassed?: boolean } = {}): Promise<void> {
    const { residency, log } = this.deps;
    for (let round = 0; round < MAX_SELF_TEST_FALLBACKS; round += 1) {
      const device = residency.model?.device.device;
      if (!device || device.type === 'cpu') return;
      const key = JSON.stringify([device.name, residency.path, { ...residency.options, device: undefined }]);
      if (how.reusePassed && this.passed.has(key)) {
        log.info(`self-test of ${device.name} skipped: it passed with this model earlier in this run`);
        return;
      }
      let result: DeviceSelfTest;
      try {
        result = await this.deps.request({ op: 'selfTest', trigger: 'load' }, { internal });
      } catch (error) {
        if ((error as CodedError).code === 'ENGINE_CRASHED' || this.deps.disposed()) throw error;
        if ((error as CodedError).code === 'DEVICE_UNAVAILABLE') {
          // The device failed under the test's own decode: the same as failing it (the next device is checked in turn).
          await this.moveAway(device.name, (error as Error).message, internal);
          continue;
        }
        log.warn(`the self-test of ${device.name} could not run`, error);
        this.deps.emitNotice(engineNotices.selfTestIncomplete(device.name, (error as Error).message));
        return;
      }
      if (result.passed) this.passed.add(key);
      if (!(await this.settle(result, internal))) return;
    }
  }

  /**
   * A decode failed with DEVICE_UNAVAILABLE on `device`, the model's device and not the CPU: the device is
   * reported failed and the model reloaded on the registry's next choice (checked like any load), so the
   * caller can run the decode once more. Rethrows what the reload throws.
   */
  async moveAfterFailure(device: string, why: string, internal: boolean): Promise<void> {
    await this.moveAway(device, why, internal);
    await this.afterLoad(internal);
  }

  /**
   * A self-test asked for in Devices failed with DEVICE_UNAVAILABLE on `device` (its own decode there failed):
   * the device is failed as if a decode had failed on it — reported, and when the model is on it, the model
   * moves to the registry's next choice (checked like any load); a device not in use is only reported.
   */
  async failedUnderSelfTest(device: string, why: string): Promise<void> {
    const inUse = this.deps.residency.model?.device.device;
    if (inUse && inUse.type !== 'cpu' && same(inUse.name, device)) {
      await this.moveAfterFailure(inUse.name, why, false);
      return;
    }
    if (same(device, 'CPU')) return;
    this.deps.log.error(`${device} failed under its self-test: ${why}`);
    this.deps.emitDeviceFailed({ device, reason: `failed under its self-test (${why})` });
  }

  /** Reports `device` failed, reloads the model on the registry's next choice, and says where it went. */
  private async moveAway(device: string, why: string, internal: boolean): Promise<void> {
    const { residency, log } = this.deps;
    log.error(`${device} failed while decoding: ${why}`);
    this.deps.emitDeviceFailed({ device, reason: `failed while decoding (${why})` });
    if (!residency.path) throw new Error('no model file to reload');
    await residency.load({ path: residency.path, options: { ...residency.options, device: this.deps.nextDevice() }, reason: 'device-failure', internal });
    this.deps.emitNotice(engineNotices.deviceFailedMoved(device, why, residency.model?.device.device.name ?? 'the CPU'));
  }

  /**
   * A device that passed but measured slower than the CPU: when Auto passes over it (a device the user
   * named stays), the model moves to the registry's next choice. True when it moved.
   */
  private async moveIfOutpaced(result: DeviceSelfTest, internal: boolean): Promise<boolean> {
    const { residency } = this.deps;
    const inUse = residency.model !== null && same(residency.model.device.device.name, result.device);
    if (!inUse || !residency.path || !result.speed || !this.deps.autoSkips(result.device)) return false;
    const next = this.deps.nextDevice();
    if (next === undefined || same(next, result.device)) return false;
    try {
      await residency.load({ path: residency.path, options: { ...residency.options, device: next }, reason: 'self-test', internal });
    } catch (error) {
      if ((error as CodedError).code === 'ENGINE_CRASHED') throw error;
      // The model stays where it was, and it works there: slower is not wrong.
      this.deps.log.warn(`could not move the model off ${result.device}, which measured slower than the CPU`, error);
      return false;
    }
    this.deps.emitNotice(engineNotices.slowerMoved(result.device, speedFigures(result.speed), residency.model?.device.device.name ?? next));
    return true;
  }

  /**
   * Reports a self-test; after a failure on the device in use, reloads the model on the registry's next
   * choice (asked after the report, so the failed device is already excluded). True when it reloaded.
   */
  async settle(tested: DeviceSelfTest, internal: boolean): Promise<boolean> {
    const { residency, log } = this.deps;
    // What the speed is true for: the registry applies a "slower than the CPU" verdict to this model only.
    const result: DeviceSelfTest = residency.path ? { ...tested, model: residency.path } : tested;
    this.deps.emitSelfTest(result);
    const figures = `relative error ${result.relL2 ?? 'n/a'}, tokens ${result.tokensMatch ? 'equal' : 'differ'}, ${result.durationMs} ms`;
    if (result.passed) {
      log.info(`self-test of ${result.device} passed (${figures}${result.speed ? `, ${speedFigures(result.speed)}` : ''})`);
      return this.moveIfOutpaced(result, internal);
    }
    log.error(`self-test of ${result.device} failed: ${result.detail} (${figures})`);
    const inUse = residency.model !== null && same(residency.model.device.device.name, result.device);
    if (!inUse || !residency.path) {
      this.deps.emitNotice(engineNotices.selfTestFailed(result.device, result.detail));
      return false;
    }
    const next = this.deps.nextDevice();
    if (same(result.device, 'CPU') && (next === undefined || same(next, 'CPU'))) {
      // The CPU stays (a CPU the user named, or nothing else left): a reload onto itself would change nothing.
      this.deps.emitNotice(engineNotices.cpuSelfTestFailed(result.detail));
      return false;
    }
    const options: EngineLoadOptions = { ...residency.options, device: next };
    try {
      await residency.load({ path: residency.path, options, reason: 'self-test', internal });
    } catch (error) {
      if ((error as CodedError).code === 'ENGINE_CRASHED') throw error;
      // The engine kept the model it had; the registry no longer offers its device for the next load.
      this.deps.emitNotice(engineNotices.selfTestFailedStuck(result.device, result.detail, (error as Error).message));
      return false;
    }
    this.deps.emitNotice(engineNotices.selfTestFailedMoved(result.device, result.detail, residency.model!.device.device.name));
    return true;
  }
}
