// Which in-page hold-to-talk machine the page runs (hold-to-talk.ts), pure so
// it is tested without a window.
import type { HotkeySettings } from '../app/ipc/contract.js';
import { parseChord, type Chord } from '../app/shared/hotkey/chord.js';
import { HotkeyMachine } from '../app/shared/hotkey/hotkey-machine.js';

/** A chord that types (Ctrl+Space is a field's); a lone modifier or a function key types nothing. */
export function typesInFields(chord: Chord): boolean {
  return chord.key !== null && !/^F\d+$/.test(chord.key);
}

/** The machine for these settings, or null where the page must not handle the key. */
export function holdMachineFor(mode: 'electron' | 'web' | null, hotkey: HotkeySettings | undefined): { machine: HotkeyMachine; chord: Chord } | null {
  if (mode !== 'web' || !hotkey || hotkey.mode === 'toggle') return null;
  const parsed = parseChord(hotkey.hold);
  if (!parsed.ok) return null;
  return { machine: new HotkeyMachine({ mode: hotkey.mode, chord: parsed.chord, tapMs: hotkey.tapMs }), chord: parsed.chord };
}

