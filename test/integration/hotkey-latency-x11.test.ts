// The whole desktop loop on X11 with real parts only: xdotool holds a key on an
// Xvfb display, the key hook (uiohook-napi in its own process) hears it, the
// hotkey service starts a session in the real services (engine process, tiny
// generated model), audio streams in real time while the key is held, the
// release stops it, and every final is typed into a headed Chromium textarea
// by the real inserter. The figures the latency panel shows are measured here
// the same way: key-down → first partial → text inserted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HotkeyEvent, SessionSummary } from '../../app/ipc/contract.js';
import { hookSupport } from '../../app/main/hotkey/hook-availability.js';
import { HotkeyService } from '../../app/main/hotkey/hotkey-service.js';
import { forkKeyHook } from '../../app/main/hotkey/key-hook.js';
import { nullLogger } from '../../app/main/log.js';
import { createServices, type Services } from '../../app/main/services.js';
import { concat, frames, quiet, speechLike } from '../unit/app/signals.js';
import { tempDir, tinyModel, writeTestSettings } from './helpers.js';
import { openX11Target, settle, x11SkipReason, type X11Target } from './x11-target.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const skip = x11SkipReason();
let target: X11Target;
let services: Services;
let hotkey: HotkeyService;

before(async () => {
  if (skip) return;
  target = await openX11Target();
  const dir = tempDir('hotkey-latency');
  writeTestSettings(dir, {
    insert: { mode: 'type', restoreClipboard: true, restoreDelayMs: 300 },
    hotkey: { toggle: 'CommandOrControl+Shift+Space', mode: 'push-to-talk', hold: 'F8', tapMs: 300 },
  });
  services = await createServices({
    userDataDir: dir, mode: 'web', engineMode: 'process', modelPath: tinyModel(dir, 'tdt'), modelEndpoint: 'https://127.0.0.1:9', insertEnv: target.env,
  });
  await services.ready;
});
after(async () => {
  hotkey?.dispose();
  await services?.dispose();
  await target?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('hold F8, speak, release: key-down → first partial → text inserted, all in order', { skip: skip ?? false }, async (t) => {
  await target.reset();
  const audio = concat(quiet(0.4, 1), speechLike(1.6, 31), quiet(0.9, 2), speechLike(1.2, 32), quiet(0.8, 3));
  const times: { keyDown?: number; firstPartial?: number; firstInserted?: number; stop?: number } = {};
  let sessionId: string | null = null;
  let streaming: Promise<void> | null = null;
  let keyReleased = false;
  services.bus.on('dictation:transcript', (e) => {
    if (e.sessionId === sessionId && e.kind === 'partial' && e.text.trim() && times.firstPartial === undefined) times.firstPartial = Date.now();
  });
  services.bus.on('dictation:inserted', (e) => {
    if (e.sessionId === sessionId && times.firstInserted === undefined) times.firstInserted = e.at;
  });
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const stopped = new Promise<SessionSummary>((resolve) => {
    const log = { ...nullLogger, child: () => log, info: (m: string) => m === 'key hook running' && markReady() };
    hotkey = new HotkeyService({
      settings: services.settings,
      bus: services.bus,
      log,
      registry: null,
      support: () => hookSupport({ platform: 'linux', env: target.env }),
      spawnHook: forkKeyHook,
      env: target.env,
    });
    // The renderer's part, done here: start on 'start', stream the microphone in real time, stop on 'stop'.
    services.bus.on('dictation:hotkey', (e: HotkeyEvent) => {
      if (e.action === 'start') {
        times.keyDown = e.at;
        sessionId = services.sessions.start({ sampleRate: 16_000 }, 'hotkey-test').sessionId;
        const id = sessionId;
        streaming = (async () => {
          let position = 0;
          for (const frame of frames(audio, 640)) {
            if (keyReleased) break;
            services.sessions.pushAudio(id, frame, 'hotkey-test', position);
            position += frame.length;
            await sleep(40);
          }
        })();
      } else if (e.action === 'stop' && sessionId) {
        times.stop = e.at;
        const id = sessionId;
        void (async () => {
          await streaming;
          resolve(await services.sessions.stop(id, 'hotkey-test'));
        })();
      }
    });
  });
  await ready;
  await exec('xdotool', ['keydown', 'F8'], { env: target.env });
  // Held while the audio plays (5 s of it, in real time), then released.
  await sleep(audio.length / 16 + 200);
  keyReleased = true;
  await exec('xdotool', ['keyup', 'F8'], { env: target.env });
  const summary = await stopped;
  await services.insert.idle();
  const expected = summary.segments.map((s) => s.text.trim()).filter(Boolean).join(' ');
  assert.ok(expected.length > 0, 'the session has text');
  assert.equal(await settle(() => target.value(), expected), expected, 'the finals were typed into the other app');
  const { keyDown, firstPartial, firstInserted, stop } = times;
  assert.ok(keyDown && firstPartial && firstInserted && stop, JSON.stringify(times));
  assert.ok(keyDown <= firstPartial && firstPartial <= firstInserted, JSON.stringify(times));
  assert.ok(stop - keyDown >= audio.length / 16, 'the key was held as long as the audio played');
  t.diagnostic(`key-down → first partial ${firstPartial - keyDown} ms, key-down → text inserted ${firstInserted - keyDown} ms ` +
    `(speech starts 400 ms into the audio; first final after its 600 ms pause)`);
});
