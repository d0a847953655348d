// What the desktop shows outside the window: the state folded from the real
// event bus, the tray's look, tooltip and menu, the overlay's content, and
// the drawn icons (valid PNGs whose colour follows the look).
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { test } from 'node:test';
import type { EngineStatus, SessionStateEvent } from '../../../app/ipc/contract.js';
import { EventBus } from '../../../app/main/events.js';
import { DesktopStateTracker, initialDesktopState, tail, type DesktopState } from '../../../app/main/tray/desktop-state.js';
import { meterLevel, overlayContent, trayLook, trayMenu, trayTooltip } from '../../../app/main/tray/presentation.js';
import { LOOK_COLOURS, crc32, drawTrayIcon, trayIconPng } from '../../../app/main/tray/tray-icons.js';

const engine = (state: EngineStatus['state'], model: string | null = 'parakeet-tdt-0.6b'): EngineStatus => ({
  state,
  mode: 'process',
  model: model ? ({ name: model } as EngineStatus['model']) : null,
  modelId: null,
  restarts: 0,
  lastError: state === 'crashed' ? { code: 'ENGINE_CRASHED', message: 'The engine process stopped (SIGSEGV).' } : null,
});

const sessionState = (sessionId: string, state: SessionStateEvent['state'], level = 0.5): SessionStateEvent => ({
  sessionId,
  state,
  level,
  notice: state === 'failed' ? { code: 'ENGINE_CRASHED', message: 'The engine stopped during dictation.' } : null,
});

function rig(): { bus: EventBus; tracker: DesktopStateTracker; changes: DesktopState[] } {
  const bus = new EventBus();
  const changes: DesktopState[] = [];
  const tracker = new DesktopStateTracker(bus, (s) => changes.push(s));
  return { bus, tracker, changes };
}

test('the tray follows idle → listening → transcribing → idle, and error on a failed session', () => {
  const { bus, tracker } = rig();
  bus.emit('engine:status', engine('ready'));
  assert.equal(trayLook(tracker.state), 'idle');
  assert.equal(trayTooltip(tracker.state), 'Parakeet — ready');
  bus.emit('dictation:state', sessionState('s1', 'listening'));
  assert.equal(trayLook(tracker.state), 'listening');
  assert.equal(trayTooltip(tracker.state), 'Parakeet — listening');
  bus.emit('dictation:state', sessionState('s1', 'speech'));
  assert.equal(trayLook(tracker.state), 'listening');
  bus.emit('dictation:state', sessionState('s1', 'finalizing'));
  assert.equal(trayLook(tracker.state), 'transcribing');
  bus.emit('dictation:state', sessionState('s1', 'stopped'));
  assert.equal(trayLook(tracker.state), 'idle');
  bus.emit('dictation:state', sessionState('s2', 'listening'));
  bus.emit('dictation:state', sessionState('s2', 'failed'));
  assert.equal(trayLook(tracker.state), 'error');
  assert.equal(trayTooltip(tracker.state), 'Parakeet — dictation failed');
  assert.ok(trayMenu(tracker.state).some((i) => i.kind === 'info' && i.label === 'Error: The engine stopped during dictation.'));
  // The next session clears the error.
  bus.emit('dictation:state', sessionState('s3', 'listening'));
  assert.equal(tracker.state.sessionError, null);
});

test('a crashed engine is an error; a file job is transcribing until it ends (also when it fails)', () => {
  const { bus, tracker } = rig();
  bus.emit('engine:status', engine('crashed'));
  assert.equal(trayLook(tracker.state), 'error');
  assert.equal(trayTooltip(tracker.state), 'Parakeet — engine stopped');
  bus.emit('engine:status', engine('ready'));
  bus.emit('files:progress', { jobId: 'f1', fraction: 0 });
  bus.emit('files:progress', { jobId: 'f2', fraction: 0.3 });
  assert.equal(trayLook(tracker.state), 'transcribing');
  assert.equal(trayTooltip(tracker.state), 'Parakeet — transcribing 2 files');
  bus.emit('files:progress', { jobId: 'f1', fraction: 1 });
  assert.equal(trayTooltip(tracker.state), 'Parakeet — transcribing a file');
  tracker.fileJobsRunning([]); // f2 failed: it never reports 100 %
  assert.equal(trayLook(tracker.state), 'idle');
});

