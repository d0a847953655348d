// The session manager and a dictation session against a stand-in engine
// whose decodes can be held: cancel or shutdown while a stop drains or
// finalizes, stop/cancel by another client, non-finite samples, and what a
// session keeps per segment once its final is out.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { test } from 'node:test';
import type { EventMap, SessionState } from '../../../app/ipc/contract.js';
import type { DecodePriority, EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import type { EngineTranscribeOptions, EngineTranscript } from '../../../app/engine-process/protocol.js';
import { EventBus } from '../../../app/main/events.js';
import { nullLogger, type Logger } from '../../../app/main/log.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import { SessionManager, type SessionEngine, type SessionObserver } from '../../../app/main/sessions/session-manager.js';
import { REAL_TIME_SLACK_SEC } from '../../../app/main/sessions/session.js';
import { SettingsStore } from '../../../app/main/settings.js';
import type { ModelInfo } from '../../../native/index.js';
import { RATE, concat, frames, quiet, speechLike } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

function transcript(text: string): EngineTranscript {
  return {
    text, words: [], tokens: [], durationSec: 0, decoder: 'tdt', device: 'CPU', devicesRan: ['CPU'],
    timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, windows: [], threadsUsed: 1, phrasesFired: [], phrasesRejected: [],
  };
}

function abortedError(): Error {
  return Object.assign(new Error('cancelled'), { code: 'ABORTED' });
}

/** Decodes at once, or — while held — once released (aborts reject, like the engine's). */
class FakeEngine extends TypedEmitter<EngineHostEvents> implements SessionEngine {
  loadedModel: ModelInfo | null = { name: 'fake' } as unknown as ModelInfo;
  readonly decodes: DecodePriority[] = [];
  private gate: { promise: Promise<void>; open: () => void } | null = null;

  hold(): void {
    let open = (): void => undefined;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.gate = { promise, open };
  }

  release(): void {
    this.gate?.open();
    this.gate = null;
  }

  async transcribe(
    pcm: Float32Array,
    _options: EngineTranscribeOptions,
    how: { priority: DecodePriority; skipIfBusy?: boolean; signal?: AbortSignal },
  ): Promise<EngineTranscript | null> {
    if (how.skipIfBusy && this.gate) return null; // busy: a partial is skipped, as the host does
    if (how.signal?.aborted) throw abortedError();
    this.decodes.push(how.priority);
    const gate = this.gate;
    if (gate) {
      await new Promise<void>((resolve, reject) => {
        how.signal?.addEventListener('abort', () => reject(abortedError()), { once: true });
        void gate.promise.then(resolve);
      });
    }
    return transcript(`${how.priority} of ${pcm.length} samples`);
  }
}

interface Harness {
  manager: SessionManager;
  /** What the session observer was told, in order. */
  observed: string[];
  engine: FakeEngine;
  states(sessionId: string): SessionState[];
  events: { event: keyof EventMap; data: unknown }[];
  warnings: string[];
}

async function harness(label: string, observerThrows = false, keep: { retainAudio: boolean; spillDir?: string } = { retainAudio: true }): Promise<Harness> {
  const settings = await SettingsStore.open(scratch(label), nullLogger);
  const bus = new EventBus();
  const events: { event: keyof EventMap; data: unknown }[] = [];
  bus.onAny((event, data) => events.push({ event, data }));
  const warnings: string[] = [];
  const log: Logger = { ...nullLogger, warn: (message) => warnings.push(message), child: () => log };
  const engine = new FakeEngine();
  const observed: string[] = [];
  const note = (what: string): void => {
    observed.push(what);
    if (observerThrows) throw new Error('observer bug');
  };
  const observer: SessionObserver = {
    sessionStarted: (id) => note(`start ${id}`),
    sessionFinal: (t) => note(`final ${t.sessionId}#${t.segmentId}`),
    sessionEnded: (id, audioSeconds) => note(`end ${id} ${audioSeconds === null ? 'null' : audioSeconds.toFixed(2)}`),
  };
  const manager = new SessionManager({ engine, bus, settings, log, ...keep, observer });
  const states = (sessionId: string): SessionState[] =>
    events
      .filter((e) => e.event === 'dictation:state' && (e.data as EventMap['dictation:state']).sessionId === sessionId)
      .map((e) => (e.data as EventMap['dictation:state']).state)
      .filter((s, i, all) => i === 0 || s !== all[i - 1]);
  return { manager, observed, engine, states, events, warnings };
}

/** Feeds audio in 40 ms frames with their sample index, letting decodes run between frames. */
async function feed(h: Harness, sessionId: string, audio: Float32Array, owner = 'a', from = 0): Promise<number> {
  let position = from;
  for (const frame of frames(audio, 640)) {
    assert.equal(h.manager.pushAudio(sessionId, frame, owner, position), true);
    position += frame.length;
    await tick();
  }
  return position;
}

const phrase = (): Float32Array => concat(quiet(0.5, 1), speechLike(1.0, 2));

test('cancel while a stop finalizes: the stop finishes with its text, the session stops once', async () => {
  const h = await harness('cancel-finalizing');
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  await feed(h, sessionId, phrase());
  h.engine.hold();
  const stopping = h.manager.stop(sessionId, 'a');
  await tick();
  assert.equal(h.states(sessionId).at(-1), 'finalizing');
  const cancelling = h.manager.cancel(sessionId, 'a');
  await tick();
  h.engine.release();
  const summary = await stopping;
  await cancelling;
  assert.equal(summary.segments.length, 1, 'the open segment got its final');
  assert.match(summary.segments[0]!.text, /final/);
  assert.deepEqual(h.states(sessionId).slice(-2), ['finalizing', 'stopped']);
  assert.equal(h.states(sessionId).filter((s) => s === 'stopped').length, 1);
  assert.deepEqual(await h.manager.summary(sessionId), summary, 'the summary is kept for a reconnecting client');
});

test('cancel while a stop drains audio in flight: no INTERNAL, the stop ends normally', async () => {
  const h = await harness('cancel-draining');
  const audio = phrase();
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  const head = audio.subarray(0, audio.length - 3200);
  const sent = await feed(h, sessionId, head);
  const stopping = h.manager.stop(sessionId, 'a', audio.length);
  const cancelling = h.manager.cancel(sessionId, 'a');
  await tick();
  await feed(h, sessionId, audio.subarray(head.length), 'a', sent); // the frames that were still on their way
  const summary = await stopping;
  await cancelling;
  assert.equal(summary.latency.samplesReceived, audio.length);
  assert.equal(summary.segments.at(-1)?.endSample, audio.length);
  assert.equal(h.states(sessionId).filter((s) => s === 'stopped').length, 1);
});

test('shutdown during a stop: the stop fails with ABORTED at once (draining or finalizing), nothing is read after', async () => {
  for (const phase of ['draining', 'finalizing'] as const) {
    const h = await harness(`dispose-${phase}`);
    const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
    const audio = phrase();
    await feed(h, sessionId, audio);
    h.engine.hold();
    const t0 = performance.now();
    const stopping = h.manager.stop(sessionId, 'a', phase === 'draining' ? audio.length + 16_000 : undefined);
    const outcome = stopping.then(() => 'resolved', (e: { code?: string }) => e.code ?? 'no code');
    await tick();
    await h.manager.dispose();
    assert.equal(await outcome, 'ABORTED', phase);
    assert.ok(performance.now() - t0 < 900, `${phase}: did not wait for the drain timeout`);
    h.engine.release();
    await tick();
    assert.equal(h.states(sessionId).filter((s) => s === 'stopped').length, 1, `${phase}: ${h.states(sessionId).join(',')}`);
    const finals = h.events.filter((e) => e.event === 'dictation:transcript' && (e.data as EventMap['dictation:transcript']).kind === 'final');
    assert.equal(finals.length, 0, 'nothing is emitted after the abort');
  }
});

test('only the owner may stop or cancel a session; others get SESSION_NOT_FOUND; anyone may read the summary', async () => {
  const h = await harness('owner');
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  await feed(h, sessionId, phrase());
  const missing = await h.manager.stop('s999', 'b').catch((e: Error & { code?: string }) => e);
  for (const attempt of [h.manager.stop(sessionId, 'b'), h.manager.cancel(sessionId, 'b')]) {
    const error = await attempt.then(() => null, (e: Error & { code?: string }) => e);
    assert.equal(error?.code, 'SESSION_NOT_FOUND');
    assert.equal(error?.message, (missing as Error).message.replace('s999', sessionId), 'the same answer as for a missing session');
  }
  assert.equal(h.manager.pushAudio(sessionId, new Float32Array(640), 'a'), true, 'the session still runs');
  assert.equal((await h.manager.summary(sessionId)).sessionId, sessionId, 'another client may read it');
  const summary = await h.manager.stop(sessionId, 'a');
  assert.equal(summary.segments.length, 1);
  assert.equal((await h.manager.summary(sessionId)).sessionId, sessionId);
});

test('non-finite samples become silence, are counted and logged once', async () => {
  const h = await harness('nonfinite');
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  const audio = phrase();
  const sent = audio.slice();
  sent[100] = Number.NaN;
  sent[5000] = Number.POSITIVE_INFINITY;
  sent[RATE + 7] = Number.NEGATIVE_INFINITY;
  await feed(h, sessionId, sent);
  assert.ok(Number.isNaN(sent[100]!), 'the sender\'s frame is not modified');
  const summary = await h.manager.stop(sessionId, 'a');
  assert.equal(summary.latency.nonFiniteSamples, 3);
  assert.equal(summary.latency.sampleGaps, 0);
  const kept = await h.manager.get(sessionId)!.audio();
  const expected = audio.slice();
  expected[100] = 0;
  expected[5000] = 0;
  expected[RATE + 7] = 0;
  assert.deepEqual(kept, expected);
  assert.equal(h.warnings.filter((w) => /non-finite/.test(w)).length, 1);
  assert.equal(summary.segments.length, 1, 'the VAD still found the phrase');
});

test('a segment releases its decode results once its final is out', async () => {
  const h = await harness('release');
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  const session = h.manager.get(sessionId)!;
  let peak = 0;
  let position = 0;
  for (let i = 0; i < 6; i += 1) {
    // Each pause closes the previous phrase (its final goes out); each phrase is open when measured.
    position = await feed(h, sessionId, concat(quiet(1.0, 20 + i), speechLike(1.0, 10 + i)), 'a', position);
    peak = Math.max(peak, session.segmentsHoldingResults);
  }
  await feed(h, sessionId, quiet(1.0, 30), 'a', position);
  const summary = await h.manager.stop(sessionId, 'a');
  assert.equal(summary.segments.length, 6);
  assert.ok(h.engine.decodes.includes('partial'), 'partial text was decoded');
  assert.ok(peak <= 1, `at most the open segment holds results (${peak})`);
  assert.equal(session.segmentsHoldingResults, 0);
});

test('the observer (history) sees each start, every final as emitted, and the end: stop, cancel, shutdown; its errors stay its own', async () => {
  const h = await harness('observer');
  const first = h.manager.start({ sampleRate: RATE }, 'a').sessionId;
  await feed(h, first, concat(phrase(), quiet(1, 3), speechLike(1, 4)));
  const summary = await h.manager.stop(first, 'a');
  assert.deepEqual(h.observed, [`start ${first}`, `final ${first}#0`, `final ${first}#1`, `end ${first} ${summary.audioSeconds.toFixed(2)}`]);

  h.observed.length = 0;
  const second = h.manager.start({ sampleRate: RATE }, 'a').sessionId;
  await feed(h, second, concat(phrase(), quiet(1, 3)));
  await h.manager.cancel(second, 'a');
  const third = h.manager.start({ sampleRate: RATE }, 'a').sessionId;
  await h.manager.dispose();
  assert.deepEqual(h.observed, [`start ${second}`, `final ${second}#0`, `end ${second} null`, `start ${third}`, `end ${third} null`]);

  const broken = await harness('observer-throws', true);
  const id = broken.manager.start({ sampleRate: RATE }, 'a').sessionId;
  await feed(broken, id, concat(phrase(), quiet(1, 3)));
  const text = await broken.manager.stop(id, 'a');
  assert.equal(text.segments.length, 1, 'the session ran and stopped as usual');
});

test('live text held up by a long engine job: the session says by what, and clears it once a partial gets through', async () => {
  const h = await harness('delayed-by');
  let held: string | null = 'checking a model file';
  (h.engine as FakeEngine & { liveHeldBy: () => string | null }).liveHeldBy = () => held;
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  h.engine.hold();
  let at = await feed(h, sessionId, concat(quiet(0.5, 1), speechLike(1.0, 2)));
  const delays = (): (string | null)[] => h.events
    .filter((e) => e.event === 'dictation:state' && (e.data as EventMap['dictation:state']).sessionId === sessionId)
    .map((e) => (e.data as EventMap['dictation:state']).delayedBy ?? null);
  assert.ok(delays().includes('checking a model file'), 'the client is told why live text is late');
  held = null;
  h.engine.release();
  await new Promise((r) => setTimeout(r, 400));
  at = await feed(h, sessionId, speechLike(1.0, 3), 'a', at);
  await new Promise((r) => setTimeout(r, 400));
  await feed(h, sessionId, speechLike(0.5, 4), 'a', at);
  assert.equal(delays().at(-1), null, 'cleared once decodes get through');
  await h.manager.stop(sessionId, 'a');
});

test('audio sent faster than real time: at most REAL_TIME_SLACK_SEC ahead of the clock is taken, the rest refused and told once; memory and disk stay bounded, freed at stop', async () => {
  const spillDir = scratch('fast-spill');
  const h = await harness('fast', false, { retainAudio: false, spillDir });
  const t0 = performance.now();
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  const session = h.manager.get(sessionId)!;
  const phrase = concat(quiet(1.0, 1), speechLike(1.0, 2));
  let accepted = 0;
  let refused = 0;
  let position = 0;
  let peakMemory = 0;
  // Over ten minutes of phrases and pauses, sent as fast as the event loop goes (decodes run in between).
  for (let i = 0; i < 400; i += 1) {
    for (const frame of frames(phrase, 640)) {
      if (h.manager.pushAudio(sessionId, frame, 'a', position)) accepted += frame.length;
      else refused += frame.length;
      position += frame.length;
    }
    peakMemory = Math.max(peakMemory, session.audioMemoryBytes);
    await tick();
  }
  const elapsedSec = (performance.now() - t0) / 1000;
  assert.ok(accepted / RATE <= elapsedSec + REAL_TIME_SLACK_SEC, `${accepted / RATE} s taken in ${elapsedSec.toFixed(1)} s`);
  assert.ok(refused / RATE >= 800 - elapsedSec - REAL_TIME_SLACK_SEC - 1, `${refused / RATE} s refused`);
  const notices = h.events
    .filter((e) => e.event === 'dictation:state' && (e.data as EventMap['dictation:state']).notice?.code === 'AUDIO_TOO_FAST')
    .map((e) => (e.data as EventMap['dictation:state']).notice!.message);
  assert.equal(notices.length, 1, 'told once');
  assert.match(notices[0]!, /faster than real time.*refused.*Files/);
  // The open segment, its pre-roll and the chunk being filled (4 s chunks): nothing of the audio behind.
  assert.ok(peakMemory <= 3 * 64_000 * 4, `memory held the audio no decode needs: ${peakMemory} bytes`);
  assert.deepEqual(readdirSync(spillDir), [], 'a dictation that keeps no audio writes none to disk');
  await h.manager.stop(sessionId, 'a', position);
  assert.equal(session.audioMemoryBytes, 0, 'freed at stop');
});

test('"final after end of speech" counts from the last voiced frame, not from the pause decision (issue 44 item 6)', async () => {
  const h = await harness('final-latency');
  const { pauseMs } = (await SettingsStore.open(scratch('final-latency-settings'), nullLogger)).get().dictation;
  const { sessionId } = h.manager.start({ sampleRate: RATE }, 'a');
  // Frames at the pace a microphone sends them (40 ms each): the pause is only decided pauseMs after the
  // last voiced frame arrived, so the final cannot be sooner than that after the end of speech.
  let position = 0;
  for (const frame of frames(concat(quiet(0.3, 3), speechLike(0.8, 4), quiet(pauseMs / 1000 + 0.6, 5)), 640)) {
    h.manager.pushAudio(sessionId, frame, 'a', position);
    position += frame.length;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  const summary = await h.manager.stop(sessionId, 'a');
  assert.equal(summary.segments.length, 1);
  const finalMs = summary.latency.finalMs;
  assert.ok(finalMs !== null && finalMs >= pauseMs * 0.9, `final ${finalMs} ms after the end of speech; the pause alone is ${pauseMs} ms`);
});
