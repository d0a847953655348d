// Which OS path inserts text: decided from the platform and the session's
// environment only, so it is a pure function the tests can drive.

export type InsertPlatform = 'x11' | 'wayland' | 'macos' | 'windows';

export interface InsertEnvironment {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
}

/** null: no way to reach other applications here (a Linux console, a headless server without DISPLAY). */
export function detectPlatform({ platform, env }: InsertEnvironment): InsertPlatform | null {
  if (platform === 'darwin') return 'macos';
  if (platform === 'win32') return 'windows';
  // Wayland first: a Wayland session also sets DISPLAY for XWayland, but xdotool's synthetic keys only reach
  // X clients there, not the native Wayland window that has focus.
  if (env.WAYLAND_DISPLAY) return 'wayland';
  if (env.DISPLAY) return 'x11';
  return null;
}
