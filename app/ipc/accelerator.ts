// Electron accelerator strings ("CommandOrControl+Shift+Space"), checked
// without Electron so settings validation, the renderer's form and the unit
// tests share one rule. globalShortcut.register only returns false on a bad
// string; checking here lets the UI say what is wrong before it is saved.
// Grammar: https://www.electronjs.org/docs/latest/api/accelerator

const MODIFIERS = new Set([
  'command', 'cmd', 'control', 'ctrl', 'commandorcontrol', 'cmdorctrl', 'alt', 'option', 'altgr', 'shift', 'super', 'meta',
]);

const NAMED_KEYS = new Set([
  'plus', 'space', 'tab', 'capslock', 'numlock', 'scrolllock', 'backspace', 'delete', 'insert', 'return', 'enter',
  'up', 'down', 'left', 'right', 'home', 'end', 'pageup', 'pagedown', 'escape', 'esc', 'volumeup', 'volumedown',
  'volumemute', 'medianexttrack', 'mediaprevioustrack', 'mediastop', 'mediaplaypause', 'printscreen',
  'num0', 'num1', 'num2', 'num3', 'num4', 'num5', 'num6', 'num7', 'num8', 'num9',
  'numdec', 'numadd', 'numsub', 'nummult', 'numdiv',
]);

/** Single printable characters Electron accepts as a key (besides letters and digits). */
const PUNCTUATION = ')!@#$%^&*(:;:+=<,_->.?/~`{][|\\}"\'';

export type AcceleratorCheck = { ok: true; modifiers: string[]; key: string } | { ok: false; reason: string };

function isKey(part: string): boolean {
  const lower = part.toLowerCase();
  if (/^[a-z0-9]$/i.test(part)) return true;
  if (/^f([1-9]|1[0-9]|2[0-4])$/.test(lower)) return true;
  if (NAMED_KEYS.has(lower)) return true;
  return part.length === 1 && PUNCTUATION.includes(part);
}

/**
 * Parses an accelerator: one or more modifiers, then exactly one key. A key without a modifier is refused
 * except F1–F24: a global shortcut on a bare letter would steal that letter from every application.
 */
export function checkAccelerator(text: string): AcceleratorCheck {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, reason: 'is empty' };
  if (text.length > 100) return { ok: false, reason: 'is too long' };
  const parts = text.split('+').map((p) => p.trim());
  if (parts.some((p) => p === '')) return { ok: false, reason: 'has an empty part (write the + key as "Plus")' };
  const key = parts[parts.length - 1]!;
  const modifiers = parts.slice(0, -1);
  for (const m of modifiers) {
    if (!MODIFIERS.has(m.toLowerCase())) return { ok: false, reason: `"${m}" is not a modifier (Ctrl, Alt, Shift, Super, CommandOrControl)` };
  }
  if (new Set(modifiers.map((m) => m.toLowerCase())).size !== modifiers.length) return { ok: false, reason: 'repeats a modifier' };
  if (MODIFIERS.has(key.toLowerCase())) return { ok: false, reason: 'ends in a modifier; add a key' };
  if (!isKey(key)) return { ok: false, reason: `"${key}" is not a key Electron knows` };
  if (modifiers.length === 0 && !/^f\d+$/i.test(key)) return { ok: false, reason: 'needs a modifier (e.g. Ctrl+Shift+…): a bare key would be taken from every app' };
  return { ok: true, modifiers, key };
}
