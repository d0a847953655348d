// A device's measured speed from its self-test (app/engine-process/self-test-run.ts), in the words the
// Devices view and `parakeet devices --model` both use.
import type { DeviceSelfTest } from '../ipc/contract.js';
import { formatMs, formatRealTime } from './time-format.js';

export interface MeasuredSpeed {
  /** Decode time of the self-test signal on this device, ms. */
  decodeMs: number;
  audioMs: number;
  /** The CPU's time in the same test (absent for the CPU itself). */
  cpuMs?: number;
}

/**
 * The speed a passed self-test measured for the device it tested: against a CPU twin (a GPU) with the
 * CPU's time beside it; the CPU's own test compares two graph executors, so its time stands alone.
 */
export function selfTestSpeed(test: DeviceSelfTest): MeasuredSpeed | null {
  if (!test.passed || !test.speed) return null;
  const { audioMs, deviceMs, referenceMs } = test.speed;
  return test.reference === 'cpu' ? { decodeMs: deviceMs, audioMs, cpuMs: referenceMs } : { decodeMs: deviceMs, audioMs };
}

/** "1 s of audio in 85 ms (12× real time)", plus "· 2.4× the CPU's speed" where a CPU time was measured with it. */
export function speedText(speed: MeasuredSpeed): string {
  const base = `${speed.audioMs / 1000} s of audio in ${formatMs(speed.decodeMs)} (${formatRealTime(speed.audioMs / 1000, speed.decodeMs)})`;
  if (speed.cpuMs === undefined || speed.decodeMs <= 0) return base;
  const ratio = speed.cpuMs / speed.decodeMs;
  return `${base} · ${ratio >= 10 ? Math.round(ratio) : ratio.toFixed(2)}× the CPU's speed`;
}
