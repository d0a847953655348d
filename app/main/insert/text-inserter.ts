// Delivers text to the focused application: typed, pasted (clipboard + paste
// keystroke, the previous clipboard put back once the target has read it) or
// copied. One queue: a delivery starts after the previous one, restore
// included, so segments never interleave and a second paste never saves our
// own text as "the previous clipboard".
//
// Each delivery says what is known about it (DeliveryOutcome), never more:
// keystrokes sent are not keystrokes received. On X11 a paste is confirmed
// when the target read the clipboard (x11-selection.ts); if nothing reads it,
// the text is left on the clipboard and the outcome says "copied". On Wayland
// without a working keystroke tool the text is copied and the user is told to
// press Ctrl+V.
import type { InsertMode } from '../../ipc/contract.js';
import type { Clipboard } from './clipboard.js';
import {
  focusedWindowCommand, pasteCommand, primaryPasteCommand, primaryReadCommand, primaryWriteCommand, splitTypeable, typeCommand, windowClassCommand,
  ydotoolTypeCommand,
} from './commands.js';
import { InsertError } from './errors.js';
import type { CommandRunner } from './run-command.js';
import type { InsertPlatform } from './strategy.js';
import { parseWmClass, targetKind, type TargetKind } from './terminal.js';
import type { SelectionWitness } from './x11-selection.js';

export type DeliveryMode = Exclude<InsertMode, 'off'>;

export interface DeliveryOptions {
  mode: DeliveryMode;
  restoreClipboard: boolean;
  restoreDelayMs: number;
}

/** What happened, as far as this machine can know. */
export interface DeliveryOutcome {
  /** typed: keystrokes sent; pasted: paste keystroke sent; copied: only on the clipboard (the user pastes). */
  method: 'typed' | 'pasted' | 'copied';
  /** pasted: the target read the clipboard after the keystroke (X11); otherwise false (not observable). */
  confirmed: boolean;
  /** The focused window was recognised as a terminal (X11), so its own paste key or typing was used. */
  terminal: boolean;
  /** In words, for the test result and notices. */
  detail: string;
}

export interface TextInserterOptions {
  platform: InsertPlatform;
  run: CommandRunner;
  clipboard: Clipboard;
  sleep: (ms: number) => Promise<void>;
  /** X11: takes the clipboard in a way that shows when it is read (xclip -verbose); absent: plain write + delay. */
  ownClipboardWatched?: (text: string) => Promise<SelectionWitness>;
  /** X11: the same for the PRIMARY selection (an xterm's Shift+Insert); absent: such text is typed. */
  ownPrimaryWatched?: (text: string) => Promise<SelectionWitness>;
}

/** The target read the clipboard; other formats it asks for come within milliseconds. */
const READ_SETTLE_MS = 40;
/** Longest wait for the target's read before concluding it did not paste (slow Java/Electron apps included). */
const READ_TIMEOUT_MS = 2000;

const WAYLAND_COPIED = 'Copied — press Ctrl+V to paste it. This Wayland desktop did not accept typed keys from wtype or ydotool.';

export class TextInserter {
  private queue: Promise<unknown> = Promise.resolve();
  /** Wayland: wtype failed once (the compositor lacks the virtual-keyboard protocol); not tried again. */
  private wtypeUnusable = false;

  constructor(private readonly options: TextInserterOptions) {}

  get platform(): InsertPlatform {
    return this.options.platform;
  }

  /** Queues one delivery; resolves with what is known when it (and its clipboard restore) is done; rejects with an InsertError. */
  deliver(text: string, options: DeliveryOptions): Promise<DeliveryOutcome> {
    const run = (): Promise<DeliveryOutcome> => this.deliverNow(text, options);
    const next = this.queue.then(run, run);
    this.queue = next.then(() => undefined, () => undefined);
    return next;
  }

