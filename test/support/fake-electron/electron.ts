// A fake `electron` module for the launch simulation (test/unit/app/
// launch-simulation.test.ts): every API main calls is recorded in order, each
// call marked with whether app 'ready' had happened; the handlers main
// installs are kept so the test can call them. Behaviour copied from Electron
// where main depends on it: app.quit() emits a cancellable 'before-quit',
// closing windows emits a cancellable 'close', a new BrowserWindow emits
// app 'web-contents-created', utilityProcess.fork can start a real Node child
// (the engine) with the same message API.
import { fork as forkChild, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';

export interface ApiCall {
  seq: number;
  api: string;
  args: unknown[];
  afterReady: boolean;
}

type Handler = (...args: never[]) => unknown;

export const fake = {
  calls: [] as ApiCall[],
  ready: false,
  quitting: false,
  quitted: false,
  paths: new Map<string, string>(),
  config: {
    isPackaged: true,
    /** Fork paths that start a real Node child (the engine); others get a child that never answers. */
    realFork: (_modulePath: string): boolean => false,
    failLoads: false,
    failOpenExternal: false,
    /** What desktopCapturer.getSources answers, and macOS's screen-recording status. */
    screens: [] as { id: string; name: string }[],
    screenAccess: 'granted',
  },
  windows: [] as FakeBrowserWindow[],
  children: [] as ChildProcess[],
  /** Handlers main installed, by API name (session.setPermissionRequestHandler, …). */
  handlers: new Map<string, Handler>(),
  menus: [] as unknown[],
  readyResolve: null as (() => void) | null,
  becomeReady(): void {
    fake.ready = true;
    app.emit('ready');
    fake.readyResolve?.();
  },
  called(api: string): ApiCall[] {
    return fake.calls.filter((c) => c.api === api);
  },
};

let seq = 0;
function rec(api: string, args: unknown[]): void {
  fake.calls.push({ seq: seq++, api, args, afterReady: fake.ready });
}

function keep(api: string, handler: unknown): void {
  rec(api, [handler]);
  fake.handlers.set(api, handler as Handler);
}

const readyPromise = new Promise<void>((resolve) => {
  fake.readyResolve = resolve;
});

class FakeApp extends EventEmitter {
  readonly commandLine = {
    appendSwitch: (...args: unknown[]) => rec('app.commandLine.appendSwitch', args),
    getSwitchValue: (name: string): string => {
      rec('app.commandLine.getSwitchValue', [name]);
      return '';
    },
    hasSwitch: (name: string): boolean => {
      rec('app.commandLine.hasSwitch', [name]);
      return false;
    },
  };
  get isPackaged(): boolean {
    return fake.config.isPackaged;
  }
  override on(event: string | symbol, listener: (...args: unknown[]) => void): this {
    rec(`app.on:${String(event)}`, []);
    return super.on(event, listener);
  }
  requestSingleInstanceLock(): boolean {
    rec('app.requestSingleInstanceLock', []);
    return true;
  }
  enableSandbox(): void {
    rec('app.enableSandbox', []);
  }
  whenReady(): Promise<void> {
    rec('app.whenReady', []);
    return readyPromise;
  }
  isReady(): boolean {
    return fake.ready;
  }
  setPath(name: string, value: string): void {
    rec('app.setPath', [name, value]);
    fake.paths.set(name, value);
  }
  getPath(name: string): string {
    rec('app.getPath', [name]);
    const value = fake.paths.get(name);
    if (!value) throw new Error(`fake electron: app.getPath('${name}') has no value (set it in the test)`);
    return value;
  }
  getLocale(): string {
    return 'en-US';
  }
  getVersion(): string {
    return '40.8.5';
  }
  getLoginItemSettings(): { openAtLogin: boolean } {
    rec('app.getLoginItemSettings', []);
    return { openAtLogin: false };
  }
  setLoginItemSettings(settings: unknown): void {
    rec('app.setLoginItemSettings', [settings]);
  }
  quit(): void {
    rec('app.quit', []);
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => { prevented = true; } });
    if (prevented) return;
    // Electron: windows closed by a quit emit no 'window-all-closed'.
    fake.quitting = true;
    for (const win of [...fake.windows]) if (!win.isDestroyed()) win.close();
    fake.quitted = true;
    this.emit('will-quit', { preventDefault: () => undefined });
    this.emit('quit');
  }
  exit(code: number): void {
    rec('app.exit', [code]);
    fake.quitted = true;
  }
}

