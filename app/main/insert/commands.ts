// The exact command lines each OS path runs. Text goes in argv (xdotool,
// wtype, osascript: no shell, so no quoting beyond the tool's own syntax) or on
// stdin (clipboard writers, PowerShell), never through a shell.
import type { InsertPlatform } from './strategy.js';

export interface Command {
  cmd: string;
  args: string[];
  /** Written to the tool's stdin (UTF-8), then closed. */
  input?: string;
}

/** An AppleScript string literal: backslashes and double quotes escaped. */
export function appleScriptString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Text for SendKeys: + ^ % ~ ( ) { } [ ] are key syntax, so each is wrapped in braces; newlines become {ENTER}.
 * https://learn.microsoft.com/dotnet/api/system.windows.forms.sendkeys
 */
export function escapeSendKeys(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[+^%~(){}[\]]/g, (c) => `{${c}}`).replace(/\n/g, '{ENTER}');
}

// PowerShell reads its input from stdin as UTF-8 (the console's default code page would mangle accents).
const PS_PRELUDE = '[Console]::InputEncoding = [Text.Encoding]::UTF8; Add-Type -AssemblyName System.Windows.Forms; ';
const powershell = (script: string, input?: string): Command => ({
  cmd: 'powershell.exe',
  args: ['-NoProfile', '-NonInteractive', '-Command', PS_PRELUDE + script],
  ...(input === undefined ? {} : { input }),
});

/**
 * Splits text into runs xdotool can type reliably (ASCII, on every US-based keymap) and runs it cannot:
 * for any other character xdotool remaps a spare keycode for each key press, and Chromium/Electron apps
 * read the map late, so characters are dropped or repeated (measured on Xvfb + Chromium: 'Café naïve'
 * came out 'Caf nave' at --delay 0 and still garbled at 60 ms per key). Those runs are pasted instead.
 */
export function splitTypeable(text: string): { text: string; typeable: boolean }[] {
  const runs: { text: string; typeable: boolean }[] = [];
  for (const part of text.match(/[\x20-\x7e\n\t]+|[^\x20-\x7e\n\t]+/g) ?? []) {
    runs.push({ text: part, typeable: /^[\x20-\x7e\n\t]/.test(part) });
  }
  return runs;
}

/** Types `text` as keystrokes into the focused window. */
export function typeCommand(platform: InsertPlatform, text: string): Command {
  switch (platform) {
    case 'x11':
      // --clearmodifiers: the hotkey's Ctrl/Shift may still be held when the final arrives.
      return { cmd: 'xdotool', args: ['type', '--clearmodifiers', '--delay', '0', '--', text] };
    case 'wayland':
      return { cmd: 'wtype', args: ['--', text] };
    case 'macos':
      return { cmd: 'osascript', args: ['-e', `tell application "System Events" to keystroke ${appleScriptString(text)}`] };
    case 'windows':
      return powershell('[System.Windows.Forms.SendKeys]::SendWait([Console]::In.ReadToEnd())', escapeSendKeys(text));
  }
}

/** The paste keystroke (Ctrl+V, Cmd+V on macOS; Ctrl+Shift+V into a terminal on X11, see terminal.ts). */
export function pasteCommand(platform: InsertPlatform, terminal = false): Command {
  switch (platform) {
    case 'x11':
      return { cmd: 'xdotool', args: ['key', '--clearmodifiers', terminal ? 'ctrl+shift+v' : 'ctrl+v'] };
    case 'wayland':
      return { cmd: 'wtype', args: ['-M', 'ctrl', 'v', '-m', 'ctrl'] };
    case 'macos':
      return { cmd: 'osascript', args: ['-e', 'tell application "System Events" to keystroke "v" using command down'] };
    case 'windows':
      return powershell("[System.Windows.Forms.SendKeys]::SendWait('^v')");
  }
}

/** X11, an xterm-like terminal: Shift+Insert pastes the PRIMARY selection (xterm, urxvt: their default key). */
export function primaryPasteCommand(): Command {
  return { cmd: 'xdotool', args: ['key', '--clearmodifiers', 'shift+Insert'] };
}

/** X11: the PRIMARY selection's text (what the user last highlighted), to put it back after a paste. */
export function primaryReadCommand(): Command {
  return { cmd: 'xclip', args: ['-selection', 'primary', '-out'] };
}

/** X11: PRIMARY set to `text` (xclip serves it in the background). */
export function primaryWriteCommand(text: string): Command {
  return { cmd: 'xclip', args: ['-selection', 'primary', '-in'], input: text };
}

/** Puts `text` on the clipboard. */
export function clipboardWriteCommand(platform: InsertPlatform, text: string): Command {
  switch (platform) {
    case 'x11':
      return { cmd: 'xclip', args: ['-selection', 'clipboard', '-in'], input: text };
    case 'wayland':
      return { cmd: 'wl-copy', args: [], input: text };
    case 'macos':
      return { cmd: 'pbcopy', args: [], input: text };
    case 'windows':
      return powershell('Set-Clipboard -Value ([Console]::In.ReadToEnd())', text);
  }
}

/** Reads the clipboard's text. */
export function clipboardReadCommand(platform: InsertPlatform): Command {
  switch (platform) {
    case 'x11':
      return { cmd: 'xclip', args: ['-selection', 'clipboard', '-out'] };
    case 'wayland':
      return { cmd: 'wl-paste', args: ['--no-newline'] };
    case 'macos':
      return { cmd: 'pbpaste', args: [] };
    case 'windows':
      return powershell('[Console]::OutputEncoding = [Text.Encoding]::UTF8; Get-Clipboard -Raw');
  }
}

/** Wayland where wtype cannot work (GNOME has no virtual-keyboard protocol): ydotool types through /dev/uinput. */
export function ydotoolTypeCommand(text: string): Command {
  return { cmd: 'ydotool', args: ['type', '--', text] };
}

/** X11: the window with the keyboard focus (xdotool walks up to the client window that has a WM_CLASS). */
export function focusedWindowCommand(): Command {
  return { cmd: 'xdotool', args: ['getwindowfocus'] };
}

/** X11: a window's WM_CLASS (x11-utils), to recognise terminals. */
export function windowClassCommand(windowId: string): Command {
  return { cmd: 'xprop', args: ['-id', windowId, 'WM_CLASS'] };
}
