// Terminals do not paste with Ctrl+V (it is a control character there): most
// paste the clipboard with Ctrl+Shift+V; the xterm family pastes the PRIMARY
// selection with Shift+Insert and has no clipboard key by default, so text is
// typed into those instead. On X11 the focused window's WM_CLASS (xdotool +
// xprop) tells which it is; elsewhere there is no way to ask (Wayland gives
// no app another window's identity), so Ctrl+V is sent.

/** How text reaches the focused window of this class. */
export type TargetKind = 'app' | 'terminal' | 'terminal-type';

/** WM_CLASS instance or class names (lower case) of terminals that paste with Ctrl+Shift+V. */
export const CTRL_SHIFT_V_TERMINALS: ReadonlySet<string> = new Set([
  'gnome-terminal', 'gnome-terminal-server', 'org.gnome.terminal', 'org.gnome.console', 'kgx', 'org.gnome.ptyxis', 'ptyxis',
  'konsole', 'org.kde.konsole', 'yakuake', 'xfce4-terminal', 'terminator', 'tilix', 'com.gexperts.tilix', 'alacritty',
  'kitty', 'wezterm', 'org.wezfurlong.wezterm', 'foot', 'footclient', 'st', 'st-256color', 'lxterminal', 'mate-terminal',
  'qterminal', 'sakura', 'terminology', 'guake', 'tilda', 'blackbox', 'com.raggesilver.blackbox', 'deepin-terminal',
  'io.elementary.terminal', 'cool-retro-term', 'tabby', 'hyper', 'contour', 'rio', 'ghostty', 'com.mitchellh.ghostty',
  'warp', 'dev.warp.warp', 'roxterm', 'lxterm', 'termite', 'kermit', 'zutty',
]);

/** Terminals whose clipboard paste has no default key: text is typed. */
export const TYPE_TERMINALS: ReadonlySet<string> = new Set(['xterm', 'uxterm', 'urxvt', 'rxvt', 'rxvt-unicode', 'aterm', 'eterm', 'kterm', 'mlterm']);

/** `xprop -id W WM_CLASS` → the quoted names ('WM_CLASS(STRING) = "kitty", "kitty"'); [] when it has none. */
export function parseWmClass(xpropOutput: string): string[] {
  const line = xpropOutput.split('\n').find((l) => l.startsWith('WM_CLASS'));
  if (!line || !line.includes('=')) return [];
  return [...line.slice(line.indexOf('=') + 1).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
}

export function targetKind(wmClass: readonly string[]): TargetKind {
  const names = wmClass.map((n) => n.toLowerCase());
  if (names.some((n) => TYPE_TERMINALS.has(n))) return 'terminal-type';
  if (names.some((n) => CTRL_SHIFT_V_TERMINALS.has(n))) return 'terminal';
  return 'app';
}
