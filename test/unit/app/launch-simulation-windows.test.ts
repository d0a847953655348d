// The launch simulation (see launch-simulation.test.ts) as Windows 11 under
// Electron 40.8.5 (process.platform and process.versions.electron set before
// the main entry loads; this file runs in its own process): the meeting's
// system audio is the page's WASAPI loopback, so getDisplayMedia is granted to
// our page and answered with the screen and loopback; closing the only window
// quits the app, services disposed and the engine process ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launchPackaged, until } from '../../support/fake-electron/launch.js';

type PermissionHandler = (wc: unknown, permission: string, callback: (granted: boolean) => void, details: object) => void;
type DisplayMediaHandler = (request: object, callback: (streams: unknown) => void) => void;

test('Windows: WASAPI loopback through getDisplayMedia; the last window closed quits cleanly', { timeout: 120_000 }, async () => {
  const { electron, restore } = await launchPackaged({ platform: 'win32' });
  const { fake } = electron;
  try {
    fake.becomeReady();
    const main = await until('the main window', () => fake.windows.find((w) => w.getTitle() === 'Parakeet'));
    const permission = fake.handlers.get('defaultSession.setPermissionRequestHandler') as PermissionHandler;
    let granted = false;
    permission({}, 'media', (g) => { granted = g; }, { mediaTypes: [], requestingUrl: main.webContents.url });
    assert.equal(granted, true, 'getDisplayMedia (media, no mediaTypes) from our page');
    assert.equal(fake.called('systemPreferences.getMediaAccessStatus').length, 0, 'no macOS permission reads on Windows');
    fake.config.screens = [{ id: 'screen:0:0', name: 'Screen 1' }];
    const displayMedia = fake.handlers.get('defaultSession.setDisplayMediaRequestHandler') as DisplayMediaHandler;
    const answers: unknown[] = [];
    displayMedia({ frame: { url: main.webContents.url }, securityOrigin: 'file://', videoRequested: true, audioRequested: true, userGesture: true }, (s) => answers.push(s));
    await until('the answer', () => answers.length > 0);
    assert.deepEqual(answers, [{ video: { id: 'screen:0:0', name: 'Screen 1' }, audio: 'loopback' }]);
    // The overlay appears only while dictating, so the main window is the last one: closing it quits.
    const engine = fake.children[0]!;
    main.close();
    assert.equal(main.isDestroyed(), true);
    await until('the quit', () => fake.quitted);
    await until('the engine process to end', () => engine.exitCode !== null || engine.signalCode !== null);
    assert.equal(fake.called('app.quit').length, 2, 'window-all-closed → quit, held by before-quit until the services are disposed, then quit again');
  } finally {
    restore();
  }
});
