// Electron adapter: the main window and the security rules around it.
// Sandboxed, context-isolated renderer without Node; strict CSP; no
// navigation away from the app and no new windows; the microphone (audio
// only, from our own page) is the only permission ever granted.
import { BrowserWindow, session, shell, systemPreferences, type Session, type WebContents } from 'electron';
import { rendererCsp } from '../csp.js';
import { MEDIA_SCHEME } from '../media/media-url.js';
import type { Logger } from '../log.js';
import { grantsPermission, isTrustedUrl, passesPermissionCheck, type PermissionPolicy, type RendererLocation } from '../renderer-guards.js';

export interface WindowOptions extends RendererLocation {
  /** dist/app/preload/index.cjs (CommonJS: a sandboxed preload cannot load ES modules). */
  preload: string;
  log: Logger;
}

/**
 * Session-wide rules: CSP on our responses, microphone-only permissions (plus getDisplayMedia where the policy says
 * the page captures the system audio). Call once per session, before any window uses it.
 */
export function hardenSession(options: RendererLocation & { log: Logger; policy: PermissionPolicy }, ses: Session = session.defaultSession): void {
  const csp = rendererCsp({ mediaSources: [`${MEDIA_SCHEME}:`], ...(options.devUrl ? { devServer: options.devUrl } : {}) });
  ses.webRequest.onHeadersReceived((details, callback) => {
    // The page also carries the same policy in a <meta> tag (file:// responses may bypass this hook).
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  ses.setPermissionRequestHandler((_webContents, permission, callback, details) => {
    const media = 'mediaTypes' in details ? details.mediaTypes ?? [] : [];
    const granted = grantsPermission(permission, media, details.requestingUrl, options, options.policy);
    if (!granted) options.log.warn(`permission refused: ${permission} ${media.join(',')} for ${details.requestingUrl}`);
    callback(granted);
  });
  ses.setPermissionCheckHandler((_webContents, permission, requestingOrigin, details) =>
    passesPermissionCheck(permission, details.mediaType, [details.requestingUrl ?? requestingOrigin, details.securityOrigin], options),
  );
}

/** Every web contents (windows, and anything that might be created later) stays on our page. Once per contents. */
export function lockDownContents(contents: WebContents, options: RendererLocation & { log: Logger }): void {
  contents.on('will-navigate', (event, url) => {
    if (url === contents.getURL()) return; // a reload
    event.preventDefault();
    options.log.warn(`navigation refused: ${url}`);
  });
  contents.on('will-redirect', (event, url) => {
    if (!isTrustedUrl(url, options)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    // Links to the web (licences, model pages) open in the user's browser, never in the app.
    if (/^https:\/\//i.test(url)) shell.openExternal(url).catch((error: unknown) => options.log.warn(`could not open ${url} in the browser`, error));
    else options.log.warn(`window.open refused: ${url}`);
    return { action: 'deny' };
  });
}

export function createMainWindow(options: WindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    minWidth: 720,
    minHeight: 520,
    show: false,
    title: 'Parakeet',
    webPreferences: {
      preload: options.preload,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      // The global hotkey starts dictation while the window is hidden or in the background; a throttled
      // renderer would start the microphone late and deliver frames in bursts.
      backgroundThrottling: false,
    },
  });
  // The navigation guards come from app 'web-contents-created' (index.ts), which covers this window's contents too.
  win.once('ready-to-show', () => win.show());
  const target = options.devUrl ?? options.indexHtml;
  const loading = options.devUrl ? win.loadURL(options.devUrl) : win.loadFile(options.indexHtml);
  loading.catch((error: unknown) => {
    // A superseded load (a reload while loading) rejects with ERR_ABORTED; anything else leaves a blank window.
    options.log.error(`the window could not load ${target}${options.devUrl ? ' (is the dev server running?)' : ' (run "npm run build")'}`, error);
  });
  return win;
}

/** macOS asks the user once for the microphone (the OS prompt); elsewhere access is a browser permission. */
export async function askForMicrophone(log: Logger): Promise<boolean> {
  if (process.platform !== 'darwin') return true;
  const status = systemPreferences.getMediaAccessStatus('microphone');
  if (status === 'granted') return true;
  const granted = await systemPreferences.askForMediaAccess('microphone');
  if (!granted) log.warn('microphone access denied in System Settings › Privacy & Security › Microphone');
  return granted;
}

export function focusExisting(): void {
  const win = BrowserWindow.getAllWindows()[0];
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.focus();
}
