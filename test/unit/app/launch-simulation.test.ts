// The desktop app's start, simulated without an Electron binary: the compiled
// main entry (dist/app/main/electron/main.js, copied into a folder laid out like a
// packaged app: <install>/resources/app.asar/…) is loaded with `electron`
// resolved to a recording fake (test/support/fake-electron), and the order of
// what it calls is checked against app 'ready': the privileged scheme and the
// single-instance lock before it, every session hardened before any window,
// utilityProcess entries inside the archive, one set of navigation guards per
// contents, events to the app page only, a real app menu, failures that
// reach no unhandled rejection, and a clean quit. The engine runs for real (a
// Node child standing in for the utility process; no addon is needed for it
// to answer ready).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Notice } from '../../../app/ipc/contract.js';
import { launchPackaged, until, type FakeElectron } from '../../support/fake-electron/launch.js';

type Fake = FakeElectron['fake'];

interface MainHooks {
  services: {
    settings: { set(patch: unknown): Promise<unknown> };
    bus: { on(event: 'notice', listener: (notice: Notice) => void): () => void; emit(event: 'notice', notice: Notice): void };
  };
}

test('the main entry under a recording fake of Electron: start-up order, sessions, utility processes, windows, menu, quit', { timeout: 120_000 }, async () => {
  const exceptionListeners = process.listenerCount('uncaughtException');
  // Linux on X11 (this machine's platform): the key hook can run, so push-to-talk starts it.
  const { electron, layout, restore } = await launchPackaged({ env: { DISPLAY: ':0', XDG_SESSION_TYPE: 'x11' } });
  const { fake, app, BrowserWindow } = electron;
  try {
    beforeReady(fake);
    assert.equal(process.listenerCount('uncaughtException'), exceptionListeners + 1, 'main handles its own uncaught errors (no Electron box)');

    fake.becomeReady();
    const main = await until('the main window', () => fake.windows.find((w) => w.getTitle() === 'Parakeet'));
    sessionsHardened(fake, main);
    utilityEntriesInsideTheArchive(fake, layout.asar);
    windowFromTheArchive(main, layout.asar);
    assert.equal(main.webContents.listenerCount('will-navigate'), 1, 'navigation guards once per contents');
    assert.equal(main.webContents.listenerCount('will-redirect'), 1);
    assert.equal(fake.called('Menu.setApplicationMenu').length, 1, "the app's menu replaces Electron's default");
    assert.ok(fake.called('Menu.setApplicationMenu')[0]!.afterReady);

    const hooks = (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest;
    const notices: Notice[] = [];
    hooks.services.bus.on('notice', (notice) => notices.push(notice));

    // The key hook is a utility process too: push-to-talk on X11 starts it, from inside the archive.
    await hooks.services.settings.set({ hotkey: { mode: 'push-to-talk', hold: 'F8' } });
    const hook = await until('the key hook fork', () => fake.called('utilityProcess.fork').find((c) => String(c.args[0]).includes('key-hook-process')));
    assert.equal(hook.args[0], path.join(layout.asar, 'dist', 'app', 'main', 'hotkey', 'key-hook-process.js'));

    // Events go to the app page, not to the overlay page (no preload, no listener).
    const overlay = new BrowserWindow({ title: 'Parakeet overlay' });
    await overlay.loadFile(path.join(layout.asar, 'dist', 'renderer', 'overlay.html'));
    const sendsBefore = fake.called('webContents.send').length;
    hooks.services.bus.emit('notice', { level: 'info', code: 'TEST', message: 'hello' });
    const sent = fake.called('webContents.send').slice(sendsBefore).map((c) => c.args[0]);
    assert.deepEqual(sent, [main.webContents.id]);

    // A link opened in the browser that fails, a window whose page cannot load: logged, never an unhandled rejection.
    fake.config.failOpenExternal = true;
    const open = fake.handlers.get(`webContents[${main.webContents.id}].setWindowOpenHandler`) as (d: { url: string }) => { action: string };
    assert.deepEqual(open({ url: 'https://example.com/licence' }), { action: 'deny' });
    main.close(); // Linux: closes (the overlay keeps the app alive)
    assert.equal(main.isDestroyed(), true);
    fake.config.failLoads = true;
    menuCommand(fake, 'Show Parakeet');
    const reopened = await until('the reopened window', () => fake.windows.find((w) => w.getTitle() === 'Parakeet' && !w.isDestroyed()));
    assert.equal(reopened.webContents.listenerCount('will-navigate'), 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(notices.filter((n) => n.code === 'INTERNAL'), [], 'no error reached the uncaught-error handler');

    // Quit: services disposed (the engine process ends), then the app really quits.
    const engine = fake.children[0]!;
    app.quit();
    await until('the quit', () => fake.quitted);
    await until('the engine process to end', () => engine.exitCode !== null || engine.signalCode !== null);
    assert.equal(fake.called('app.quit').length, 2, 'before-quit waits for the services, then quits again');
  } finally {
    restore();
  }
});

function beforeReady(fake: Fake): void {
  const early = fake.calls.filter((c) => !c.afterReady).map((c) => c.api);
  for (const api of ['app.requestSingleInstanceLock', 'app.enableSandbox', 'protocol.registerSchemesAsPrivileged', 'app.whenReady']) {
    assert.ok(early.includes(api), `${api} before ready`);
  }
  assert.ok(early.indexOf('protocol.registerSchemesAsPrivileged') < early.indexOf('app.whenReady'));
  assert.deepEqual(fake.called('app.setPath').map((c) => c.args[0]), ['userData'], 'the user-data override before anything reads it');
  for (const api of ['new BrowserWindow', 'utilityProcess.fork', 'session.defaultSession (before ready)', 'new Tray', 'Menu.setApplicationMenu']) {
    assert.equal(fake.called(api).length, 0, `${api} must wait for ready`);
  }
  const [scheme] = fake.called('protocol.registerSchemesAsPrivileged')[0]!.args as [{ scheme: string; privileges: { stream: boolean } }[]];
  assert.equal(scheme[0]!.scheme, 'parakeet-media');
  assert.equal(scheme[0]!.privileges.stream, true, 'seeking needs a streaming scheme');
}

function sessionsHardened(fake: Fake, main: { webContents: { url: string } }): void {
  const firstWindow = fake.called('new BrowserWindow')[0]!.seq;
  for (const api of ['defaultSession.setPermissionRequestHandler', 'defaultSession.setPermissionCheckHandler', 'defaultSession.webRequest.onHeadersReceived']) {
    const calls = fake.called(api);
    assert.equal(calls.length, 1, `${api} once`);
    assert.ok(calls[0]!.afterReady && calls[0]!.seq < firstWindow, `${api} after ready and before the first window`);
  }
  // Every session main touches is one it hardened (the media scheme is served on the default session only).
  const touched = new Set(fake.calls.map((c) => /^(\w+Session)\./.exec(c.api)?.[1]).filter(Boolean));
  assert.deepEqual([...touched], ['defaultSession']);
  assert.equal(fake.called('defaultSession.protocol.handle:parakeet-media').length, 1);
  assert.equal(fake.called('protocol.handle:parakeet-media').length, 0, 'handled on our session, not the global protocol');
  // Linux: the system audio is recorded by main, so no display-media handler and no getDisplayMedia grant.
  assert.equal(fake.called('defaultSession.setDisplayMediaRequestHandler').length, 0);
  const request = fake.handlers.get('defaultSession.setPermissionRequestHandler') as (wc: unknown, p: string, cb: (granted: boolean) => void, d: object) => void;
  const ask = (permission: string, mediaTypes: string[], requestingUrl = main.webContents.url): boolean => {
    let granted: boolean | null = null;
    request({}, permission, (g) => { granted = g; }, { mediaTypes, requestingUrl });
    assert.notEqual(granted, null, 'the callback is always called');
    return granted!;
  };
  assert.equal(ask('media', ['audio']), true);
  assert.equal(ask('media', ['audio'], 'https://example.com/'), false);
  assert.equal(ask('media', []), false, 'no display capture where main records the system audio');
  assert.equal(ask('geolocation', []), false);
}

function utilityEntriesInsideTheArchive(fake: Fake, asar: string): void {
  const forks = fake.called('utilityProcess.fork');
  assert.ok(forks.length >= 1, 'the engine is a utility process');
  assert.equal(forks[0]!.args[0], path.join(asar, 'dist', 'app', 'engine-process', 'engine-process.js'));
  for (const call of forks) {
    const entry = String(call.args[0]);
    assert.ok(call.afterReady, 'utilityProcess.fork only after ready');
    assert.ok(entry.startsWith(asar + path.sep) && entry.endsWith('.js') && existsSync(entry), `${entry}: compiled JavaScript inside the archive`);
    assert.equal((call.args[2] as { execArgv?: string[] }).execArgv, undefined, 'no loader flags (tsx) for a packaged entry');
  }
}

function windowFromTheArchive(main: { options: { webPreferences?: { preload?: string; sandbox?: boolean; contextIsolation?: boolean } } }, asar: string): void {
  assert.equal(main.options.webPreferences?.preload, path.join(asar, 'dist', 'app', 'preload', 'index.cjs'));
  assert.equal(main.options.webPreferences?.sandbox, true);
  assert.equal(main.options.webPreferences?.contextIsolation, true);
}

function menuCommand(fake: Fake, label: string): void {
  type Item = { label?: string; click?: () => void; submenu?: Item[] };
  const menu = fake.menus.at(-1) as { template: Item[] };
  const find = (items: Item[]): Item | undefined => items.map((i) => (i.label === label ? i : i.submenu && find(i.submenu))).find(Boolean);
  const item = find(menu.template);
  assert.ok(item?.click, `menu entry ${label}`);
  item.click();
}
