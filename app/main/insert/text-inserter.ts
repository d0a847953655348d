// Delivers text to the focused application: typed, pasted (clipboard + paste
// keystroke, the previous clipboard put back after the paste has landed) or
// copied. One queue: a delivery starts after the previous one, restore
// included, so segments never interleave and a second paste never saves our
// own text as "the previous clipboard".
import type { InsertMode } from '../../ipc/contract.js';
import type { Clipboard } from './clipboard.js';
import { pasteCommand, splitTypeable, typeCommand } from './commands.js';
import type { CommandRunner } from './run-command.js';
import type { InsertPlatform } from './strategy.js';

export type DeliveryMode = Exclude<InsertMode, 'off'>;

export interface DeliveryOptions {
  mode: DeliveryMode;
  restoreClipboard: boolean;
  restoreDelayMs: number;
}

export interface TextInserterOptions {
  platform: InsertPlatform;
  run: CommandRunner;
  clipboard: Clipboard;
  sleep: (ms: number) => Promise<void>;
}

export class TextInserter {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: TextInserterOptions) {}

  get platform(): InsertPlatform {
    return this.options.platform;
  }

  /** Queues one delivery; resolves when it (and its clipboard restore) is done, rejects with an InsertError. */
  deliver(text: string, options: DeliveryOptions): Promise<void> {
    const run = (): Promise<void> => this.deliverNow(text, options);
    const next = this.queue.then(run, run);
    this.queue = next.then(() => undefined, () => undefined);
    return next;
  }

  /** Resolves once everything queued so far is done. */
  idle(): Promise<void> {
    return this.queue;
  }

  private async deliverNow(text: string, options: DeliveryOptions): Promise<void> {
    if (!text) return;
    if (options.mode === 'copy') return this.options.clipboard.write(text);
    if (options.mode === 'type') return this.type(text, options);
    return this.paste(text, options);
  }

  private async type(text: string, options: DeliveryOptions): Promise<void> {
    const { run, platform } = this.options;
    if (platform !== 'x11') return void (await run(typeCommand(platform, text)));
    // xdotool drops non-ASCII characters in Chromium-based targets (see splitTypeable): those runs are pasted.
    for (const part of splitTypeable(text)) {
      if (part.typeable) await run(typeCommand(platform, part.text));
      else await this.paste(part.text, { ...options, restoreClipboard: true });
    }
  }

  private async paste(text: string, options: DeliveryOptions): Promise<void> {
    const { run, clipboard, platform, sleep } = this.options;
    const previous = options.restoreClipboard ? await clipboard.read() : null;
    await clipboard.write(text);
    await run(pasteCommand(platform));
    if (previous === null || previous === text) return;
    // The target reads the clipboard when it handles the keystroke, after xdotool/wtype have returned.
    await sleep(options.restoreDelayMs);
    // Something copied meanwhile (by the user) is theirs: only our own text is replaced.
    if ((await clipboard.read()) === text) await clipboard.write(previous);
  }
}
