// The renderer's side of the hotkey: main's start/stop/cancel decisions driving
// the dictation controller (a release during the start in flight stops the
// session once it exists), the press → first text → inserted figures, the
// start/stop cues, web mode's in-page hold-to-talk machine, and the Settings
// form's checks of the new fields.
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { beforeEach, test } from 'node:test';
import type { ParakeetApi, Result, Settings } from '../../../app/ipc/contract.js';
import { defaultSettings } from '../../../app/ipc/settings.js';
import { CUE_GAIN, CUE_TONES, type Cue } from '../../../renderer/audio/cues.js';
import { DictationController } from '../../../renderer/audio/dictation-controller.js';
import type { MicHandle, MicOptions } from '../../../renderer/audio/mic-types.js';
import { holdMachineFor } from '../../../renderer/hold-keys.js';
import * as actions from '../../../renderer/store/actions.js';
import { setApi } from '../../../renderer/store/api.js';
import { attachSession, pressed, textArrived, textInserted } from '../../../renderer/store/key-latency.js';
import { appStore } from '../../../renderer/store/store.js';
import { fieldErrors, fieldOfServerError, validPart } from '../../../renderer/views/settings/form-check.js';

class FakeMic implements MicHandle {
  readonly sampleRate = 16_000;
  readonly label = 'test microphone';
  constructor(readonly options: MicOptions) {}
  flush(): Promise<void> {
    return Promise.resolve();
  }
  async close(): Promise<void> {}
}

function install(): string[] {
  const calls: string[] = [];
  let n = 0;
  const answers: Record<string, (payload: unknown) => Result<unknown>> = {
    'dictation:start': () => ({ ok: true, value: { sessionId: `s${++n}`, sampleRate: 16_000 } }),
    'dictation:stop': (p) => {
      const sessionId = (p as { sessionId: string }).sessionId;
      return { ok: true, value: { sessionId, text: '', segments: [], audioSeconds: 0, latency: { sessionId } } };
    },
  };
  const api = {
    mode: 'electron',
    invoke: (async (channel: string, payload?: unknown) => {
      calls.push(channel);
      await tick(); // main answers later, as over IPC
      return answers[channel]?.(payload) ?? { ok: true, value: null };
    }) as ParakeetApi['invoke'],
    on: () => () => undefined,
    sendAudio: () => undefined,
  } satisfies ParakeetApi;
  setApi(api);
  return calls;
}

function controller(): { dictation: DictationController; cues: Cue[] } {
  const cues: Cue[] = [];
  const dictation = new DictationController(async (options) => new FakeMic(options), (cue) => cues.push(cue));
  return { dictation, cues };
}

function withSettings(patch: (s: Settings) => void): void {
  const s = defaultSettings();
  patch(s);
  actions.settingsLoaded(s);
}

beforeEach(() => actions.resetStore());

test('push-to-talk: a release that comes while the start is in flight stops the session once it exists', async () => {
  const calls = install();
  const { dictation } = controller();
  const start = dictation.hotkey({ action: 'start', at: Date.now() });
  const stop = dictation.hotkey({ action: 'stop', at: Date.now() + 80 });
  await Promise.all([start, stop]);
  assert.deepEqual(calls.filter((c) => c.startsWith('dictation:')), ['dictation:start', 'dictation:stop']);
  assert.equal(appStore.getState().session.phase, 'idle');
});

test('a stop or cancel with nothing running does nothing; cancel ends a live session without a summary', async () => {
  const calls = install();
  const { dictation } = controller();
  await dictation.hotkey({ action: 'stop', at: 0 });
  await dictation.hotkey({ action: 'cancel', at: 0 });
  assert.deepEqual(calls, []);
  await dictation.hotkey({ action: 'start', at: Date.now() });
  assert.equal(appStore.getState().session.phase, 'live');
  await dictation.hotkey({ action: 'start', at: Date.now() });
  assert.deepEqual(calls, ['dictation:start'], 'a second start while live is not a second session');
  await dictation.hotkey({ action: 'cancel', at: Date.now() });
  assert.deepEqual(calls, ['dictation:start', 'dictation:cancel']);
  assert.equal(appStore.getState().session.phase, 'idle');
});

test('toggle (the toggle-mode shortcut): starts when idle, stops when live, by the window\'s own state', async () => {
  const calls = install();
  const { dictation } = controller();
  await Promise.all([dictation.hotkey({ action: 'toggle', at: Date.now() }), dictation.hotkey({ action: 'toggle', at: Date.now() })]);
  assert.deepEqual(calls, ['dictation:start', 'dictation:stop']);
  assert.equal(appStore.getState().session.phase, 'idle');
});

