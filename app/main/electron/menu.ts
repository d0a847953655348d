// Electron adapter of the application menu (app-menu.ts): the entries become
// MenuItemConstructorOptions, the commands go to the services (the dictation
// toggle on the bus, the log folder and the diagnostics through the router).
import { Menu, clipboard, type MenuItemConstructorOptions } from 'electron';
import { appMenu, type MenuCommand, type MenuEntry } from '../app-menu.js';
import type { Services } from '../services.js';

function toTemplate(entries: MenuEntry[], run: (command: MenuCommand) => void): MenuItemConstructorOptions[] {
  return entries.map((entry): MenuItemConstructorOptions => {
    switch (entry.kind) {
      case 'separator': return { type: 'separator' };
      case 'role': return { role: entry.role };
      case 'role-menu': return { role: entry.role };
      case 'command': return { label: entry.label, click: () => run(entry.command) };
      case 'submenu': return { label: entry.label, submenu: toTemplate(entry.items, run) };
    }
  });
}

export function installAppMenu(services: Services, options: { packaged: boolean; openWindow: () => void }): void {
  const log = services.log.child('menu');
  const viaRouter = async (channel: 'app:openLogFolder' | 'app:diagnostics'): Promise<unknown> => {
    const result = await services.router.handle(channel, undefined, { clientId: 'menu' });
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  };
  const run = (command: MenuCommand): void => {
    if (command === 'toggle-dictation') services.bus.emit('dictation:toggle', { source: 'menu' });
    else if (command === 'open-window') options.openWindow();
    else if (command === 'open-log-folder') viaRouter('app:openLogFolder').catch((error: unknown) => log.warn('could not open the log folder', error));
    else {
      viaRouter('app:diagnostics').then(
        (report) => {
          clipboard.writeText((report as { text: string }).text);
          services.bus.emit('notice', { level: 'info', code: 'DIAGNOSTICS_COPIED', message: 'The diagnostics report is on the clipboard (no transcript text or audio in it).' });
        },
        (error: unknown) => log.warn('could not collect the diagnostics', error),
      );
    }
  };
  Menu.setApplicationMenu(Menu.buildFromTemplate(toTemplate(appMenu({ platform: process.platform, packaged: options.packaged }), run)));
}
