// The clipboard the paste path uses: Electron's clipboard module in the
// desktop app (injected by the adapter), the OS tools elsewhere.
import { clipboardReadCommand, clipboardWriteCommand } from './commands.js';
import type { CommandRunner } from './run-command.js';
import type { InsertPlatform } from './strategy.js';

export interface Clipboard {
  /** The clipboard's text, or null when it holds none (empty, an image) or cannot be read. */
  read(): Promise<string | null>;
  write(text: string): Promise<void>;
}

export interface ClipboardTiming {
  sleep: (ms: number) => Promise<void>;
}

export function commandClipboard(platform: InsertPlatform, run: CommandRunner, timing: ClipboardTiming): Clipboard {
  const read = async (): Promise<string | null> => {
    try {
      return await run(clipboardReadCommand(platform));
    } catch {
      return null; // xclip exits 1 when the clipboard has no text: nothing to restore, not a failure
    }
  };
  return {
    read,
    async write(text) {
      await run(clipboardWriteCommand(platform, text));
      // xclip and wl-copy return before their background child owns the selection; a paste sent now would
      // paste the old content. Wait (briefly) until the clipboard reads back what was written.
      for (let i = 0; i < 20; i += 1) {
        if ((await read()) === text) return;
        await timing.sleep(25);
      }
    },
  };
}