  /** Resolves once everything queued so far is done. */
  idle(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  private async deliverNow(text: string, options: DeliveryOptions): Promise<DeliveryOutcome> {
    if (!text) return { method: options.mode === 'copy' ? 'copied' : options.mode === 'type' ? 'typed' : 'pasted', confirmed: false, terminal: false, detail: 'Nothing to insert.' };
    if (options.mode === 'copy') {
      await this.options.clipboard.write(text);
      return { method: 'copied', confirmed: false, terminal: false, detail: 'On the clipboard; paste it where you want it.' };
    }
    if (this.options.platform === 'wayland') return this.wayland(text, options);
    const kind = this.options.platform === 'x11' ? await this.focusedKind() : 'app';
    if (options.mode === 'type' || kind === 'terminal-type') return this.type(text, options, kind);
    return this.paste(text, options, kind === 'terminal');
  }

  /** X11: the focused window's kind from its WM_CLASS; 'app' when it cannot be told (xprop missing, no focus). */
  private async focusedKind(): Promise<TargetKind> {
    try {
      const id = (await this.options.run(focusedWindowCommand())).trim();
      if (!/^\d+$/.test(id)) return 'app';
      return targetKind(parseWmClass(await this.options.run(windowClassCommand(id))));
    } catch {
      return 'app';
    }
  }

  private async type(text: string, options: DeliveryOptions, kind: TargetKind): Promise<DeliveryOutcome> {
    const { run, platform } = this.options;
    const terminal = kind !== 'app';
    const typed: DeliveryOutcome = { method: 'typed', confirmed: false, terminal, detail: 'Typed as keystrokes into the focused window.' };
    if (platform !== 'x11') {
      await run(typeCommand(platform, text));
      return typed;
    }
    // xdotool drops non-ASCII characters (see splitTypeable; in an xterm too: '”' and emoji were lost): those
    // runs are pasted — from the clipboard, or into an xterm-like terminal, which has no clipboard key, from
    // the PRIMARY selection with its Shift+Insert.
    for (const part of splitTypeable(text)) {
      if (part.typeable) await run(typeCommand(platform, part.text));
      else if (kind === 'terminal-type') await this.pastePrimary(part.text);
      else await this.paste(part.text, { ...options, restoreClipboard: true }, kind === 'terminal');
    }
    return typed;
  }

  /**
   * X11, an xterm-like terminal: `text` as the PRIMARY selection, Shift+Insert, and once the terminal has
   * read it the user's PRIMARY text put back. Without xclip, or when the terminal does not read it, typed.
   */
  private async pastePrimary(text: string): Promise<void> {
    const { run, sleep, platform } = this.options;
    const own = this.options.ownPrimaryWatched;
    if (!own) return void (await run(typeCommand(platform, text)));
    const previous = await run(primaryReadCommand()).catch(() => null);
    let witness: SelectionWitness;
    try {
      witness = await own(text);
    } catch (error) {
      if (!(error instanceof InsertError && error.reason === 'TOOL_MISSING')) throw error;
      return void (await run(typeCommand(platform, text)));
    }
    try {
      const before = witness.served;
      await run(primaryPasteCommand());
      if (!(await witness.servedAfter(before, READ_TIMEOUT_MS))) {
        // Not read (another Shift+Insert binding): typed after all, as before.
        await run(typeCommand(platform, text));
        return;
      }
      await sleep(READ_SETTLE_MS);
    } finally {
      witness.close();
    }
    if (previous) await run(primaryWriteCommand(previous));
  }

  private async paste(text: string, options: DeliveryOptions, terminal: boolean): Promise<DeliveryOutcome> {
    const { run, clipboard, platform, sleep } = this.options;
    const previous = options.restoreClipboard ? await clipboard.read() : null;
    const witness = await this.takeClipboard(text);
    const before = witness?.served ?? 0;
    await run(pasteCommand(platform, terminal));
    const where = terminal ? ' (a terminal: Ctrl+Shift+V)' : '';
    if (witness) {
      const read = await witness.servedAfter(before, Math.max(options.restoreDelayMs, READ_TIMEOUT_MS));
      if (!read) {
        // Nobody took the text: restoring now would lose it. It stays on the clipboard for the user.
        return {
          method: 'copied', confirmed: false, terminal,
          detail: `The focused window did not read the clipboard after the paste keystroke${where}, so the text was left on the clipboard: press Ctrl+V.`,
        };
      }
      await sleep(READ_SETTLE_MS);
    } else {
      // The target reads the clipboard when it handles the keystroke, after the tool returned; nothing here sees when.
      await sleep(options.restoreDelayMs);
    }
    if (previous !== null && previous !== text && (await clipboard.read()) === text) {
      // Something copied meanwhile (by the user) is theirs: only our own text is replaced.
      await clipboard.write(previous);
    }
    return witness
      ? { method: 'pasted', confirmed: true, terminal, detail: `Pasted${where}: the focused window read the clipboard.` }
      : { method: 'pasted', confirmed: false, terminal, detail: 'Paste keystroke sent to the focused window (whether it took the text cannot be seen here).' };
  }

  /** X11: a watched selection when xclip is there; otherwise the plain clipboard (Electron's, or the OS tools). */
  private async takeClipboard(text: string): Promise<SelectionWitness | null> {
    if (this.options.ownClipboardWatched) {
      try {
        return await this.options.ownClipboardWatched(text);
      } catch (error) {
        if (!(error instanceof InsertError && error.reason === 'TOOL_MISSING')) throw error;
      }
    }
    await this.options.clipboard.write(text);
    return null;
  }

  /** Wayland: wtype, else ydotool, else the clipboard with "press Ctrl+V". */
  private async wayland(text: string, options: DeliveryOptions): Promise<DeliveryOutcome> {
    const { run, clipboard } = this.options;
    if (!this.wtypeUnusable) {
      try {
        if (options.mode === 'type') {
          await run(typeCommand('wayland', text));
          return { method: 'typed', confirmed: false, terminal: false, detail: 'Typed with wtype into the focused window.' };
        }
        return await this.paste(text, options, false);
      } catch (error) {
        if (!(error instanceof InsertError) || error.reason === 'PERMISSION') throw error;
        // wtype missing, or the compositor refused it (GNOME: no virtual-keyboard protocol): try the next way.
        if (error.reason === 'TOOL_FAILED' && /wtype/.test(error.message)) this.wtypeUnusable = true;
        if (error.reason === 'TOOL_MISSING' && /wl-copy|wl-paste/.test(error.message)) throw error;
        if (error.reason === 'TOOL_MISSING') this.wtypeUnusable = true;
      }
    }
    try {
      await run(ydotoolTypeCommand(text));
      return { method: 'typed', confirmed: false, terminal: false, detail: 'Typed with ydotool into the focused window.' };
    } catch (error) {
      if (!(error instanceof InsertError)) throw error;
    }
    await clipboard.write(text);
    return { method: 'copied', confirmed: false, terminal: false, detail: WAYLAND_COPIED };
  }
}
