// What closing the main window means. On macOS an app stays running after its
// window closes (the Dock icon and the menu bar stay), and here the page is
// what owns the microphone: a destroyed window would leave the global hotkey
// and the tray's Start with nothing to record. So on macOS the close button
// hides the window, as Mail or Notes do, and only quitting closes it; the
// Dock icon, the tray's Open and a second launch show it again. Elsewhere
// closing the window quits the app (window-all-closed). Electron-free: the
// window is anything with Electron's 'close' event and hide().

export interface HideableWindow {
  on(event: 'close', listener: (event: { preventDefault(): void }) => void): unknown;
  hide(): void;
}

export function hidesOnClose(platform: NodeJS.Platform, quitting: boolean): boolean {
  return platform === 'darwin' && !quitting;
}

/** Makes the close button hide `win` where hidesOnClose says so; `quitting` is read at each close. */
export function keepWindowOnClose(win: HideableWindow, platform: NodeJS.Platform, quitting: () => boolean): void {
  win.on('close', (event) => {
    if (!hidesOnClose(platform, quitting())) return;
    event.preventDefault();
    win.hide();
  });
}