test('the menu: start/stop as the state says, open, model and device, hotkey, quit', () => {
  const { bus, tracker } = rig();
  assert.deepEqual(trayMenu(tracker.state)[0], { kind: 'action', id: 'toggle', label: 'Start dictation', enabled: false }, 'no model: cannot start');
  bus.emit('engine:status', engine('ready'));
  bus.emit('devices:changed', { devices: [], selected: 'auto', active: null, lastRan: ['CPU'], failed: [], selfTests: [] } as never);
  tracker.setHotkey({ mode: 'push-to-talk', key: 'RightCtrl', problem: null });
  assert.deepEqual(trayMenu(tracker.state), [
    { kind: 'action', id: 'toggle', label: 'Start dictation', enabled: true },
    { kind: 'action', id: 'open', label: 'Open Parakeet', enabled: true },
    { kind: 'separator' },
    { kind: 'info', label: 'Model: parakeet-tdt-0.6b' },
    { kind: 'info', label: 'Device: CPU' },
    { kind: 'info', label: 'Hotkey: RightCtrl, hold to talk' },
    { kind: 'separator' },
    { kind: 'action', id: 'quit', label: 'Quit Parakeet', enabled: true },
  ]);
  bus.emit('dictation:state', sessionState('s1', 'speech'));
  assert.deepEqual(trayMenu(tracker.state)[0], { kind: 'action', id: 'toggle', label: 'Stop dictation', enabled: true });
  tracker.setHotkey({ mode: 'push-to-talk', key: 'RightCtrl', problem: 'Wayland' });
  assert.ok(trayMenu(tracker.state).some((i) => i.kind === 'info' && i.label === 'Hotkey: RightCtrl (not working, see Settings)'));
});

test('the overlay: shown only while dictating and enabled, with the dot, the level and the live partial', () => {
  const { bus, tracker, changes } = rig();
  assert.equal(overlayContent(tracker.state, true).visible, false);
  bus.emit('dictation:state', sessionState('s1', 'speech', 0.437));
  bus.emit('dictation:transcript', { sessionId: 's1', segmentId: 0, kind: 'partial', text: 'hello wor', words: [], start: 0, end: 1, devicesRan: ['CPU'] });
  // RMS 0.437 = -7.2 dBFS: 88 % of the meter, shown in steps of 5 %.
  assert.deepEqual(overlayContent(tracker.state, true), { visible: true, dot: 'recording', level: 0.9, text: 'hello wor', label: 'Parakeet is listening' });
  assert.equal(overlayContent(tracker.state, false).visible, false, 'the setting is off');
  // Another session's text is not this one's.
  bus.emit('dictation:transcript', { sessionId: 's0', segmentId: 0, kind: 'partial', text: 'other', words: [], start: 0, end: 1, devicesRan: [] });
  assert.equal(tracker.state.partial, 'hello wor');
  // A final replaces the tentative text: the overlay clears until the next partial.
  bus.emit('dictation:transcript', { sessionId: 's1', segmentId: 0, kind: 'final', text: 'hello world', words: [], start: 0, end: 1, devicesRan: ['CPU'] });
  assert.equal(tracker.state.partial, '');
  bus.emit('dictation:state', sessionState('s1', 'finalizing'));
  assert.equal(overlayContent(tracker.state, true).dot, 'transcribing');
  bus.emit('dictation:state', sessionState('s1', 'stopped'));
  assert.deepEqual(overlayContent(tracker.state, true), { visible: false, dot: 'recording', level: 0, text: '', label: 'Parakeet is listening' });
  // An event that changes nothing does not re-render.
  const n = changes.length;
  bus.emit('dictation:state', sessionState('s1', 'stopped'));
  assert.equal(changes.length, n);
});

