// Electron main process: lifecycle only. One instance; when ready, the
// services (services.ts), the IPC binding (ipc.ts) and the window (window.ts);
// on quit, everything disposed (sessions finalized, downloads paused for a
// resume, the engine process ended).
import { BrowserWindow, app, dialog, session, utilityProcess, type WebContents } from 'electron';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { utilityTransport } from './utility-transport.js';
import { bindGlobalHotkey } from './global-hotkey.js';
import { isWaylandSession } from '../hotkey/hook-availability.js';
import { bindDesktopShell, type DesktopShell } from './desktop-shell.js';
import { bindIpc, type IpcBinding } from './ipc.js';
import { bindMediaProtocol, registerMediaScheme } from './media-protocol.js';
import { electronPlatform } from './platform.js';
import { createServices, type Services } from '../services.js';
import { isAppPage } from '../renderer-guards.js';
import { askForMicrophone, createMainWindow, focusExisting, hardenSession, lockDownContents } from './window.js';
import { installLoopbackCapture } from './loopback-capture.js';
import { keepWindowOnClose } from '../window-close.js';
import { installAppMenu } from './menu.js';
import { handleMainProcessErrors } from '../main-errors.js';
import { noSandboxNotice } from '../util/linux-sandbox.js';
import { systemAudioPlan } from '../../shared/system-audio-plan.js';

// The folder holding dist/ (the repository, or app.asar when packaged), found from this file
// (dist/app/main/electron/main.js) rather than app.getAppPath(): started as
// `electron dist/app/main/electron/main.js` Electron's default app sets the app path to this file's folder,
// not the repository.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const windowOptions = {
  preload: path.join(root, 'dist', 'app', 'preload', 'index.cjs'),
  indexHtml: path.join(root, 'dist', 'renderer', 'index.html'),
  overlayHtml: path.join(root, 'dist', 'renderer', 'overlay.html'),
  // A dev server is trusted like our own files, so a packaged app never takes one from the environment.
  devUrl: (!app.isPackaged && process.env.PARAKEET_RENDERER_URL) || undefined,
};

// Run-time overrides from the environment (the _electron specs, and users who
// want a portable profile): see README, "Environment".
const env = process.env;
if (env.PARAKEET_USER_DATA_DIR) app.setPath('userData', path.resolve(env.PARAKEET_USER_DATA_DIR));
const testHooks = env.PARAKEET_TEST_HOOKS === '1';
// Wayland: globalShortcut goes through the desktop portal's GlobalShortcuts where the compositor has it
// (no app may grab keys itself there). Must be set before ready.
if (process.platform === 'linux' && isWaylandSession(env)) app.commandLine.appendSwitch('enable-features', 'GlobalShortcutsPortal');

let services: Services | null = null;
// Errors nothing caught: logged and told in the window, never Electron's modal box (main-errors.ts).
handleMainProcessErrors(process, {
  log: {
    error: (message, data) => {
      if (services) services.log.error(message, data);
      else process.stderr.write(`parakeet: ${message}: ${data instanceof Error ? data.stack : String(data)}\n`);
    },
  },
  notify: (notice) => services?.bus.emit('notice', notice),
});
let ipc: IpcBinding | null = null;
let unbindHotkey: (() => void) | null = null;
let shell: DesktopShell | null = null;
let disposed = false;
/** Set at the first 'before-quit': from then on a window close really closes (macOS hides it otherwise). */
let quitting = false;

