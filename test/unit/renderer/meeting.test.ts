// The Meeting view's store and controller: finals of the two tracks shown in time order, events of other
// meetings ignored; start → microphone frames on the meeting's stream with positions → stop with the
// count sent; a microphone that cannot open is named while the meeting goes on; a refused start says why.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { MeetingFinal, MeetingInfo, MeetingSummary, ParakeetApi, Result } from '../../../app/ipc/contract.js';
import { DEFAULT_SETTINGS } from '../../../app/ipc/settings.js';
import { MicError, type MicHandle, type MicOptions } from '../../../renderer/audio/mic-types.js';
import { MeetingController } from '../../../renderer/meeting/meeting-controller.js';
import { applyFinal, initialMeeting, meetingStore, started } from '../../../renderer/meeting/meeting-store.js';

const INFO: MeetingInfo = {
  meetingId: 'm1', entryId: '20261201-140000-abcdef', micStreamId: 's1000000001', startedAt: '2026-12-01T14:00:00.000Z',
  sources: [
    { track: 'you', speaker: 'You', state: 'recording', reason: null, action: null },
    { track: 'others', speaker: 'Others', state: 'recording', reason: null, action: null },
  ],
};
const final = (track: 'you' | 'others', start: number, text: string, meetingId = 'm1'): MeetingFinal => ({
  meetingId, track, speaker: track === 'you' ? 'You' : 'Others', segmentId: Math.round(start), start, end: start + 1, text, words: [], devicesRan: [],
});

beforeEach(() => meetingStore.setState(initialMeeting, true));

test('finals of both tracks are kept by start time; empty ones and other meetings\' are not shown', () => {
  let s = started(INFO);
  for (const f of [final('you', 5, 'five'), final('others', 2, 'two'), final('you', 9, ''), final('others', 7, 'seven'), final('you', 1, 'x', 'm2')]) s = applyFinal(s, f);
  assert.deepEqual(s.finals.map((f) => [f.speaker, f.text]), [['Others', 'two'], ['You', 'five'], ['Others', 'seven']]);
});

function fakes(openMic: (opts: MicOptions) => Promise<MicHandle>) {
  const invokes: { channel: string; payload: unknown }[] = [];
  const sent: { stream: string; n: number; start?: number }[] = [];
  const replies: Record<string, Result<unknown>> = {
    'meeting:start': { ok: true, value: INFO },
    'meeting:stop': { ok: true, value: { meetingId: 'm1', entryId: INFO.entryId, durationSec: 3, finals: 2, tracks: [] } satisfies MeetingSummary },
  };
  const api = {
    mode: 'web',
    invoke: async (channel: string, payload?: unknown) => {
      invokes.push({ channel, payload });
      return replies[channel];
    },
    on: () => () => undefined,
    sendAudio: (stream: string, frame: Float32Array, start?: number) => sent.push({ stream, n: frame.length, start }),
  } as unknown as ParakeetApi;
  const controller = new MeetingController({ api: () => api, openMic, audio: () => DEFAULT_SETTINGS.audio });
  return { controller, invokes, sent, replies };
}

test('start, microphone frames on the meeting stream with their positions, stop with the count sent', async () => {
  let onFrame: ((f: Float32Array) => void) | null = null;
  let closed = false;
  const { controller, invokes, sent } = fakes(async (opts) => {
    onFrame = opts.onFrame;
    return { sampleRate: 16000, label: 'test mic', flush: async () => opts.onFrame(new Float32Array(100)), close: async () => void (closed = true) };
  });
  await controller.start();
  assert.equal(meetingStore.getState().phase, 'recording');
  onFrame!(new Float32Array(640));
  onFrame!(new Float32Array(640));
  await controller.stop();
  assert.deepEqual(sent, [{ stream: 's1000000001', n: 640, start: 0 }, { stream: 's1000000001', n: 640, start: 640 }, { stream: 's1000000001', n: 100, start: 1280 }]);
  assert.ok(closed);
  assert.deepEqual(invokes.at(-1), { channel: 'meeting:stop', payload: { meetingId: 'm1', sentSamples: 1380 } });
  assert.equal(meetingStore.getState().phase, 'idle');
  assert.equal(meetingStore.getState().last?.finals, 2);
});

test('a microphone that cannot open: the You source says why and what to do; the meeting keeps recording', async () => {
  const { controller } = fakes(async () => {
    throw new MicError('PERMISSION_DENIED', 'Microphone access was denied.');
  });
  await controller.start();
  const s = meetingStore.getState();
  assert.equal(s.phase, 'recording');
  const you = s.sources.find((x) => x.track === 'you')!;
  assert.equal(you.state, 'unavailable');
  assert.match(you.reason!, /denied.*system audio keeps recording/);
  assert.match(you.action!, /permission/);
});

test('a refused start shows main\'s reason and leaves the view idle', async () => {
  const { controller, replies } = fakes(async () => assert.fail('no microphone without a meeting'));
  replies['meeting:start'] = { ok: false, error: { code: 'BUSY', message: 'A meeting is already being recorded.' } };
  await controller.start();
  assert.equal(meetingStore.getState().phase, 'idle');
  assert.equal(meetingStore.getState().error, 'A meeting is already being recorded.');
});
