// uiohook-napi's key names → KeyboardEvent codes (what the hotkey machine and
// the page speak), and the keycode table built from the package's own list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UIOHOOK_PAUSE, codeOfUiohookName, keycodeTable } from '../../../app/main/hotkey/key-names.js';
import { parseChord } from '../../../app/shared/hotkey/chord.js';

test('names map to KeyboardEvent codes, sides included', () => {
  const cases: [string, string][] = [
    ['A', 'KeyA'], ['Z', 'KeyZ'], ['0', 'Digit0'], ['7', 'Digit7'], ['F8', 'F8'], ['F24', 'F24'],
    ['Ctrl', 'ControlLeft'], ['CtrlRight', 'ControlRight'], ['Alt', 'AltLeft'], ['AltRight', 'AltRight'],
    ['Shift', 'ShiftLeft'], ['ShiftRight', 'ShiftRight'], ['Meta', 'MetaLeft'], ['MetaRight', 'MetaRight'],
    ['Space', 'Space'], ['Escape', 'Escape'], ['ArrowUp', 'ArrowUp'], ['Numpad5', 'Numpad5'], ['Semicolon', 'Semicolon'],
  ];
  for (const [name, code] of cases) assert.equal(codeOfUiohookName(name), code, name);
});

test('the keycode table: first name wins for a shared code, Pause added', () => {
  // A few of uiohook's (libuiohook VC_*) codes, as the package lists them.
  const table = keycodeTable({ Escape: 1, A: 30, Ctrl: 29, CtrlRight: 3613, Space: 57, F8: 66, NumpadEnter: 3612, Enter: 3612 });
  assert.equal(table.get(29), 'ControlLeft');
  assert.equal(table.get(3613), 'ControlRight');
  assert.equal(table.get(66), 'F8');
  assert.equal(table.get(3612), 'NumpadEnter');
  assert.equal(table.get(UIOHOOK_PAUSE), 'Pause');
});

test('every key the hold-key grammar accepts has a code the hook can report', () => {
  const names = ['A', 'M', '5', 'F1', 'F12', 'F13', 'F24', 'Space', 'Enter', 'Tab', 'Backspace', 'Delete', 'Insert', 'Home', 'End', 'PageUp', 'PageDown',
    'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'CapsLock', 'ScrollLock', 'NumLock', 'PrintScreen', 'Minus', 'Equal', 'Comma', 'Period',
    'Slash', 'Semicolon', 'Quote', 'Backquote', 'BracketLeft', 'BracketRight', 'Backslash', 'Numpad0', 'Numpad9'];
  const reported = new Set([...names.map(codeOfUiohookName), 'Pause']);
  for (const text of ['Ctrl+A', 'Ctrl+5', 'F13', 'Ctrl+Space', 'Alt+Enter', 'Ctrl+Up', 'Ctrl+Num0', 'Ctrl+Minus', 'Pause', 'ScrollLock', 'Ctrl+Backslash']) {
    const parsed = parseChord(text);
    assert.ok(parsed.ok, text);
    assert.ok(reported.has(parsed.chord.key!), `${text} → ${parsed.chord.key}`);
  }
});
