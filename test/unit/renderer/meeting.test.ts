// The Meeting view's store and controller: finals of the two tracks shown in time order, events of other
// meetings ignored; start → microphone frames on the meeting's stream with positions → stop with the
// count sent; a microphone that cannot open is named while the meeting goes on; a refused start says why.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { HistoryEntry, MeetingCurrent, MeetingFinal, MeetingInfo, MeetingPartial, MeetingSummary, ParakeetApi, Result } from '../../../app/ipc/contract.js';
import { DEFAULT_SETTINGS } from '../../../app/ipc/settings.js';
import { MicError, type MicHandle, type MicOptions } from '../../../renderer/audio/mic-types.js';
import { MeetingController } from '../../../renderer/meeting/meeting-controller.js';
import { applyFinal, applyPartial, initialMeeting, meetingStore, started } from '../../../renderer/meeting/meeting-store.js';

const INFO: MeetingInfo = {
  meetingId: 'm1', entryId: '20261201-140000-abcdef', micStreamId: 's1000000001', othersStreamId: null, startedAt: '2026-12-01T14:00:00.000Z',
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
  const listeners: Record<string, ((data: unknown) => void)[]> = {};
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
    on: (event: string, listener: (data: unknown) => void) => {
      (listeners[event] ??= []).push(listener);
      return () => undefined;
    },
    sendAudio: (stream: string, frame: Float32Array, start?: number) => sent.push({ stream, n: frame.length, start }),
  } as unknown as ParakeetApi;
  const controller = new MeetingController({ api: () => api, openMic, audio: () => DEFAULT_SETTINGS.audio });
  controller.subscribe(api);
  const emit = (event: string, data: unknown): void => {
    for (const listener of listeners[event] ?? []) listener(data);
  };
  return { controller, invokes, sent, replies, emit };
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

test('a meeting file that cannot be written is said in the Meeting view while it records (the notice also goes to the header)', async () => {
  const { controller, emit } = fakes(async (opts) => ({ sampleRate: 16000, label: 'mic', flush: async () => opts.onFrame(new Float32Array(0)), close: async () => undefined }));
  emit('notice', { level: 'warning', code: 'HISTORY_WRITE_FAILED', message: 'Not recording: ignored.' });
  assert.equal(meetingStore.getState().error, null, 'no meeting, nothing shown in its view');
  await controller.start();
  emit('notice', { level: 'warning', code: 'ENGINE_RESTARTED', message: 'The engine restarted.' });
  assert.equal(meetingStore.getState().error, null, 'other notices stay in the header');
  emit('notice', { level: 'error', code: 'HISTORY_WRITE_FAILED', message: 'The meeting\'s audio (You) could not be saved (the disk is full).', action: 'Free some disk space.' });
  assert.equal(meetingStore.getState().error, 'The meeting\'s audio (You) could not be saved (the disk is full). Free some disk space.');
});

test('a refused start shows main\'s reason and leaves the view idle', async () => {
  const { controller, replies } = fakes(async () => assert.fail('no microphone without a meeting'));
  replies['meeting:start'] = { ok: false, error: { code: 'BUSY', message: 'A meeting is already being recorded.' } };
  await controller.start();
  assert.equal(meetingStore.getState().phase, 'idle');
  assert.equal(meetingStore.getState().error, 'A meeting is already being recorded.');
});

const partial = (track: 'you' | 'others', trackSegment: number, text: string): MeetingPartial => ({
  meetingId: 'm1', track, speaker: track === 'you' ? 'You' : 'Others', trackSegment, start: trackSegment * 3, text,
});

