// Electron adapter: what only the desktop platform can do for the services
// (open the log folder, a native file dialog, the UI language).
import { app, dialog, shell, BrowserWindow } from 'electron';
import { CodedError } from './engine/protocol.js';
import type { PlatformHooks } from './services.js';

export function electronPlatform(): PlatformHooks {
  return {
    async openPath(target) {
      const error = await shell.openPath(target);
      if (error) throw new CodedError('IO_ERROR', `Could not open ${target}: ${error}`);
    },
    async pickModelFile() {
      const parent = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
      const options: Electron.OpenDialogOptions = {
        title: 'Import a Parakeet model',
        properties: ['openFile'],
        filters: [{ name: 'GGUF models', extensions: ['gguf'] }],
      };
      const result = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
      return result.canceled ? null : result.filePaths[0] ?? null;
    },
    locale: () => app.getLocale(),
  };
}
