// The application menu as data: Electron's default menu (File/Edit/View/
// Window/Help with electronjs.org links and a Developer Tools entry in the
// packaged app) is replaced by one with the app's own commands. Pure, so the
// menu is tested without Electron; menu.ts turns it into a Menu and wires the
// commands. Standard entries are Electron roles (the OS's own wording and
// shortcuts: ⌘C/⌘V in text fields work on macOS only through the Edit menu).

export type MenuCommand = 'toggle-dictation' | 'open-window' | 'open-log-folder' | 'copy-diagnostics';

export type MenuRole =
  | 'appMenu' | 'editMenu' | 'windowMenu' | 'quit' | 'about' | 'close'
  | 'reload' | 'toggleDevTools' | 'resetZoom' | 'zoomIn' | 'zoomOut' | 'togglefullscreen';

export type MenuEntry =
  | { kind: 'role'; role: MenuRole }
  | { kind: 'command'; label: string; command: MenuCommand }
  | { kind: 'separator' }
  | { kind: 'submenu'; label: string; items: MenuEntry[] }
  /** A menu Electron fills in itself (the macOS app menu, Edit, Window). */
  | { kind: 'role-menu'; role: MenuRole; label?: string };

export interface AppMenuInput {
  platform: NodeJS.Platform;
  /** app.isPackaged: the developer entries (reload, developer tools) only outside a packaged app. */
  packaged: boolean;
}

const role = (r: MenuRole): MenuEntry => ({ kind: 'role', role: r });
const command = (label: string, c: MenuCommand): MenuEntry => ({ kind: 'command', label, command: c });
const separator: MenuEntry = { kind: 'separator' };

export function appMenu({ platform, packaged }: AppMenuInput): MenuEntry[] {
  const mac = platform === 'darwin';
  const dictation: MenuEntry = {
    kind: 'submenu',
    label: 'Dictation',
    // No accelerator: the global hotkey already toggles, and a menu shortcut on the same chord would toggle twice.
    items: [command('Start or Stop Dictation', 'toggle-dictation'), command('Show Parakeet', 'open-window')],
  };
  const view: MenuEntry = {
    kind: 'submenu',
    label: 'View',
    items: [
      ...(packaged ? [] : [role('reload'), role('toggleDevTools'), separator]),
      role('resetZoom'), role('zoomIn'), role('zoomOut'), separator, role('togglefullscreen'),
    ],
  };
  const help: MenuEntry = {
    kind: 'submenu',
    label: 'Help',
    items: [
      command('Copy Diagnostics for a Bug Report', 'copy-diagnostics'),
      command('Open Log Folder', 'open-log-folder'),
      ...(mac ? [] : [separator, role('about')]),
    ],
  };
  const file: MenuEntry = { kind: 'submenu', label: 'File', items: [mac ? role('close') : role('quit')] };
  return [
    ...(mac ? [{ kind: 'role-menu', role: 'appMenu' } as const] : []),
    file,
    { kind: 'role-menu', role: 'editMenu' },
    view,
    dictation,
    ...(mac ? [{ kind: 'role-menu', role: 'windowMenu' } as const] : []),
    help,
  ];
}
