// The application menu (app/main/app-menu.ts) that replaces Electron's default
// one: the app's own commands, a Help entry for the diagnostics, the standard
// Edit menu (clipboard shortcuts on macOS), developer entries only unpackaged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appMenu, type MenuEntry } from '../../../app/main/app-menu.js';

function flatten(entries: MenuEntry[]): MenuEntry[] {
  return entries.flatMap((e) => (e.kind === 'submenu' ? [e, ...flatten(e.items)] : [e]));
}
const commands = (entries: MenuEntry[]): string[] => flatten(entries).flatMap((e) => (e.kind === 'command' ? [e.command] : []));
const roles = (entries: MenuEntry[]): string[] => flatten(entries).flatMap((e) => (e.kind === 'role' || e.kind === 'role-menu' ? [e.role] : []));
const labels = (entries: MenuEntry[]): string[] => entries.map((e) => (e.kind === 'submenu' ? e.label : e.kind === 'role-menu' ? e.role : e.kind));

test('every platform: the app\'s commands, Help → diagnostics and the log folder, the Edit menu', () => {
  for (const platform of ['darwin', 'win32', 'linux'] as const) {
    const menu = appMenu({ platform, packaged: true });
    assert.deepEqual(commands(menu).sort(), ['copy-diagnostics', 'open-log-folder', 'open-window', 'toggle-dictation'], platform);
    assert.ok(roles(menu).includes('editMenu'), `${platform}: Edit menu (copy/paste shortcuts)`);
    const help = menu.at(-1)!;
    assert.equal(help.kind === 'submenu' && help.label, 'Help');
    assert.deepEqual(help.kind === 'submenu' ? commands(help.items) : [], ['copy-diagnostics', 'open-log-folder']);
  }
});

test('macOS starts with the app menu and has the Window menu; elsewhere File → Quit and Help → About', () => {
  assert.deepEqual(labels(appMenu({ platform: 'darwin', packaged: true })), ['appMenu', 'File', 'editMenu', 'View', 'Dictation', 'windowMenu', 'Help']);
  const linux = appMenu({ platform: 'linux', packaged: true });
  assert.deepEqual(labels(linux), ['File', 'editMenu', 'View', 'Dictation', 'Help']);
  assert.ok(roles(linux).includes('quit'));
  assert.ok(roles(linux).includes('about'));
});

test('reload and developer tools only outside a packaged app', () => {
  assert.ok(!roles(appMenu({ platform: 'win32', packaged: true })).includes('toggleDevTools'));
  assert.ok(!roles(appMenu({ platform: 'win32', packaged: true })).includes('reload'));
  assert.ok(roles(appMenu({ platform: 'win32', packaged: false })).includes('toggleDevTools'));
});
