// The launch simulation (see launch-simulation.test.ts) as macOS 14.4 under
// Electron 40.8.5: process.platform, os.release() and process.versions.electron
// say so before the main entry loads (this file runs in its own process). What
// only macOS and Windows do is checked through the handlers main installs:
// getDisplayMedia granted to our page (Electron 40 asks with "media" and no
// mediaTypes), answered with the screen and loopback or refused with null
// (an empty answer throws in Electron's DisplayMediaDeviceChosen), the window
// hidden on close until the app quits, the app menu first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Notice } from '../../../app/ipc/contract.js';
import { launchPackaged, until } from '../../support/fake-electron/launch.js';

interface Streams {
  video?: { id: string; name: string };
  audio?: string;
}
type DisplayMediaHandler = (request: object, callback: (streams: Streams | null) => void) => void;
type PermissionHandler = (wc: unknown, permission: string, callback: (granted: boolean) => void, details: object) => void;

/** Electron 40.8.5's DisplayMediaDeviceChosen for a request with video: null refuses, an answer without video throws. */
function electronCallback(): { answers: (Streams | null)[]; callback: (streams: Streams | null) => void } {
  const answers: (Streams | null)[] = [];
  return {
    answers,
    callback: (streams) => {
      answers.push(streams);
      if (streams && !streams.video) throw new TypeError('Video was requested, but no video stream was provided');
    },
  };
}

test('macOS 14.4: system audio through getDisplayMedia, the window kept on close, a clean quit', { timeout: 120_000 }, async () => {
  const { electron, restore } = await launchPackaged({ platform: 'darwin', osRelease: '23.4.0' });
  const { fake, app } = electron;
  try {
    fake.becomeReady();
    const main = await until('the main window', () => fake.windows.find((w) => w.getTitle() === 'Parakeet'));
    const page = main.webContents.url;
    const bus = (globalThis as unknown as { parakeetTest: { services: { bus: { on(e: 'notice', l: (n: Notice) => void): () => void } } } }).parakeetTest.services.bus;
    const notices: Notice[] = [];
    bus.on('notice', (n) => notices.push(n));

    // The permission request comes first: Electron 40 reports getDisplayMedia as media with no mediaTypes.
    const permission = fake.handlers.get('defaultSession.setPermissionRequestHandler') as PermissionHandler;
    const ask = (name: string, mediaTypes: string[], requestingUrl = page): boolean => {
      let granted = false;
      permission({}, name, (g) => { granted = g; }, { mediaTypes, requestingUrl });
      return granted;
    };
    assert.equal(ask('media', []), true, 'getDisplayMedia from our page');
    assert.equal(ask('display-capture', []), true);
    assert.equal(ask('media', [], 'https://example.com/'), false);
    assert.equal(ask('media', ['video']), false, 'never the camera');

    // Then the display-media handler: installed once, after ready.
    const installs = fake.called('defaultSession.setDisplayMediaRequestHandler');
    assert.equal(installs.length, 1);
    assert.ok(installs[0]!.afterReady);
    const displayMedia = fake.handlers.get('defaultSession.setDisplayMediaRequestHandler') as DisplayMediaHandler;
    const request = { frame: { url: page }, securityOrigin: 'file://', videoRequested: true, audioRequested: true, userGesture: true };
    const noScreen = electronCallback();
    displayMedia(request, noScreen.callback);
    await until('the refusal', () => noScreen.answers.length > 0);
    assert.deepEqual(noScreen.answers, [null]);
    fake.config.screens = [{ id: 'screen:1:0', name: 'Built-in Display' }];
    const granted = electronCallback();
    displayMedia(request, granted.callback);
    await until('the answer', () => granted.answers.length > 0);
    assert.deepEqual(granted.answers, [{ video: { id: 'screen:1:0', name: 'Built-in Display' }, audio: 'loopback' }]);
    fake.config.screenAccess = 'denied';
    const denied = electronCallback();
    displayMedia(request, denied.callback);
    assert.deepEqual(denied.answers, [null], 'refused at once when Screen Recording is denied');
    assert.match(notices.find((n) => n.code === 'PERMISSION_DENIED')?.action ?? '', /Screen & System Audio Recording/);

    // The close button hides the window: the page that owns the microphone stays for the hotkey and the tray.
    main.close();
    assert.equal(main.isDestroyed(), false);
    assert.equal(main.isVisible(), false);
    const menu = fake.menus.at(-1) as { template: { role?: string }[] };
    assert.equal(menu.template[0]!.role, 'appMenu');

    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(notices.filter((n) => n.code === 'INTERNAL'), [], 'no error reached the uncaught-error handler');
    const engine = fake.children[0]!;
    app.quit();
    await until('the quit', () => fake.quitted);
    assert.equal(main.isDestroyed(), true, 'quitting closes it for real');
    await until('the engine process to end', () => engine.exitCode !== null || engine.signalCode !== null);
  } finally {
    restore();
  }
});
