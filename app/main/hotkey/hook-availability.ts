// Whether a global key hook can hear the keyboard here, and if not, why in
// words the user can act on. Pure: platform and environment are arguments.
//
// Linux/X11: libuiohook reads every key through the XRecord extension.
// Wayland: no client may read global keys (by design). Under XWayland the hook
// only hears keys typed into X11 windows, so push-to-talk cannot be trusted;
// the XDG desktop portal's GlobalShortcuts (KDE Plasma 6, GNOME 48+, Hyprland)
// is how a Wayland app gets a shortcut, and Electron reaches it through
// globalShortcut (press only, no release): the toggle hotkey works there.
// macOS: the hook needs Input Monitoring/Accessibility permission.
// Windows: a low-level keyboard hook needs nothing.

export type HookSupport =
  | { kind: 'available' }
  | { kind: 'limited'; reason: string }
  | { kind: 'unavailable'; reason: string };

export interface HookEnvironment {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** macOS: whether this app may observe the keyboard (systemPreferences.isTrustedAccessibilityClient). */
  macTrusted?: boolean;
}

export const WAYLAND_TOGGLE_ONLY =
  'On Wayland no app may read the keyboard outside its own window, so push-to-talk and hybrid cannot hear the key being released. ' +
  'The toggle hotkey still works where the compositor offers the desktop portal\'s GlobalShortcuts (KDE Plasma 6, GNOME 48 or newer, Hyprland).';

export function isWaylandSession(env: NodeJS.ProcessEnv): boolean {
  return env.XDG_SESSION_TYPE === 'wayland' || (!!env.WAYLAND_DISPLAY && !env.DISPLAY);
}

export function hookSupport({ platform, env, macTrusted }: HookEnvironment): HookSupport {
  if (platform === 'darwin') {
    return macTrusted === false
      ? {
          kind: 'unavailable',
          reason: 'macOS has not allowed Parakeet to watch the keyboard. Allow it in System Settings → Privacy & Security → Accessibility (and Input Monitoring), then restart Parakeet.',
        }
      : { kind: 'available' };
  }
  if (platform === 'win32') return { kind: 'available' };
  if (platform !== 'linux') return { kind: 'unavailable', reason: `A global key hook is not available on ${platform}.` };
  if (!env.DISPLAY) {
    return env.WAYLAND_DISPLAY
      ? { kind: 'unavailable', reason: WAYLAND_TOGGLE_ONLY }
      : { kind: 'unavailable', reason: 'No graphical session was found (DISPLAY is not set), so no key can be heard outside the window.' };
  }
  if (isWaylandSession(env)) {
    return {
      kind: 'limited',
      reason: `${WAYLAND_TOGGLE_ONLY} Through XWayland the key is heard only while an X11 app has the focus.`,
    };
  }
  return { kind: 'available' };
}
