// `parakeet devices --model FILE`: each device's known-answer self-test with that model, and the speed
// it measured — the same test and the same words as the app's Devices view (self-test-run.ts,
// app/shared/device-speed.ts). Without a model the CLI has nothing to decode, so plain `parakeet devices`
// lists properties only.
import { Model, type DeviceInfo, type LoadOptions } from '../../native/index.js';
import type { DeviceSelfTest } from '../ipc/contract.js';
import { runSelfTest } from '../engine-process/self-test-run.js';
import { selfTestSpeed, speedText } from '../shared/device-speed.js';

/** One device's outcome: its self-test, or why it could not run there (the device, not the model). */
export interface DeviceSelfTestOutcome {
  selfTest?: DeviceSelfTest;
  selfTestError?: string;
}

/** Errors that belong to one device; anything else (an unreadable model) stops the command. */
const DEVICE_ERRORS = new Set(['DEVICE_UNAVAILABLE', 'OUT_OF_MEMORY']);

/**
 * Loads `path` on each device in turn and runs the app's self-test there (against a CPU twin; the CPU
 * against its scheduler path). One device at a time, so each speed is measured with the machine to itself.
 */
export async function selfTestDevices(
  devices: readonly DeviceInfo[], path: string, options: Pick<LoadOptions, 'threads' | 'weightType'>,
): Promise<DeviceSelfTestOutcome[]> {
  const outcomes: DeviceSelfTestOutcome[] = [];
  for (const device of devices) {
    let model: Model | undefined;
    try {
      model = await Model.load(path, { ...options, device: device.name });
      outcomes.push({ selfTest: await runSelfTest({ resident: model, path, load: (p, o) => Model.load(p, o), device: device.name, trigger: 'manual' }) });
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code !== 'string' || !DEVICE_ERRORS.has(code)) throw error;
      outcomes.push({ selfTestError: error instanceof Error ? error.message : String(error) });
    } finally {
      model?.dispose();
    }
  }
  return outcomes;
}

/** The lines `parakeet devices --model` adds under a device. */
export function selfTestLines(outcome: DeviceSelfTestOutcome): string[] {
  if (outcome.selfTest === undefined) return [`    self-test: could not run: ${outcome.selfTestError ?? 'no result'}`];
  const test = outcome.selfTest;
  const lines = [`    self-test: ${test.passed ? 'passed' : 'FAILED'} (${test.detail})`];
  const speed = selfTestSpeed(test);
  lines.push(speed ? `    speed: ${speedText(speed)}` : '    speed: not measured (a device that fails its self-test is not timed)');
  return lines;
}
