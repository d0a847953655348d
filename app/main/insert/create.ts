// Builds the TextInserter for this machine: the OS path from the environment,
// the external tools through an async runner, and the clipboard (Electron's
// when the adapter gives one, the OS tools otherwise).
import { setTimeout as sleep } from 'node:timers/promises';
import { commandClipboard, type Clipboard } from './clipboard.js';
import { processRunner } from './run-command.js';
import { detectPlatform } from './strategy.js';
import { TextInserter } from './text-inserter.js';
import { ownClipboardWatched, ownSelectionWatched } from './x11-selection.js';

export interface CreateInserterOptions {
  platform?: NodeJS.Platform;
  /** The environment whose display the tools talk to (tests: an Xvfb DISPLAY). */
  env?: NodeJS.ProcessEnv;
  clipboard?: Clipboard;
}

/** null where no insertion path exists (no display). */
export function createTextInserter(options: CreateInserterOptions = {}): TextInserter | null {
  const env = options.env ?? process.env;
  const platform = detectPlatform({ platform: options.platform ?? process.platform, env });
  if (!platform) return null;
  const run = processRunner({ env });
  const wait = (ms: number): Promise<void> => sleep(ms);
  return new TextInserter({
    platform, run, sleep: wait,
    clipboard: options.clipboard ?? commandClipboard(platform, run, { sleep: wait }),
    // X11: xclip shows when the target reads the paste (x11-selection.ts), so the clipboard is restored after that.
    ...(platform === 'x11'
      ? { ownClipboardWatched: (text: string) => ownClipboardWatched(text, env), ownPrimaryWatched: (text: string) => ownSelectionWatched('primary', text, env) }
      : {}),
  });
}
