// Where and how the overlay window can float, per platform. Pure, so the
// choices are tested without Electron; overlay-window.ts applies them.
//
// macOS: BrowserWindow.setVisibleOnAllWorkspaces(true, { visibleOnFullScreen:
// true }) alone calls Browser::DockHide() (native_window_mac.mm, Electron
// 40.8.5), which turns the whole app into a UI element: no Dock icon and no
// menu bar until it quits. The documented combination keeps them: the `panel`
// window type (floats over full-screen apps and joins every Space through
// NSWindowStyleMaskNonactivatingPanel) with skipTransformProcessType: true.
//
// Linux: Electron ≥ 38 runs as a native Wayland client in a Wayland session
// (XDG_SESSION_TYPE=wayland, unless --ozone-platform=x11). Wayland lets no
// client place its own windows or keep them above others, so x/y and
// always-on-top are ignored and the overlay would land wherever the compositor
// puts a new window, usually over what the user types into. There it is not
// shown; the tray icon still shows the state.

export const OVERLAY_WIDTH = 360;
export const OVERLAY_HEIGHT = 64;
const BOTTOM_MARGIN = 24;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Bottom centre of the display's work area (above the taskbar or Dock). */
export function overlayBounds(workArea: Rect): Rect {
  return {
    x: Math.round(workArea.x + (workArea.width - OVERLAY_WIDTH) / 2),
    y: workArea.y + workArea.height - OVERLAY_HEIGHT - BOTTOM_MARGIN,
    width: OVERLAY_WIDTH,
    height: OVERLAY_HEIGHT,
  };
}

/** The BrowserWindow `type` that floats over full-screen apps (macOS), or none. */
export function overlayWindowType(platform: NodeJS.Platform): 'panel' | undefined {
  return platform === 'darwin' ? 'panel' : undefined;
}

/** The setVisibleOnAllWorkspaces options, or null where the call does nothing (Windows). */
export function overlayWorkspaceOptions(platform: NodeJS.Platform): { visibleOnFullScreen?: boolean; skipTransformProcessType?: boolean } | null {
  if (platform === 'win32') return null;
  if (platform === 'darwin') return { visibleOnFullScreen: true, skipTransformProcessType: true };
  return {};
}

export interface OverlayEnvironment {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** app.commandLine.getSwitchValue('ozone-platform') ('' when not given). */
  ozonePlatform: string;
}

/** Why the overlay cannot be placed here (native Wayland), or null where it can. */
export function overlayUnavailable({ platform, env, ozonePlatform }: OverlayEnvironment): string | null {
  if (platform !== 'linux' || ozonePlatform === 'x11') return null;
  const wayland = ozonePlatform === 'wayland' || env.XDG_SESSION_TYPE === 'wayland';
  if (!wayland) return null;
  return 'The overlay is not shown on Wayland: the compositor does not let apps place a window or keep it on top. The tray icon shows the dictation state; start Parakeet with --ozone-platform=x11 to use the overlay through XWayland.';
}
