// What the Devices view says about a device beyond its name: the measured self-test speed against the
// CPU, Auto passing over a slower device, and a GPU's one-time preparation. DOM-free (unit-tested).
// (A GPU's driver and features: app/shared/gpu-facts.ts; the speed's words: app/shared/device-speed.ts —
// both shared with diagnostics and the CLI.)
import type { DeviceInfo, DevicesState } from '../../../app/ipc/contract.js';
import { selfTestSpeed, type MeasuredSpeed } from '../../../app/shared/device-speed.js';
import { formatDuration } from '../../format.js';

export { speedText, type MeasuredSpeed } from '../../../app/shared/device-speed.js';

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

const TYPE_TEXT: Record<DeviceInfo['type'], string> = { cpu: 'CPU', gpu: 'GPU', igpu: 'Integrated GPU', accel: 'Accelerator' };

/** The Type column: a software renderer (lavapipe/llvmpipe: a GPU API on the CPU) is not called a GPU. */
export function deviceTypeText(device: DeviceInfo): string {
  if (device.softwareRenderer) return 'Software renderer (runs on the CPU)';
  return TYPE_TEXT[device.type] ?? device.type;
}

/**
 * The device's speed from the self-tests of this run: a device's own passed test; for the CPU, its own
 * test, else the CPU twin's time in the latest GPU test (the same signal, model and threads).
 */
export function measuredSpeed(state: DevicesState, device: DeviceInfo): MeasuredSpeed | null {
  const own = state.selfTests.find((t) => same(t.device, device.name) && t.passed && t.speed);
  if (own) return selfTestSpeed(own);
  if (device.type !== 'cpu') return null;
  const twin = [...state.selfTests].reverse().find((t) => t.reference === 'cpu' && t.passed && t.speed);
  return twin?.speed ? { decodeMs: twin.speed.referenceMs, audioMs: twin.speed.audioMs } : null;
}

/** Why Auto passes over this device although it works (measured slower than the CPU), or null. */
export function autoSkipReason(state: DevicesState, name: string): string | null {
  return state.autoSkipped.find((s) => same(s.name, name))?.reason ?? null;
}

/** "Prepared in 2 min 05 s (first use in this session)" for a GPU whose first decode finished. */
export function preparedText(state: DevicesState, name: string): string | null {
  const prepared = state.prepared.find((p) => same(p.device, name));
  return prepared ? `GPU prepared in ${formatDuration(prepared.ms / 1000)} (its first use since the engine started)` : null;
}

/**
 * A GPU backend shipped with the app that could not start here ("<Name>: <why>" from the engine): what happened,
 * that the CPU runs everything, and what would make the GPU usable.
 */
export function backendNotLoadedText(line: string): string {
  const colon = line.indexOf(': ');
  const name = colon > 0 ? line.slice(0, colon) : 'A GPU backend';
  const why = colon > 0 ? line.slice(colon + 2) : line;
  const remedy = name === 'Vulkan'
    ? 'Install your graphics driver\'s Vulkan support (Linux: the libvulkan1 package and your driver\'s Vulkan ICD, e.g. mesa-vulkan-drivers; Windows: the vendor\'s driver) and restart the app to use the GPU.'
    : `Install the driver or runtime ${name} needs and restart the app to use it.`;
  return `${name} is not available on this machine, so the engine runs on the CPU: ${why}. ${remedy}`;
}

/** The banner while a GPU compiles its compute pipelines on first use. */
export function preparingText(device: string): string {
  return `Preparing the GPU (once): ${device} is compiling its compute pipelines for this model. The first decode on it ` +
    'takes longer — seconds on most GPUs, minutes on a software renderer — and later ones do not.';
}

/**
 * Whether Devices offers "Use" for a device that is not the selected one: not for a GPU that failed in this run
 * (the registry refuses it until a restart: it may crash the engine again), always for the CPU, the last resort
 * (a failed CPU stays choosable, as the registry keeps it).
 */
export function deviceChoosable(state: DevicesState, device: DeviceInfo): boolean {
  const failed = state.failed.some((f) => f.name.toLowerCase() === device.name.toLowerCase());
  return !failed || device.type === 'cpu';
}
