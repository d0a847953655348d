// main's getDisplayMedia answer (app/main/display-media.ts) against a fake of
// Electron's callback that behaves as Electron 40.8.5's DisplayMediaDeviceChosen
// (shell/browser/electron_browser_context.cc): null refuses; an object without
// `video` while video was requested throws a TypeError into main. Plus main's
// handler for errors nobody caught (app/main/main-errors.ts).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { Notice } from '../../../app/ipc/contract.js';
import { displayMediaHandler, type DisplayMediaRequest, type DisplayMediaStreams, type ScreenSource } from '../../../app/main/display-media.js';
import { handleMainProcessErrors } from '../../../app/main/main-errors.js';
import { screenAccessProblem, systemAudioPlan, type CaptureProblem } from '../../../app/shared/system-audio-plan.js';
import { recordingLogger } from '../../support/recording-logger.js';

const PAGE = 'file:///opt/parakeet/dist/renderer/index.html';
const SCREEN: ScreenSource = { id: 'screen:1:0', name: 'Entire screen' };

/** Electron's callback as DisplayMediaDeviceChosen treats it (throws where Electron throws). */
function electronCallback(request: DisplayMediaRequest): { calls: DisplayMediaStreams[]; callback: (streams: DisplayMediaStreams) => void } {
  const calls: DisplayMediaStreams[] = [];
  return {
    calls,
    callback: (streams) => {
      calls.push(streams);
      if (streams === null || streams === undefined) return; // CAPTURE_FAILURE: the page's promise rejects
      if (request.videoRequested && !('video' in streams)) throw new TypeError('Video was requested, but no video stream was provided');
    },
  };
}

function request(overrides: Partial<DisplayMediaRequest> = {}): DisplayMediaRequest {
  return { frame: { url: PAGE }, securityOrigin: 'file://', videoRequested: true, audioRequested: true, ...overrides };
}

function setup(options: { screens?: readonly ScreenSource[] | Error; screen?: string } = {}) {
  const notices: CaptureProblem[] = [];
  const log = recordingLogger();
  const handler = displayMediaHandler({
    plan: systemAudioPlan({ platform: 'darwin', osRelease: '23.4.0', electron: '40.8.5' }),
    trusted: (url) => url === PAGE,
    screenAccess: () => screenAccessProblem(options.screen ?? 'granted'),
    listScreens: () => (options.screens instanceof Error ? Promise.reject(options.screens) : Promise.resolve([...(options.screens ?? [SCREEN])])),
    notify: (problem) => notices.push(problem),
    log,
  });
  return { handler, notices, log };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('our page asking for audio gets the first screen and loopback audio', async () => {
  const { handler } = setup({ screens: [SCREEN, { id: 'screen:2:0', name: 'Screen 2' }] });
  const req = request();
  const fake = electronCallback(req);
  handler(req, fake.callback);
  await settle();
  assert.deepEqual(fake.calls, [{ video: SCREEN, audio: 'loopback' }]);
});

test('every refusal is callback(null), which Electron takes without throwing', async () => {
  for (const [why, options, req] of [
    ['another page', {}, request({ frame: { url: 'https://example.com/' } })],
    ['a destroyed frame', {}, request({ frame: null })],
    ['no audio asked', {}, request({ audioRequested: false })],
    ['no screen', { screens: [] }, request()],
    ['the capturer failed', { screens: new Error('screen capture unavailable') }, request()],
    ['macOS screen recording denied', { screen: 'denied' }, request()],
  ] as const) {
    const { handler } = setup(options);
    const fake = electronCallback(req);
    assert.doesNotThrow(() => handler(req, fake.callback), why);
    await settle();
    assert.deepEqual(fake.calls, [null], why);
  }
});

test('a refusal the user can fix is told as a notice; one for another page is only logged', async () => {
  const denied = setup({ screen: 'denied' });
  denied.handler(request(), electronCallback(request()).callback);
  assert.equal(denied.notices.length, 1);
  assert.match(denied.notices[0]!.action, /Screen & System Audio Recording/);
  assert.match(denied.log.lines.map((l) => l.message).join('\n'), /display media refused: macOS does not allow/);
  const stranger = setup();
  stranger.handler(request({ frame: { url: 'https://example.com/' } }), electronCallback(request()).callback);
  await settle();
  assert.equal(stranger.notices.length, 0);
  assert.match(stranger.log.lines.map((l) => l.message).join('\n'), /display media refused: not our page/);
});

test('errors nobody caught in main are logged and told once per message, instead of Electron\'s modal box', () => {
  const events = new EventEmitter();
  const notices: Notice[] = [];
  const log = recordingLogger();
  const stop = handleMainProcessErrors(events, { log, notify: (n) => notices.push(n) });
  // Electron shows its box only while the app has no uncaughtException listener of its own (lib/browser/init.ts).
  assert.equal(events.listenerCount('uncaughtException'), 1);
  events.emit('uncaughtException', new TypeError('Video was requested, but no video stream was provided'));
  events.emit('uncaughtException', new TypeError('Video was requested, but no video stream was provided'));
  events.emit('unhandledRejection', new Error('disk gone'));
  assert.equal(log.lines.filter((l) => l.level === 'error').length, 3);
  assert.equal(notices.length, 2, 'the same message is told once');
  assert.match(notices[0]!.message, /TypeError: Video was requested.*keeps running/);
  assert.equal(notices[0]!.level, 'error');
  assert.match(notices[1]!.message, /disk gone/);
  stop();
  assert.equal(events.listenerCount('uncaughtException'), 0);
  assert.equal(events.listenerCount('unhandledRejection'), 0);
});

test('a notice sink that throws does not turn the report into another uncaught error', () => {
  const events = new EventEmitter();
  const log = recordingLogger();
  handleMainProcessErrors(events, { log, notify: () => { throw new Error('window gone'); } });
  assert.doesNotThrow(() => events.emit('uncaughtException', new Error('first')));
  assert.match(log.lines.map((l) => `${l.message} ${String(l.data)}`).join('\n'), /could not show the error notice Error: window gone/);
});