export const app = new FakeApp();

class FakeWebContents extends EventEmitter {
  private static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  url = '';
  destroyed = false;
  override on(event: string | symbol, listener: (...args: unknown[]) => void): this {
    rec(`webContents.on:${String(event)}`, [this.id]);
    return super.on(event, listener);
  }
  setWindowOpenHandler(handler: unknown): void {
    keep(`webContents[${this.id}].setWindowOpenHandler`, handler);
  }
  send(channel: string, payload: unknown): void {
    rec('webContents.send', [this.id, channel, payload]);
  }
  postMessage(channel: string, payload: unknown): void {
    rec('webContents.postMessage', [this.id, channel, payload]);
  }
  getURL(): string {
    return this.url;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  executeJavaScript(): Promise<void> {
    return Promise.resolve();
  }
}

export class FakeBrowserWindow extends EventEmitter {
  readonly webContents = new FakeWebContents();
  private destroyed = false;
  private visible = false;
  constructor(readonly options: { title?: string; webPreferences?: { preload?: string } } & Record<string, unknown> = {}) {
    super();
    rec('new BrowserWindow', [options]);
    fake.windows.push(this);
    app.emit('web-contents-created', {}, this.webContents);
  }
  static getAllWindows(): FakeBrowserWindow[] {
    return fake.windows.filter((w) => !w.isDestroyed());
  }
  static getFocusedWindow(): FakeBrowserWindow | null {
    return null;
  }
  private load(api: string, target: string, url: string): Promise<void> {
    rec(api, [target]);
    this.webContents.url = url;
    return fake.config.failLoads ? Promise.reject(new Error(`ERR_FILE_NOT_FOUND (-6) loading '${url}'`)) : Promise.resolve();
  }
  loadFile(file: string): Promise<void> {
    return this.load('BrowserWindow.loadFile', file, pathToFileURL(file).href);
  }
  loadURL(url: string): Promise<void> {
    return this.load('BrowserWindow.loadURL', url, url);
  }
  getTitle(): string {
    return this.options.title ?? '';
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isMinimized(): boolean {
    return false;
  }
  show(): void {
    this.visible = true;
  }
  showInactive(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {}
  restore(): void {}
  setAlwaysOnTop(...args: unknown[]): void {
    rec('BrowserWindow.setAlwaysOnTop', args);
  }
  setVisibleOnAllWorkspaces(...args: unknown[]): void {
    rec('BrowserWindow.setVisibleOnAllWorkspaces', args);
  }
  setIgnoreMouseEvents(): void {}
  /** The user's close: cancellable 'close', then 'closed'; the last window gone → app 'window-all-closed'. */
  close(): void {
    let prevented = false;
    this.emit('close', { preventDefault: () => { prevented = true; } });
    if (!prevented) this.destroy();
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.webContents.emit('destroyed');
    this.emit('closed');
    if (!fake.quitting && FakeBrowserWindow.getAllWindows().length === 0) app.emit('window-all-closed');
  }
}
export { FakeBrowserWindow as BrowserWindow };

function fakeSession(name: string) {
  return {
    webRequest: { onHeadersReceived: (handler: unknown) => keep(`${name}.webRequest.onHeadersReceived`, handler) },
    setPermissionRequestHandler: (handler: unknown) => keep(`${name}.setPermissionRequestHandler`, handler),
    setPermissionCheckHandler: (handler: unknown) => keep(`${name}.setPermissionCheckHandler`, handler),
    setDisplayMediaRequestHandler: (handler: unknown) => keep(`${name}.setDisplayMediaRequestHandler`, handler),
    protocol: { handle: (scheme: string, handler: unknown) => keep(`${name}.protocol.handle:${scheme}`, handler) },
  };
}

export const session = {
  get defaultSession() {
    if (!fake.ready) rec('session.defaultSession (before ready)', []);
    return defaultSession;
  },
};
const defaultSession = fakeSession('defaultSession');

export const protocol = {
  registerSchemesAsPrivileged: (schemes: unknown) => rec('protocol.registerSchemesAsPrivileged', [schemes]),
  handle: (scheme: string, handler: unknown) => keep(`protocol.handle:${scheme}`, handler),
};

/** utilityProcess's child: 'message' with the data, 'exit' with the code, stdout/stderr streams. */
class FakeUtilityChild extends EventEmitter {
  stdout: NodeJS.ReadableStream | null = null;
  stderr: NodeJS.ReadableStream | null = null;
  pid: number | undefined = undefined;
  private child: ChildProcess | null = null;
  constructor(modulePath: string, args: string[], env: NodeJS.ProcessEnv | undefined) {
    super();
    if (!fake.config.realFork(modulePath)) return;
    const child = forkChild(modulePath, args, { env, serialization: 'advanced', stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    fake.children.push(child);
    this.child = child;
    this.pid = child.pid;
    this.stdout = child.stdout;
    this.stderr = child.stderr;
    child.on('message', (message) => this.emit('message', message));
    child.on('exit', (code) => this.emit('exit', code ?? -1));
  }
  postMessage(message: unknown): void {
    this.child?.send(message as Parameters<ChildProcess['send']>[0]);
  }
  kill(): boolean {
    rec('utilityProcess.kill', []);
    return this.child?.kill() ?? true;
  }
}

export const utilityProcess = {
  fork(modulePath: string, args: string[] = [], options: { env?: NodeJS.ProcessEnv; execArgv?: string[]; serviceName?: string } = {}) {
    rec('utilityProcess.fork', [modulePath, args, { serviceName: options.serviceName, execArgv: options.execArgv }]);
    return new FakeUtilityChild(modulePath, args, options.env);
  },
};

export const dialog = {
  showErrorBox: (...args: unknown[]) => rec('dialog.showErrorBox', args),
  showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }),
};

export const shell = {
  openExternal: (url: string): Promise<void> => {
    rec('shell.openExternal', [url]);
    return fake.config.failOpenExternal ? Promise.reject(new Error('no browser')) : Promise.resolve();
  },
  openPath: (target: string): Promise<string> => {
    rec('shell.openPath', [target]);
    return Promise.resolve('');
  },
};

export const systemPreferences = {
  getMediaAccessStatus: (media: string): string => {
    rec('systemPreferences.getMediaAccessStatus', [media]);
    return media === 'screen' ? fake.config.screenAccess : 'granted';
  },
  askForMediaAccess: (media: string): Promise<boolean> => {
    rec('systemPreferences.askForMediaAccess', [media]);
    return Promise.resolve(true);
  },
  isTrustedAccessibilityClient: (prompt: boolean): boolean => {
    rec('systemPreferences.isTrustedAccessibilityClient', [prompt]);
    return true;
  },
};

export const desktopCapturer = {
  getSources: (options: unknown) => {
    rec('desktopCapturer.getSources', [options]);
    return Promise.resolve([...fake.config.screens]);
  },
};
export const screen = { getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }) };
export const clipboard = {
  readText: () => '',
  writeText: (text: string) => rec('clipboard.writeText', [text]),
};
export const globalShortcut = {
  register: (...args: unknown[]) => {
    rec('globalShortcut.register', args.slice(0, 1));
    return true;
  },
  unregister: (accelerator: string) => rec('globalShortcut.unregister', [accelerator]),
};
export const powerMonitor = new EventEmitter();
export const ipcMain = {
  handle: (channel: string, handler: unknown) => keep(`ipcMain.handle:${channel}`, handler),
  removeHandler: (channel: string) => rec('ipcMain.removeHandler', [channel]),
};

class FakePort extends EventEmitter {
  start(): void {}
  close(): void {}
  postMessage(): void {}
}
export class MessageChannelMain {
  port1 = new FakePort();
  port2 = new FakePort();
}

export class Tray {
  constructor() {
    rec('new Tray', []);
  }
  setImage(): void {}
  setToolTip(): void {}
  setContextMenu(menu: unknown): void {
    rec('Tray.setContextMenu', [menu]);
  }
  destroy(): void {}
}

export const Menu = {
  buildFromTemplate: (template: unknown) => ({ template }),
  setApplicationMenu: (menu: unknown) => {
    rec('Menu.setApplicationMenu', [menu]);
    fake.menus.push(menu);
  },
};

export const nativeImage = {
  createFromBuffer: () => ({ addRepresentation: () => undefined }),
};

export default {
  app, BrowserWindow: FakeBrowserWindow, session, protocol, utilityProcess, dialog, shell, systemPreferences, desktopCapturer, screen,
  clipboard, globalShortcut, powerMonitor, ipcMain, MessageChannelMain, Tray, Menu, nativeImage,
};