test('press → first text → inserted is measured from the key-down time main sent', async () => {
  install();
  const { dictation } = controller();
  const keyDown = Date.now() - 250; // the key hook saw the key 250 ms ago
  await dictation.hotkey({ action: 'start', at: keyDown });
  const k0 = appStore.getState().session.keyLatency;
  assert.equal(k0?.source, 'hotkey');
  assert.equal(k0?.sessionId, 's1');
  actions.transcriptReceived({ sessionId: 's1', segmentId: 0, kind: 'partial', text: 'hel', words: [], start: 0, end: 1, devicesRan: [] });
  const first = appStore.getState().session.keyLatency?.firstTextMs;
  assert.ok(first !== null && first !== undefined && first >= 250 && first < 2000, String(first));
  actions.transcriptReceived({ sessionId: 's1', segmentId: 0, kind: 'partial', text: 'hello', words: [], start: 0, end: 1, devicesRan: [] });
  assert.equal(appStore.getState().session.keyLatency?.firstTextMs, first, 'only the first text counts');
  const delivery = { segmentId: 0, ms: 40, method: 'pasted' as const, confirmed: true };
  actions.textInserted({ ...delivery, sessionId: 's1', at: keyDown + 5, chars: 3, method: 'copied' });
  assert.equal(appStore.getState().session.keyLatency?.insertedMs, null, 'only copied: not in the other app yet');
  actions.textInserted({ ...delivery, sessionId: 's0', at: keyDown + 10, chars: 3 });
  assert.equal(appStore.getState().session.keyLatency?.insertedMs, null, 'another session\'s insertion');
  actions.textInserted({ ...delivery, sessionId: 's1', at: keyDown + 900, chars: 5 });
  assert.equal(appStore.getState().session.keyLatency?.insertedMs, 900);
});

test('the key-latency reducers: empty text and other sessions do not count', () => {
  let k = attachSession(pressed(1000, 'key'), 's4');
  assert.equal(attachSession(k, 's5')?.sessionId, 's4', 'the first session keeps it');
  k = textArrived(k, { sessionId: 's4', text: '  ' }, 1100);
  assert.equal(k?.firstTextMs, null);
  k = textArrived(k, { sessionId: 's5', text: 'x' }, 1100);
  assert.equal(k?.firstTextMs, null);
  k = textArrived(k, { sessionId: 's4', text: 'x' }, 1420);
  assert.equal(k?.firstTextMs, 420);
  assert.equal(textInserted(k, { sessionId: 's4', at: 1600 })?.insertedMs, 600);
  assert.equal(textArrived(null, { sessionId: 's4', text: 'x' }, 1), null);
});

test('cues: none by default; with sounds on, a start tone once capture runs and a stop tone', async () => {
  install();
  const { dictation, cues } = controller();
  await dictation.hotkey({ action: 'start', at: Date.now() });
  await dictation.hotkey({ action: 'stop', at: Date.now() });
  assert.deepEqual(cues, []);
  withSettings((s) => (s.desktop.sounds = true));
  await dictation.hotkey({ action: 'start', at: Date.now() });
  assert.deepEqual(cues, ['start']);
  await dictation.hotkey({ action: 'stop', at: Date.now() });
  assert.deepEqual(cues, ['start', 'stop']);
});

test('the cue tones: short, quiet, start rises and stop falls', () => {
  for (const cue of ['start', 'stop'] as const) {
    const tones = CUE_TONES[cue];
    const end = Math.max(...tones.map((t) => t.at + t.duration));
    assert.ok(end <= 0.2, `${cue} lasts ${end} s`);
  }
  assert.ok(CUE_TONES.start[1]!.frequency > CUE_TONES.start[0]!.frequency);
  assert.ok(CUE_TONES.stop[1]!.frequency < CUE_TONES.stop[0]!.frequency);
  assert.ok(CUE_GAIN <= 0.2);
});

test('web mode hold-to-talk: a machine only for the hold modes in a browser page', () => {
  const hotkey = { ...defaultSettings().hotkey, mode: 'push-to-talk' as const, hold: 'RightCtrl' };
  assert.equal(holdMachineFor('web', { ...hotkey, mode: 'toggle' }), null, 'toggle: Ctrl+Shift+Space as before');
  assert.equal(holdMachineFor('electron', hotkey), null, 'the desktop app hears the key through its global hook');
  assert.equal(holdMachineFor('web', { ...hotkey, hold: 'nonsense' }), null);
  const m = holdMachineFor('web', hotkey);
  assert.ok(m);
  assert.deepEqual(m.machine.keyDown('ControlRight', 10).map((a) => a.type), ['start']);
  assert.deepEqual(m.machine.keyUp('ControlRight', 900).map((a) => a.type), ['stop']);
  assert.deepEqual(m.machine.keyDown('ControlRight', 1000).map((a) => a.type), ['start']);
  assert.deepEqual(m.machine.releaseAll(1500).map((a) => a.type), ['stop'], 'the page lost the focus while the key was held');
});

test('Settings form: the hold key and tap time are checked as typed, held back alone, and main\'s refusals find them', () => {
  const saved = defaultSettings();
  const draft: Settings = { ...saved, hotkey: { ...saved.hotkey, mode: 'hybrid', hold: 'Q', tapMs: 5 } };
  const errors = fieldErrors(draft);
  assert.match(errors['set-hold-key'] ?? '', /This key needs a modifier/);
  assert.match(errors['set-tap-ms'] ?? '', /Must be from 100 to 1000 ms; 5 is out of range/);
  const sent = validPart(saved, draft, errors);
  assert.deepEqual(sent.hotkey, { ...saved.hotkey, mode: 'hybrid' }, 'the valid mode is saved, the bad fields are not');
  assert.deepEqual(fieldErrors({ ...saved, hotkey: { ...saved.hotkey, hold: 'Ctrl+Shift+Space' } }), {});
  assert.equal(fieldOfServerError('settings:set: payload.hotkey.hold: "A" needs a modifier'), 'set-hold-key');
  assert.equal(fieldOfServerError('settings:set: payload.hotkey.tapMs: must be between'), 'set-tap-ms');
});
