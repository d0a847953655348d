// The dictation controller with a stand-in microphone and a fake main
// process: the microphone closing while dictation:start is in flight, and the
// interrupted-session report after a web-mode reconnect.
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { beforeEach, test } from 'node:test';
import type { ParakeetApi, Result } from '../../../app/ipc/contract.js';
import { DictationController } from '../../../renderer/audio/dictation-controller.js';
import type { MicHandle, MicOptions } from '../../../renderer/audio/mic-types.js';
import * as actions from '../../../renderer/store/actions.js';
import { setApi } from '../../../renderer/store/api.js';
import { appStore } from '../../../renderer/store/store.js';

class FakeMic implements MicHandle {
  readonly sampleRate = 16_000;
  readonly label = 'test microphone';
  closed = false;
  constructor(readonly options: MicOptions) {}
  flush(): Promise<void> {
    return Promise.resolve();
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

interface FakeMain {
  calls: { channel: string; payload: unknown }[];
  frames: { sessionId: string; samples: number }[];
  /** Answers per channel; a missing one answers ok(null). */
  answers: Map<string, (payload: unknown) => Promise<Result<unknown>>>;
}

function install(): FakeMain {
  const main: FakeMain = { calls: [], frames: [], answers: new Map() };
  const api = {
    mode: 'web',
    invoke: (async (channel: string, payload?: unknown) => {
      main.calls.push({ channel, payload });
      return (await main.answers.get(channel)?.(payload)) ?? { ok: true, value: null };
    }) as ParakeetApi['invoke'],
    on: () => () => undefined,
    sendAudio: (sessionId: string, frame: Float32Array) => {
      main.frames.push({ sessionId, samples: frame.length });
    },
  } satisfies ParakeetApi;
  setApi(api);
  return main;
}

function controller(): { dictation: DictationController; mics: FakeMic[] } {
  const mics: FakeMic[] = [];
  const dictation = new DictationController(async (options) => {
    const mic = new FakeMic(options);
    mics.push(mic);
    return mic;
  });
  return { dictation, mics };
}

const sessionInfo = (sessionId: string): Result<unknown> => ({ ok: true, value: { sessionId, sampleRate: 16_000 } });

beforeEach(() => actions.resetStore());

test('the microphone closes while dictation:start is in flight: the new session is cancelled, nothing streams', async () => {
  const main = install();
  let answerStart = (_r: Result<unknown>): void => undefined;
  main.answers.set('dictation:start', () => new Promise((resolve) => (answerStart = resolve)));
  const { dictation, mics } = controller();
  const starting = dictation.start();
  while (!main.calls.some((c) => c.channel === 'dictation:start')) await tick();
  mics[0]!.options.onEnded(); // unplugged while main creates the session
  await tick();
  assert.equal(mics[0]!.closed, true);
  answerStart(sessionInfo('s7'));
  await starting;
  assert.deepEqual(main.calls.filter((c) => c.channel === 'dictation:cancel').map((c) => c.payload), [{ sessionId: 's7' }]);
  assert.equal(appStore.getState().session.phase, 'idle');
  assert.equal(appStore.getState().session.sessionId, null);
  mics[0]!.options.onFrame(new Float32Array(640));
  assert.equal(main.frames.length, 0, 'no audio goes to the discarded session');
});

test('after a reconnect the interrupted session ends with its summary, and the audio lost meanwhile is reported', async () => {
  const main = install();
  main.answers.set('dictation:start', async () => sessionInfo('s3'));
  const summary = { sessionId: 's3', text: 'hello', segments: [], audioSeconds: 1, latency: { sessionId: 's3' } };
  main.answers.set('dictation:summary', async () => ({ ok: true, value: summary }));
  const { dictation, mics } = controller();
  await dictation.start();
  assert.equal(appStore.getState().session.phase, 'live');
  mics[0]!.options.onFrame(new Float32Array(640));
  assert.equal(main.frames.length, 1);

  const asked: string[] = [];
  await dictation.handleReconnect((sessionId) => {
    asked.push(sessionId);
    return { samples: 40_000 };
  });
  assert.deepEqual(asked, ['s3']);
  assert.deepEqual(main.calls.at(-1), { channel: 'dictation:summary', payload: { sessionId: 's3' } });
  const notice = appStore.getState().notices.items.find((n) => n.code === 'SESSION_INTERRUPTED');
  assert.ok(notice, 'the user is told');
  assert.match(notice.message, /2\.5 s of audio captured while disconnected could not be sent/);
  assert.equal(appStore.getState().session.phase, 'idle');
  assert.deepEqual(appStore.getState().session.lastSummary, summary);
  mics[0]!.options.onFrame(new Float32Array(640));
  assert.equal(main.frames.length, 1, 'the ended session gets no more audio');
});

test('five quick toggles are start, stop, start, stop, start: none is lost while a start or stop is in flight', async () => {
  const main = install();
  let n = 0;
  main.answers.set('dictation:start', async () => {
    await tick();
    return sessionInfo(`s${++n}`);
  });
  main.answers.set('dictation:stop', async (payload) => {
    await tick();
    const sessionId = (payload as { sessionId: string }).sessionId;
    return { ok: true, value: { sessionId, text: '', segments: [], audioSeconds: 0, latency: { sessionId } } };
  });
  const { dictation } = controller();
  const presses = [1, 2, 3, 4, 5].map(() => dictation.toggle());
  await Promise.all(presses);
  assert.deepEqual(main.calls.map((c) => c.channel).filter((c) => c === 'dictation:start' || c === 'dictation:stop'),
    ['dictation:start', 'dictation:stop', 'dictation:start', 'dictation:stop', 'dictation:start']);
  assert.equal(appStore.getState().session.phase, 'live');
});

test('Esc (cancel) takes the session\'s tentative text off the screen; its finals stay', async () => {
  const main = install();
  main.answers.set('dictation:start', async () => sessionInfo('s9'));
  const { dictation } = controller();
  await dictation.start();
  const ev = { sessionId: 's9', segmentId: 0, text: 'hello', start: 0, end: 1, devicesRan: ['CPU'] };
  actions.transcriptReceived({ ...ev, kind: 'final' } as never);
  actions.transcriptReceived({ ...ev, segmentId: 1, text: 'tentat', kind: 'partial' } as never);
  assert.equal(appStore.getState().transcript.partial?.text, 'tentat');
  await dictation.cancel();
  assert.equal(appStore.getState().transcript.partial, null);
  assert.equal(appStore.getState().transcript.finals.length, 1);
  assert.equal(main.calls.some((c) => c.channel === 'dictation:cancel'), true);
});
