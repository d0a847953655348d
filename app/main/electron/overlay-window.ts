// Electron adapter: the small always-on-top overlay (recording dot, level, the
// live partial). It must never take the focus from the app being typed into:
// focusable: false, shown with showInactive(), no taskbar entry. Sandboxed,
// no preload; main pushes the content as JSON into the page's render function
// (executeJavaScript with a JSON literal, no user-controlled code), at most
// 10 times a second. Placement and the per-platform window type are in
// overlay-placement.ts.
import { BrowserWindow, screen } from 'electron';
import { overlayBounds, overlayWindowType, overlayWorkspaceOptions } from '../tray/overlay-placement.js';
import type { OverlayContent } from '../tray/presentation.js';

const MIN_INTERVAL_MS = 100;

export class OverlayWindow {
  private win: BrowserWindow | null = null;
  private loaded: Promise<void> | null = null;
  private pending: OverlayContent | null = null;
  private last = '';
  private timer: NodeJS.Timeout | null = null;
  private lastSent = 0;

  constructor(private readonly htmlFile: string) {}

  show(content: OverlayContent): void {
    if (!content.visible) {
      this.hide();
      return;
    }
    const win = this.ensure();
    this.pending = content;
    if (!win.isVisible()) win.showInactive();
    this.schedule();
  }

  hide(): void {
    this.pending = null;
    this.last = '';
    if (this.win && !this.win.isDestroyed() && this.win.isVisible()) this.win.hide();
  }

  /** Closed with the main window, so the app can quit (a hidden window would keep it alive). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.win && !this.win.isDestroyed()) this.win.destroy();
    this.win = null;
    this.loaded = null;
  }

  private ensure(): BrowserWindow {
    if (this.win && !this.win.isDestroyed()) return this.win;
    const type = overlayWindowType(process.platform);
    const win = new BrowserWindow({
      ...overlayBounds(screen.getPrimaryDisplay().workArea),
      ...(type ? { type } : {}),
      frame: false,
      resizable: false,
      movable: true,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      skipTaskbar: true,
      alwaysOnTop: true,
      focusable: false,
      show: false,
      transparent: false,
      title: 'Parakeet overlay',
      webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, spellcheck: false, backgroundThrottling: false },
    });
    // Above full-screen apps too (macOS), and on every workspace, keeping the Dock icon and the menu bar.
    win.setAlwaysOnTop(true, 'screen-saver');
    const workspaces = overlayWorkspaceOptions(process.platform);
    if (workspaces) win.setVisibleOnAllWorkspaces(true, workspaces);
    win.setIgnoreMouseEvents(true);
    this.win = win;
    this.loaded = win.loadFile(this.htmlFile).catch(() => undefined);
    return win;
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastSent + MIN_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, wait);
  }

  private async flush(): Promise<void> {
    const content = this.pending;
    const win = this.win;
    if (!content || !win || win.isDestroyed()) return;
    const json = JSON.stringify(content);
    if (json === this.last) return;
    this.last = json;
    this.lastSent = Date.now();
    await this.loaded;
    if (win.isDestroyed()) return;
    await win.webContents.executeJavaScript(`window.renderOverlay && window.renderOverlay(${json});`, false).catch(() => undefined);
  }
}
