// Settings slice: the main process owns Settings; the renderer shows them and
// sends patches, then takes the reply as the truth.
import type { Settings } from '../../app/ipc/contract.js';
import type { SettingsSlice } from './types.js';

export const initialSettings: SettingsSlice = { values: null, saving: false };

export function applySettings(s: SettingsSlice, values: Settings): SettingsSlice {
  return { ...s, values, saving: false };
}
