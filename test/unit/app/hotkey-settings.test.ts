// The hotkey and desktop settings in the IPC contract: each field checked
// with a reason that names it, invalid stored values reset one by one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SETTINGS } from '../../../app/ipc/settings.js';
import { validatePayload } from '../../../app/ipc/validate.js';
import { settingsFromFile } from '../../../app/main/settings.js';

const refused = (patch: unknown): string => {
  const r = validatePayload('settings:set', patch);
  assert.equal(r.ok, false, JSON.stringify(patch));
  return r.ok ? '' : `${r.error.code}: ${r.error.message}`;
};

test('defaults: toggle mode, Right Ctrl to hold, everything outside the window off', () => {
  assert.deepEqual(DEFAULT_SETTINGS.hotkey, { toggle: 'CommandOrControl+Shift+Space', mode: 'toggle', hold: 'RightCtrl', tapMs: 300 });
  assert.deepEqual(DEFAULT_SETTINGS.desktop, { overlay: false, openAtLogin: false, sounds: false });
});

test('valid hotkey and desktop patches pass', () => {
  for (const patch of [
    { hotkey: { mode: 'push-to-talk', hold: 'RightCtrl' } },
    { hotkey: { mode: 'hybrid', hold: 'Ctrl+Shift+Space', tapMs: 250 } },
    { hotkey: { hold: 'F8' } },
    { desktop: { overlay: true, sounds: true } },
    { desktop: { openAtLogin: true } },
  ]) {
    const r = validatePayload('settings:set', patch);
    assert.ok(r.ok, JSON.stringify(r));
  }
});

test('bad values are refused with the field and the reason', () => {
  assert.match(refused({ hotkey: { mode: 'hold' } }), /INVALID_PAYLOAD: settings:set: payload.hotkey.mode: must be one of toggle, push-to-talk, hybrid/);
  assert.match(refused({ hotkey: { hold: 'A' } }), /payload.hotkey.hold: "A" needs a modifier/);
  assert.match(refused({ hotkey: { hold: 'Ctrl+Esc' } }), /payload.hotkey.hold: "Ctrl\+Esc" uses Esc, which cancels dictation/);
  assert.match(refused({ hotkey: { hold: 7 } }), /payload.hotkey.hold: expected a string/);
  assert.match(refused({ hotkey: { tapMs: 20 } }), /payload.hotkey.tapMs: must be between 100 and 1000/);
  assert.match(refused({ desktop: { overlay: 'yes' } }), /payload.desktop.overlay: expected true or false/);
  assert.match(refused({ desktop: { tray: true } }), /payload.desktop.tray: is not a known field/);
  assert.match(refused({ desktop: JSON.parse('{"__proto__": {"overlay": true}}') }), /is not a known field/);
});

test('a stored file with a bad hold key keeps every other field and names the reset one', () => {
  const loaded = settingsFromFile({
    version: 1,
    settings: { hotkey: { toggle: 'Alt+F9', mode: 'push-to-talk', hold: 'Banana', tapMs: 400 }, desktop: { overlay: true, sounds: 'loud' } },
  });
  assert.ok(loaded);
  assert.deepEqual(loaded.settings.hotkey, { toggle: 'Alt+F9', mode: 'push-to-talk', hold: 'RightCtrl', tapMs: 400 });
  assert.deepEqual(loaded.settings.desktop, { overlay: true, openAtLogin: false, sounds: false });
  assert.deepEqual(loaded.rejected.sort(), ['desktop.sounds', 'hotkey.hold']);
});

test('a file from before these settings gets their defaults, nothing reported', () => {
  const loaded = settingsFromFile({ version: 1, settings: { hotkey: { toggle: 'Alt+F9' } } });
  assert.ok(loaded);
  assert.deepEqual(loaded.settings.hotkey, { ...DEFAULT_SETTINGS.hotkey, toggle: 'Alt+F9' });
  assert.deepEqual(loaded.rejected, []);
});
