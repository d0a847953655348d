// Electron adapter: the app outside its window. Follows the services' events
// (desktop-state.ts) and renders them in the tray icon and the overlay, runs
// the tray menu's commands, and applies settings.desktop.openAtLogin.
import { app } from 'electron';
import type { Settings } from '../../ipc/contract.js';
import type { HotkeyService } from '../hotkey/hotkey-service.js';
import type { Services } from '../services.js';
import { DesktopStateTracker, type DesktopState } from '../tray/desktop-state.js';
import { overlayUnavailable } from '../tray/overlay-placement.js';
import { OverlayWindow } from './overlay-window.js';
import { overlayContent, type TrayCommand } from '../tray/presentation.js';
import { TrayIcon } from './tray.js';

export interface DesktopShellOptions {
  services: Services;
  hotkey: HotkeyService | null;
  overlayHtml: string;
  /** Shows (creating if needed) and focuses the main window. */
  openWindow: () => void;
}

/** Where the OS supports it (macOS, Windows; Linux has no login-item API in Electron). */
export function applyOpenAtLogin(settings: Settings, log: Services['log']): void {
  if (process.platform === 'linux') return;
  try {
    if (app.getLoginItemSettings().openAtLogin !== settings.desktop.openAtLogin) {
      app.setLoginItemSettings({ openAtLogin: settings.desktop.openAtLogin });
    }
  } catch (error) {
    log.warn('cannot change the login item', error);
  }
}

export interface DesktopShell {
  overlay: OverlayWindow;
  /** What the tray and the overlay show now (the _electron specs read it). */
  state(): DesktopState;
  dispose(): void;
}

export function bindDesktopShell(options: DesktopShellOptions): DesktopShell {
  const { services } = options;
  const log = services.log.child('desktop');
  const overlay = new OverlayWindow(options.overlayHtml);
  const run = (command: TrayCommand): void => {
    if (command === 'toggle') services.bus.emit('dictation:toggle', { source: 'tray' });
    else if (command === 'open') options.openWindow();
    else app.quit();
  };
  let tray: TrayIcon | null = null;
  try {
    tray = new TrayIcon(run);
  } catch (error) {
    // Some Linux desktops have no status area (GNOME without the AppIndicator extension).
    log.warn('no tray icon on this desktop', error);
  }
  // Native Wayland cannot place the overlay: it stays hidden, and the user is told once when it is switched on.
  const overlayBlocked = overlayUnavailable({ platform: process.platform, env: process.env, ozonePlatform: app.commandLine.getSwitchValue('ozone-platform') });
  let overlayBlockTold = false;
  const render = (): void => {
    tray?.render(tracker.state);
    const wanted = services.settings.get().desktop.overlay;
    if (!overlayBlocked) overlay.show(overlayContent(tracker.state, wanted));
    else if (wanted && !overlayBlockTold) {
      overlayBlockTold = true;
      log.warn(overlayBlocked);
      services.bus.emit('notice', { level: 'info', code: 'NOT_SUPPORTED', message: overlayBlocked });
    }
  };
  const tracker = new DesktopStateTracker(services.bus, render);
  const hotkeyStatus = (): void => {
    const status = options.hotkey?.status();
    tracker.setHotkey(status ? { mode: status.mode, key: status.key, problem: status.problem } : null);
  };
  hotkeyStatus();
  // Hotkey status has no event of its own; failed file jobs never report 100 %: re-read both now and then.
  const poll = setInterval(() => {
    hotkeyStatus();
    tracker.fileJobsRunning(services.files.jobIds());
  }, 2000);
  poll.unref();
  const offSettings = services.settings.on('changed', ({ next, previous }) => {
    if (next.desktop.openAtLogin !== previous.desktop.openAtLogin) applyOpenAtLogin(next, log);
    hotkeyStatus();
    render();
  });
  applyOpenAtLogin(services.settings.get(), log);
  render();
  return {
    overlay,
    state: () => tracker.state,
    dispose: () => {
      clearInterval(poll);
      offSettings();
      tracker.dispose();
      overlay.dispose();
      tray?.dispose();
    },
  };
}
