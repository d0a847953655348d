// Electron adapter: what only the desktop platform can do for the services
// (open the log folder, native file dialogs, the UI language, the clipboard
// and whether our window has focus for inserting into other apps).
import { app, clipboard, dialog, shell, systemPreferences, BrowserWindow } from 'electron';
import { CodedError } from '../../../types/errors.js';
import type { PlatformHooks } from '../service-types.js';

/** One file from a native open dialog (modal to the app's window when there is one), or null when cancelled. */
async function pickOneFile(title: string, filter: Electron.FileFilter): Promise<string | null> {
  const parent = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
  const options: Electron.OpenDialogOptions = { title, properties: ['openFile'], filters: [filter] };
  const result = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
  return result.canceled ? null : result.filePaths[0] ?? null;
}

export function electronPlatform(): PlatformHooks {
  return {
    async openPath(target) {
      const error = await shell.openPath(target);
      if (error) throw new CodedError('IO_ERROR', `Could not open ${target}: ${error}`);
    },
    // A speaker model is a GGUF only (a .nemo diarizer is not converted): the dialog offers what the setting takes.
    pickModelFile: (purpose) =>
      purpose === 'diarizer'
        ? pickOneFile('Choose a speaker model', { name: 'Sortformer speaker models (GGUF)', extensions: ['gguf'] })
        : pickOneFile('Import a Parakeet model', { name: 'Parakeet models (GGUF, NeMo)', extensions: ['gguf', 'nemo'] }),
    // WAV is read by the engine itself; the other formats go through ffmpeg or sox when the machine has one.
    pickAudioFile: () =>
      pickOneFile('Transcribe an audio file', {
        name: 'Audio and video',
        extensions: ['wav', 'wave', 'flac', 'mp3', 'm4a', 'aac', 'ogg', 'opus', 'webm', 'mp4', 'mov', 'mkv', 'aiff', 'aif', 'wma'],
      }),
    locale: () => app.getLocale(),
    // Electron's clipboard needs no xclip/wl-clipboard and is synchronous in-process, so it is set before the paste key.
    clipboard: {
      read: async () => clipboard.readText() || null,
      write: async (text) => clipboard.writeText(text),
    },
    // Our own window already shows the text; typing it there too would duplicate it.
    ownWindowFocused: () => BrowserWindow.getFocusedWindow() !== null,
    // Asked without the prompt (false): the first run shows the setting to open instead.
    ...(process.platform === 'darwin' ? { accessibilityTrusted: () => systemPreferences.isTrustedAccessibilityClient(false) } : {}),
  };
}
