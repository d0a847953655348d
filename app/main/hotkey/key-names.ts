// uiohook-napi names its keys ("A", "Ctrl", "CtrlRight", "ArrowUp"); the
// hotkey machine speaks KeyboardEvent.code ("KeyA", "ControlLeft",
// "ControlRight", "ArrowUp"), as the page does. Pure, so the mapping is tested
// without the native hook.

const SIDED: Readonly<Record<string, string>> = {
  Ctrl: 'ControlLeft', CtrlRight: 'ControlRight',
  Shift: 'ShiftLeft', ShiftRight: 'ShiftRight',
  Alt: 'AltLeft', AltRight: 'AltRight',
  Meta: 'MetaLeft', MetaRight: 'MetaRight',
};

/** The KeyboardEvent.code of a uiohook key name; names that are already codes pass through. */
export function codeOfUiohookName(name: string): string {
  if (Object.hasOwn(SIDED, name)) return SIDED[name]!;
  if (/^[A-Z]$/.test(name)) return `Key${name}`;
  if (/^[0-9]$/.test(name)) return `Digit${name}`;
  return name;
}

/** libuiohook's VC_PAUSE, which uiohook-napi's key table leaves out. */
export const UIOHOOK_PAUSE = 0x0e45;

/** keycode → KeyboardEvent.code, from uiohook-napi's own table (name → keycode). */
export function keycodeTable(uiohookKeys: Readonly<Record<string, number>>): Map<number, string> {
  const table = new Map<number, string>();
  for (const [name, keycode] of Object.entries(uiohookKeys)) {
    if (typeof keycode === 'number' && !table.has(keycode)) table.set(keycode, codeOfUiohookName(name));
  }
  if (!table.has(UIOHOOK_PAUSE)) table.set(UIOHOOK_PAUSE, 'Pause');
  return table;
}