async function ready(): Promise<void> {
  services = await createServices({
    userDataDir: app.getPath('userData'),
    mode: 'electron',
    engineTransport: utilityTransport(utilityProcess),
    platform: electronPlatform(),
    ...(env.PARAKEET_MODEL ? { modelPath: path.resolve(env.PARAKEET_MODEL) } : {}),
    ...(env.PARAKEET_MODEL_ENDPOINT ? { modelEndpoint: env.PARAKEET_MODEL_ENDPOINT } : {}),
    ...(env.PARAKEET_EXTRA_CA_FILE ? { extraCa: readFileSync(env.PARAKEET_EXTRA_CA_FILE, 'utf8') } : {}),
    ...(testHooks ? { retainSessionAudio: true } : {}),
  });
  // The _electron specs reach the services through Playwright's evaluate().
  if (testHooks) (globalThis as { parakeetTest?: { services: Services } }).parakeetTest = { services };
  const log = services.log.child('window');
  const options = { ...windowOptions, log };
  // Windows/macOS: the meeting's system audio through getDisplayMedia's loopback (nothing on Linux: main records it).
  const plan = systemAudioPlan({ platform: process.platform, osRelease: os.release(), electron: process.versions.electron });
  hardenSession({ ...options, policy: { displayCapture: plan.kind === 'client-loopback' } }, session.defaultSession);
  bindMediaProtocol(session.defaultSession, services.history);
  const bus = services.bus;
  installLoopbackCapture(session.defaultSession, plan, (url) => isAppPage(url, options), log.child('loopback'), (problem) =>
    bus.emit('notice', { level: 'warning', code: 'PERMISSION_DENIED', message: problem.reason, action: problem.action }),
  );
  app.on('web-contents-created', (_event, contents: WebContents) => {
    lockDownContents(contents, options);
    ipc?.watch(contents);
  });
  // Linux: the AppImage's launcher adds --no-sandbox where user namespaces are restricted; say so, with the fix.
  const unsandboxed = process.platform === 'linux' && app.commandLine.hasSwitch('no-sandbox') ? noSandboxNotice() : null;
  if (unsandboxed) log.warn(`${unsandboxed.reason} ${unsandboxed.fix}`);
  const extraNotices = unsandboxed ? [{ level: 'warning' as const, code: 'NO_SANDBOX', message: unsandboxed.reason, action: unsandboxed.fix }] : [];
  ipc = bindIpc(services, { trusted: (url) => isAppPage(url, options), extraNotices });
  const hotkey = bindGlobalHotkey(services);
  unbindHotkey = hotkey.unbind;
  shell = bindDesktopShell({ services, hotkey: hotkey.service, overlayHtml: windowOptions.overlayHtml, openWindow: showMainWindow });
  if (testHooks) Object.assign((globalThis as { parakeetTest?: object }).parakeetTest ?? {}, { hotkey: hotkey.service, desktop: shell });
  installAppMenu(services, { packaged: app.isPackaged, openWindow: showMainWindow });
  await askForMicrophone(log);
  openMainWindow(services);
}

function openMainWindow(s: Services): void {
  const win = createMainWindow({ ...windowOptions, log: s.log.child('window') });
  // macOS: the close button hides it, so the hotkey and the tray's Start still have a page with the microphone.
  keepWindowOnClose(win, process.platform, () => quitting);
  // A hidden overlay is a window too: without this the app would not quit when its window closes.
  win.on('closed', () => shell?.overlay.dispose());
}

/** The tray's "Open": the main window, recreated when it was closed (macOS keeps the app running). */
function showMainWindow(): void {
  const win = BrowserWindow.getAllWindows().find((w) => w.getTitle() !== 'Parakeet overlay' && !w.isDestroyed());
  if (win) {
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  } else if (services && !disposed) openMainWindow(services);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.enableSandbox();
  registerMediaScheme();
  app.on('second-instance', () => (services ? showMainWindow() : focusExisting()));
  app.whenReady().then(ready).catch((error: unknown) => {
    process.stderr.write(`parakeet: start-up failed: ${(error as Error).stack ?? String(error)}\n`);
    // A desktop user sees no terminal: say what happened (e.g. another instance holds the user-data folder).
    dialog.showErrorBox('Parakeet Desktop could not start', error instanceof Error ? error.message : String(error));
    app.exit(1);
  });
  app.on('activate', () => {
    // macOS: the dock icon reopens the window.
    // The overlay may still exist: look for the main window itself.
    if (services && !disposed) showMainWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    quitting = true;
    if (disposed || !services) return;
    event.preventDefault();
    disposed = true;
    unbindHotkey?.();
    shell?.dispose();
    ipc?.dispose();
    const closing = services;
    closing.dispose()
      .catch((error: unknown) => closing.log.error('shutdown failed', error))
      .finally(() => app.quit());
  });
}