test('partials per track: each track shows its own text in progress, replaced by its final; a late partial of a finished segment is not shown', () => {
  let s = started(INFO);
  s = applyPartial(s, partial('you', 0, 'five'));
  s = applyPartial(s, partial('others', 0, 'seven one'));
  s = applyPartial(s, partial('you', 0, 'five five'));
  assert.deepEqual([s.partials.you?.text, s.partials.others?.text], ['five five', 'seven one']);
  s = applyFinal(s, { ...final('you', 0.5, 'five five eight'), trackSegment: 0 });
  assert.equal(s.partials.you, null, 'the final replaced the You partial');
  assert.equal(s.partials.others?.text, 'seven one', 'the Others partial stays until its own final');
  s = applyPartial(s, partial('you', 0, 'five five eig'));
  assert.equal(s.partials.you, null, 'a partial arriving after its final is dropped');
  s = applyPartial(s, partial('you', 1, 'oh'));
  s = applyFinal(s, { ...final('others', 0.2, 'seven one three'), trackSegment: 0 });
  assert.deepEqual([s.partials.you?.text, s.partials.others], ['oh', null]);
  s = applyPartial(s, partial('you', 1, 'oh oh'));
  s = applyPartial({ ...s }, { ...partial('you', 2, 'x'), meetingId: 'm2' });
  assert.equal(s.partials.you?.text, 'oh oh', 'other meetings\' partials are ignored');
  s = applyFinal(s, { ...final('you', 4, ''), trackSegment: 1 });
  assert.equal(s.partials.you, null, 'an empty final clears its partial too');
});

test('a page loaded while a meeting records takes it over: attach, the transcript so far from History (shown once), the microphone on the new stream from 0', async () => {
  const attachedInfo: MeetingInfo = { ...INFO, micStreamId: 's1000000003', sources: INFO.sources.map((x) => (x.track === 'you' ? { ...x, state: 'interrupted' as const, reason: 'away' } : x)) };
  const current: MeetingCurrent = { info: { ...INFO, micStreamId: null }, state: 'recording', elapsedSec: 42, micDetached: true };
  const entry = {
    id: INFO.entryId, kind: 'meeting', live: true,
    segments: [
      { segmentId: 0, start: 1, end: 2, text: 'five five', devicesRan: [], words: [], speaker: 'You' },
      { segmentId: 1, start: 1.5, end: 3, text: 'zero four', devicesRan: [], words: [], speaker: 'Others' },
    ],
    markers: [{ at: 10, text: 'The microphone was interrupted from 00:10 to 00:14 (the page was reloaded or crashed); the recording holds silence there.' }],
  } as unknown as HistoryEntry;
  let onFrame: ((f: Float32Array) => void) | null = null;
  const { controller, invokes, sent, replies } = fakes(async (opts) => {
    onFrame = opts.onFrame;
    return { sampleRate: 16000, label: 'test mic', flush: async () => undefined, close: async () => undefined };
  });
  replies['meeting:current'] = { ok: true, value: current };
  replies['meeting:attach'] = { ok: true, value: attachedInfo };
  replies['history:get'] = { ok: true, value: entry };
  await controller.resume();
  assert.deepEqual(invokes.map((i) => i.channel), ['meeting:current', 'meeting:attach', 'history:get']);
  assert.deepEqual(invokes[1]!.payload, { meetingId: 'm1' });
  const s = meetingStore.getState();
  assert.equal(s.phase, 'recording');
  assert.equal(s.elapsedSec, 42);
  assert.deepEqual(s.finals.map((f) => [f.track, f.text]), [['you', 'five five'], ['others', 'zero four']]);
  assert.equal(s.markers.length, 1);
  // The same final arriving as an event after the read is not shown twice.
  meetingStore.setState((x) => applyFinal(x, { ...final('you', 1, 'five five'), segmentId: 0 }));
  assert.equal(meetingStore.getState().finals.length, 2);
  onFrame!(new Float32Array(640));
  assert.deepEqual(sent, [{ stream: 's1000000003', n: 640, start: 0 }]);

  // Nothing to take over: a meeting still owned by another page, or none.
  const other = fakes(async () => assert.fail('no microphone'));
  meetingStore.setState(initialMeeting, true);
  other.replies['meeting:current'] = { ok: true, value: { ...current, micDetached: false } };
  await other.controller.resume();
  assert.deepEqual(other.invokes.map((i) => i.channel), ['meeting:current']);
  assert.equal(meetingStore.getState().phase, 'idle');
});
