// insert:check on every OS from its inputs (no keystroke sent): what is needed,
// what is missing and the command that installs it; and how the focused
// window's WM_CLASS picks the paste key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkInsertRequirements } from '../../../app/main/insert/requirements.js';
import { parseWmClass, targetKind } from '../../../app/main/insert/terminal.js';

const only = (...tools: string[]) => (t: string) => tools.includes(t);

test('X11 with xdotool and xclip is ready to paste and type; without xclip only typing, with the apt command for it', () => {
  const full = checkInsertRequirements({ platform: 'linux', env: { DISPLAY: ':0' }, onPath: only('xdotool', 'xclip', 'xprop') });
  assert.deepEqual([full.platform, full.ready, full.modes], ['x11', true, ['paste', 'type', 'copy']]);
  assert.ok(full.items.every((i) => i.ok));
  const noClip = checkInsertRequirements({ platform: 'linux', env: { DISPLAY: ':0' }, onPath: only('xdotool') });
  assert.deepEqual(noClip.modes, ['type']);
  const xclip = noClip.items.find((i) => i.name === 'xclip')!;
  assert.equal(xclip.ok, false);
  assert.match(xclip.fix!, /^sudo apt-get install xclip/);
  assert.match(noClip.items.find((i) => i.name === 'xprop')!.fix!, /x11-utils/);
  // Electron brings its own clipboard: xclip becomes optional (it is what confirms that a paste was read).
  const electron = checkInsertRequirements({ platform: 'linux', env: { DISPLAY: ':0' }, onPath: only('xdotool'), ownClipboard: true });
  assert.deepEqual(electron.modes, ['paste', 'type', 'copy']);
  assert.equal(electron.items.find((i) => i.name === 'xclip')!.optional, true);
});

test('Wayland: wtype or ydotool make it ready; with neither, only copy and "press Ctrl+V"', () => {
  const env = { WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' };
  const none = checkInsertRequirements({ platform: 'linux', env, onPath: only('wl-copy') });
  assert.deepEqual([none.platform, none.ready, none.modes], ['wayland', false, ['copy']]);
  assert.match(none.summary, /press Ctrl\+V/);
  assert.match(none.items.find((i) => i.name === 'wtype')!.fix!, /apt-get install wtype/);
  assert.match(none.items.find((i) => i.name === 'ydotool')!.fix!, /apt-get install ydotool/);
  const ydotool = checkInsertRequirements({ platform: 'linux', env, onPath: only('wl-copy', 'ydotool') });
  assert.deepEqual([ydotool.ready, ydotool.modes], [true, ['type', 'paste', 'copy']]);
  assert.match(ydotool.summary, /ydotool/);
});

test('macOS needs the Accessibility permission (asked through the adapter); Windows PowerShell', () => {
  const denied = checkInsertRequirements({ platform: 'darwin', env: {}, accessibilityTrusted: () => false });
  assert.equal(denied.ready, false);
  assert.match(denied.items[0]!.fix!, /Privacy & Security → Accessibility/);
  assert.equal(checkInsertRequirements({ platform: 'darwin', env: {}, accessibilityTrusted: () => true }).ready, true);
  const win = checkInsertRequirements({ platform: 'win32', env: {}, onPath: only('powershell') });
  assert.deepEqual([win.platform, win.ready], ['windows', true]);
  assert.match(win.items[0]!.purpose, /administrator/);
  const headless = checkInsertRequirements({ platform: 'linux', env: {} });
  assert.deepEqual([headless.platform, headless.ready], [null, false]);
});

test('WM_CLASS: Ctrl+Shift+V terminals, xterm-like ones (typed into), everything else', () => {
  assert.deepEqual(parseWmClass('WM_CLASS(STRING) = "gnome-terminal-server", "Gnome-terminal-server"\n'), ['gnome-terminal-server', 'Gnome-terminal-server']);
  assert.deepEqual(parseWmClass('WM_CLASS:  not found.\n'), []);
  assert.equal(targetKind(['gnome-terminal-server', 'Gnome-terminal-server']), 'terminal');
  assert.equal(targetKind(['Alacritty', 'Alacritty']), 'terminal');
  assert.equal(targetKind(['xterm', 'XTerm']), 'terminal-type');
  assert.equal(targetKind(['chromium', 'Chromium']), 'app');
  assert.equal(targetKind([]), 'app');
});
