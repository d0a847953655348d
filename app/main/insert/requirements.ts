// What inserting text into other apps needs on this machine, checked without
// side effects (no keystroke is sent): the OS path, which of its tools are on
// PATH, the macOS Accessibility permission where the adapter can ask, and
// what to install or allow for what is missing. Pure over its inputs, so
// every OS is unit-tested on any machine.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { InsertMode, InsertRequirement, InsertRequirements } from '../../ipc/contract.js';
import { detectPlatform } from './strategy.js';

export interface RequirementInputs {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether a tool is on PATH (default: a scan of env.PATH). */
  onPath?: (tool: string) => boolean;
  /** The adapter brings its own clipboard (Electron): no clipboard tool is needed. */
  ownClipboard?: boolean;
  /** macOS: the app may send keystrokes (Electron's systemPreferences.isTrustedAccessibilityClient); unknown: undefined. */
  accessibilityTrusted?: () => boolean;
}

export function pathScanner(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): (tool: string) => boolean {
  const dirs = (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean);
  const exts = platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  return (tool) => dirs.some((dir) => exts.some((ext) => existsSync(path.join(dir, tool + ext))));
}

const apt = (pkg: string): string => `sudo apt-get install ${pkg} (Fedora: sudo dnf install ${pkg}; Arch: sudo pacman -S ${pkg})`;

export function checkInsertRequirements(inputs: RequirementInputs): InsertRequirements {
  const platform = detectPlatform({ platform: inputs.platform, env: inputs.env });
  const has = inputs.onPath ?? pathScanner(inputs.env, inputs.platform);
  const items: InsertRequirement[] = [];
  const tool = (name: string, purpose: string, pkg: string, optional = false): boolean => {
    const ok = has(name);
    items.push({ name, ok, purpose, ...(ok ? {} : { fix: apt(pkg) }), ...(optional ? { optional } : {}) });
    return ok;
  };
  let modes: Exclude<InsertMode, 'off'>[] = [];
  let summary: string;
  switch (platform) {
    case null:
      return {
        platform: null, ready: false, modes: [], items: [],
        summary: 'No graphical session was found (neither WAYLAND_DISPLAY nor DISPLAY is set): text stays in this app.',
      };
    case 'x11': {
      const keys = tool('xdotool', 'sends the typed keys and the paste keystroke', 'xdotool');
      const clip = inputs.ownClipboard ? true : tool('xclip', 'puts the text on the clipboard for pasting', 'xclip');
      if (inputs.ownClipboard) tool('xclip', 'shows when the target has read a paste, so the clipboard is restored only then', 'xclip', true);
      tool('xprop', 'tells terminals apart (they paste with Ctrl+Shift+V)', 'x11-utils', true);
      modes = [...(keys && clip ? (['paste'] as const) : []), ...(keys ? (['type'] as const) : []), ...(clip ? (['copy'] as const) : [])];
      summary = keys && clip ? 'X11: text can be pasted or typed into the focused app.' : 'X11: install what is missing below to insert text into other apps.';
      break;
    }
    case 'wayland': {
      const clip = inputs.ownClipboard ? true : tool('wl-copy', 'puts the text on the clipboard', 'wl-clipboard');
      const wtype = tool('wtype', 'types and pastes on compositors with the virtual-keyboard protocol (Sway, Hyprland, KDE); not GNOME', 'wtype', true);
      const ydotool = tool('ydotool', 'types through the kernel (/dev/uinput; its ydotoold service must run), on any compositor', 'ydotool', true);
      const keys = wtype || ydotool;
      modes = [...(keys ? (['type'] as const) : []), ...(keys && clip ? (['paste'] as const) : []), ...(clip ? (['copy'] as const) : [])];
      summary = keys
        ? 'Wayland: text is typed or pasted with ' + (wtype ? 'wtype' : 'ydotool') + '. If the desktop refuses the keys, the text is copied and you press Ctrl+V.'
        : 'Wayland: no app may send keys here without wtype or ydotool; text is copied and you press Ctrl+V.';
      break;
    }
    case 'macos': {
      const trusted = inputs.accessibilityTrusted?.();
      items.push({
        name: 'Accessibility permission',
        ok: trusted !== false,
        purpose: trusted === undefined ? 'lets Parakeet send keystrokes (macOS asks at the first insert)' : 'lets Parakeet send keystrokes',
        ...(trusted === false ? { fix: 'System Settings → Privacy & Security → Accessibility: turn Parakeet Desktop on.' } : {}),
      });
      modes = trusted === false ? ['copy'] : ['paste', 'type', 'copy'];
      summary = trusted === false ? 'macOS: allow Accessibility for Parakeet Desktop to insert text.' : 'macOS: text is pasted with ⌘V (osascript, built in).';
      break;
    }
    case 'windows':
      items.push({
        name: 'PowerShell',
        ok: has('powershell'),
        purpose: 'sends the keys (SendKeys, part of Windows); windows of programs run as administrator refuse them',
        ...(has('powershell') ? {} : { fix: 'powershell.exe is part of Windows; check that C:\\Windows\\System32\\WindowsPowerShell\\v1.0 is on PATH.' }),
      });
      modes = has('powershell') ? ['paste', 'type', 'copy'] : [];
      summary = 'Windows: text is pasted with Ctrl+V (PowerShell SendKeys, built in).';
      break;
  }
  const ready = modes.includes('paste') || modes.includes('type');
  return { platform, ready, modes, summary, items };
}
