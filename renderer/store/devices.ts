// Devices slice: what the engine reports, plus selectors the Devices view and
// the Dictate view's "running on" line share.
import type { DeviceInfo, DeviceSelfTest, DevicesState } from '../../app/ipc/contract.js';
import type { DevicesSlice } from './types.js';

export const initialDevices: DevicesSlice = { state: null, switching: null, testing: null };

export function applyDevices(s: DevicesSlice, state: DevicesState): DevicesSlice {
  return { ...s, state };
}

/** The device the engine actually uses now (after fallbacks), by name. */
export function activeDeviceName(state: DevicesState | null): string | null {
  return state?.active?.device.name ?? null;
}

export function isFailed(state: DevicesState | null, name: string): boolean {
  return state?.failed.some((f) => f.name === name) ?? false;
}

export function isSelected(state: DevicesState | null, device: DeviceInfo): boolean {
  return state !== null && state.selected.toLowerCase() === device.name.toLowerCase();
}

/** The last self-test of a device in this run, or null. */
export function selfTestOf(state: DevicesState | null, name: string): DeviceSelfTest | null {
  return state?.selfTests.find((t) => t.device.toLowerCase() === name.toLowerCase()) ?? null;
}