test('the overlay meter uses the window meter\'s dB scale', () => {
  assert.equal(meterLevel(0), 0);
  assert.equal(meterLevel(0.001), 0, '-60 dBFS: room noise sits at the bottom');
  assert.ok(Math.abs(meterLevel(0.1) - 2 / 3) < 1e-9, '-20 dBFS: speech fills two thirds');
  assert.equal(meterLevel(1), 1);
  assert.equal(meterLevel(Number.NaN), 0);
});

test('long partials keep their last words, cut at a word', () => {
  const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
  const t = tail(words, 40);
  assert.ok(t.startsWith('…word'), t);
  assert.ok(t.endsWith('word99'));
  assert.ok(t.length <= 41);
  assert.equal(tail('  short  '), 'short');
});

test('the icons are valid PNGs in the look\'s colour, each look distinct', () => {
  for (const look of ['idle', 'listening', 'transcribing', 'error'] as const) {
    const png = trayIconPng(look, 16);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // Every chunk's CRC is right, IHDR says 16×16 RGBA, the pixels inflate to 16 rows of 1 + 64 bytes.
    let at = 8;
    let idat = Buffer.alloc(0);
    while (at < png.length) {
      const len = png.readUInt32BE(at);
      const type = png.subarray(at + 4, at + 8).toString('ascii');
      const data = png.subarray(at + 8, at + 8 + len);
      assert.equal(png.readUInt32BE(at + 8 + len), crc32(png.subarray(at + 4, at + 8 + len)), `${type} CRC`);
      if (type === 'IHDR') assert.deepEqual([data.readUInt32BE(0), data.readUInt32BE(4), data[8], data[9]], [16, 16, 8, 6]);
      if (type === 'IDAT') idat = Buffer.concat([idat, data]);
      at += 12 + len;
    }
    assert.equal(inflateSync(idat).length, 16 * 65);
    // The centre pixel is the look's colour (error: its white bar), the corner transparent.
    const px = drawTrayIcon(look, 32);
    const centre = (16 * 32 + 16) * 4;
    const probe = look === 'error' ? (10 * 32 + 16) * 4 : centre;
    assert.deepEqual([...px.subarray(probe, probe + 3)], LOOK_COLOURS[look]);
    assert.equal(px[3], 0, 'corner transparent');
    if (look === 'error') assert.deepEqual([...px.subarray(centre, centre + 3)], [255, 255, 255]);
  }
  assert.equal(new Set(Object.values(LOOK_COLOURS).map(String)).size, 4);
});

test('initial state: idle, starting', () => {
  assert.equal(trayTooltip(initialDesktopState()), 'Parakeet — starting');
});

test('a meeting shows as recording in the tray and the overlay, and dictation is not offered while it runs (issue 44 item 3)', () => {
  const { bus, tracker } = rig();
  bus.emit('engine:status', engine('ready'));
  const meeting = (state: 'recording' | 'finalizing' | 'stopped') =>
    bus.emit('meeting:state', { meetingId: 'm1', state, elapsedSec: 1, levels: { you: 0.1, others: 0 }, sources: [] });
  meeting('recording');
  assert.equal(trayLook(tracker.state), 'listening');
  assert.equal(trayTooltip(tracker.state), 'Parakeet — recording a meeting');
  const start = trayMenu(tracker.state).find((i) => i.kind === 'action' && i.id === 'toggle');
  assert.deepEqual(start, { kind: 'action', id: 'toggle', label: 'Start dictation', enabled: false });
  assert.ok(trayMenu(tracker.state).some((i) => i.kind === 'info' && /meeting is recording/.test(i.label)));
  assert.deepEqual(
    { visible: overlayContent(tracker.state, true).visible, label: overlayContent(tracker.state, true).label },
    { visible: true, label: 'Parakeet is recording a meeting' },
  );
  meeting('finalizing');
  assert.equal(trayLook(tracker.state), 'listening');
  meeting('stopped');
  assert.equal(trayLook(tracker.state), 'idle');
  assert.equal(overlayContent(tracker.state, true).visible, false);
});
