// Live dictation through the real services (engine process, tiny generated
// model): speech-like bursts separated by pauses are segmented, partial text
// appears while a segment is open, finals come once per segment in order and
// never change, and the concatenated finals equal the offline transcription
// of exactly the same cut points. Stop mid-sentence finalizes it; samples are
// accounted exactly; the engine dying mid-session loses nothing.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { EventMap, EventName, SessionSummary, TranscriptEvent } from '../../app/ipc/contract.js';
import { withEngineTriggers } from '../support/engine-triggers.js';
import { createServices, type Services } from '../../app/main/services.js';
import { RATE, concat, frames, quiet, speechLike } from '../support/audio/signals.js';
import { tempDir, tinyModel, waitFor, writeTestSettings } from './helpers.js';

const dir = tempDir('dictation');
const modelPath = tinyModel(dir, 'tdt');
let services: Services;
const engine = withEngineTriggers();

before(async () => {
  writeTestSettings(dir, { dictation: { partialIntervalMs: 150 } });
  services = await createServices({
    userDataDir: dir,
    mode: 'web',
    engineMode: 'process',
    engineTransport: engine.transport,
    retainSessionAudio: true,
    // Sessions here play minutes of audio in seconds on purpose (memory, ordering); the real-time bound
    // a client meets has its own test (test/unit/app/sessions.test.ts).
    dictationRealTimeSlackSec: Number.POSITIVE_INFINITY,
    modelPath,
    modelEndpoint: 'https://127.0.0.1:9',
    logToStderr: process.env.PARAKEET_TEST_LOG === '1',
  });
  await services.ready;
  assert.equal(services.engine.loadedModel?.path, modelPath);
  assert.equal(services.engine.loadedModel?.threads, 1);
});
after(async () => {
  await services.dispose();
});

interface Recorded {
  events: { event: EventName; data: unknown }[];
  of<E extends EventName>(event: E): EventMap[E][];
  stop(): void;
}

function record(): Recorded {
  const events: { event: EventName; data: unknown }[] = [];
  const stop = services.bus.onAny((event, data) => events.push({ event, data }));
  return {
    events,
    of: <E extends EventName>(event: E) => events.filter((e) => e.event === event).map((e) => e.data as EventMap[E]),
    stop,
  };
}

/** Sends audio like the renderer: fixed frames with their sample index, at `speed`× real time (0 = as fast as possible). */
async function feed(sessionId: string, audio: Float32Array, opts: { frameMs?: number; speed?: number; from?: number; onFrame?: (i: number) => Promise<void> | void } = {}): Promise<number> {
  const frameSamples = Math.round(((opts.frameMs ?? 40) * RATE) / 1000);
  let position = opts.from ?? 0;
  let i = 0;
  for (const frame of frames(audio, frameSamples)) {
    assert.equal(services.sessions.pushAudio(sessionId, frame, 'test', position), true);
    position += frame.length;
    await opts.onFrame?.(i);
    i += 1;
    if (opts.speed) await sleep(frame.length / RATE / opts.speed * 1000);
    else await new Promise((r) => setImmediate(r));
  }
  return i;
}

/** Offline reference: the engine on exactly these samples. */
async function offline(audio: Float32Array, start: number, end: number): Promise<string> {
  const result = await services.engine.transcribe(audio.slice(start, end), { sampleRate: RATE }, { priority: 'final' });
  return result?.text.trim() ?? '';
}

async function checkInvariant(summary: SessionSummary, audio: Float32Array): Promise<void> {
  const expected: string[] = [];
  let previousEnd = 0;
  for (const segment of summary.segments) {
    assert.ok(segment.startSample !== undefined && segment.endSample !== undefined, 'sample-exact cut points are reported');
    assert.ok(segment.startSample >= previousEnd, 'segments never overlap');
    assert.equal(segment.start, segment.startSample / RATE);
    assert.equal(segment.end, segment.endSample / RATE);
    previousEnd = segment.endSample;
    const text = await offline(audio, segment.startSample, segment.endSample);
    assert.equal(segment.text, text, `segment ${segment.segmentId}: live final equals offline decode of the same cut`);
    expected.push(text);
  }
  assert.equal(summary.text, expected.filter(Boolean).join(' '));
}

function checkFinals(rec: Recorded, sessionId: string, summary: SessionSummary): TranscriptEvent[] {
  const mine = rec.of('dictation:transcript').filter((t) => t.sessionId === sessionId);
  const finals = mine.filter((t) => t.kind === 'final');
  assert.deepEqual(finals.map((f) => f.segmentId), finals.map((_, i) => i), 'one final per segment, emitted in segment order');
  assert.deepEqual(summary.segments, finals, 'the summary holds exactly the finals that were emitted (they never change)');
  for (const f of finals) {
    // No partial of a segment after its final.
    const lastEventOfSegment = mine.filter((t) => t.segmentId === f.segmentId).at(-1);
    assert.equal(lastEventOfSegment?.kind, 'final');
    for (const w of f.words) assert.ok(w.start >= f.start - 1e-9 && w.end <= f.end + 0.2, 'word times are session-relative');
  }
  return finals;
}

test('segments at pauses, partial text while speaking, finals once and in order, equal to the offline transcript of the same cuts', async () => {
  const audio = concat(quiet(0.6, 1), speechLike(1.6, 21), quiet(0.9, 2), speechLike(1.2, 22), quiet(0.9, 3), speechLike(1.0, 23), quiet(1.0, 4));
  const rec = record();
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  const sent = await feed(sessionId, audio, { frameMs: 40, speed: 2 });
  const summary = await services.sessions.stop(sessionId, 'test');
  rec.stop();

  assert.equal(summary.segments.length, 3, JSON.stringify(summary.segments.map((s) => [s.startSample, s.endSample])));
  const partials = rec.of('dictation:transcript').filter((t) => t.sessionId === sessionId && t.kind === 'partial');
  assert.ok(partials.length >= 1, `partial text appeared while a segment was open (${JSON.stringify(summary.latency)})`);
  checkFinals(rec, sessionId, summary);
  assert.ok(summary.segments.some((s) => s.text.length > 0));
  await checkInvariant(summary, audio);

  const latency = summary.latency;
  assert.equal(latency.framesReceived, sent);
  assert.equal(latency.samplesReceived, audio.length);
  assert.equal(latency.sampleGaps, 0);
  assert.ok(latency.micStartMs !== null && latency.micStartMs >= 0);
  assert.ok(latency.firstPartialMs !== null, 'first partial latency measured');
  assert.ok(latency.finalMs !== null && latency.meanFinalMs !== null);
  assert.equal(latency.finalDecodes, 3);
  const session = services.sessions.get(sessionId)!;
  assert.deepEqual(await session.audio(), audio, 'every sample kept, in order, none added');
  const states = rec.of('dictation:state').filter((s) => s.sessionId === sessionId).map((s) => s.state);
  for (const s of ['listening', 'speech', 'finalizing', 'stopped']) assert.ok(states.includes(s as never), `state ${s}`);
  console.log(`# first partial ${latency.firstPartialMs?.toFixed(0)} ms, final ${latency.meanFinalMs?.toFixed(0)} ms (mean), ` +
    `event loop p99 ${latency.eventLoopP99Ms?.toFixed(1)} ms, ${latency.partialDecodes} partial decodes (${latency.partialsSkipped} skipped)`);
});

test('stop mid-sentence finalizes that sentence (up to the last sample)', async () => {
  const audio = concat(quiet(0.5, 5), speechLike(1.0, 24), quiet(0.9, 6), speechLike(1.1, 25));
  const rec = record();
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  await feed(sessionId, audio);
  const summary = await services.sessions.stop(sessionId, 'test');
  rec.stop();
  assert.equal(summary.segments.length, 2);
  const last = summary.segments.at(-1)!;
  assert.equal(last.endSample, audio.length, 'the open segment was closed at the last sample');
  assert.ok(last.text.length > 0, 'and transcribed');
  checkFinals(rec, sessionId, summary);
  await checkInvariant(summary, audio);
});

test('stop waits for frames still in flight (sentSamples), so the last word is not cut', async () => {
  const audio = concat(quiet(0.5, 5), speechLike(1.2, 26));
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  const frameSamples = Math.round((40 * RATE) / 1000);
  const all = [...frames(audio, frameSamples)];
  const early = all.slice(0, all.length - 5);
  let position = 0;
  for (const frame of early) {
    services.sessions.pushAudio(sessionId, frame, 'test', position);
    position += frame.length;
  }
  // stop() is called before the last 5 frames arrive (they are still "on the port").
  const stopping = services.sessions.stop(sessionId, 'test', audio.length);
  await sleep(50);
  for (const frame of all.slice(early.length)) {
    assert.equal(services.sessions.pushAudio(sessionId, frame, 'test', position), true, 'frames in flight are still accepted');
    position += frame.length;
  }
  const summary = await stopping;
  assert.equal(summary.latency.samplesReceived, audio.length);
  assert.equal(summary.segments.at(-1)?.endSample, audio.length, 'the final covers every sample that was sent');
  // A client that reconnects later can still read what the session produced.
  assert.deepEqual(await services.sessions.summary(sessionId), summary);
  await checkInvariant(summary, audio);
  // After the drain, audio is refused.
  assert.equal(services.sessions.pushAudio(sessionId, new Float32Array(640), 'test', position), false);
});

test('stop gives up waiting for audio that never arrives (bounded wait)', async () => {
  const audio = concat(quiet(0.3, 5), speechLike(0.8, 27));
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  await feed(sessionId, audio);
  const t0 = performance.now();
  const summary = await services.sessions.stop(sessionId, 'test', audio.length + 16000);
  const waited = performance.now() - t0;
  assert.ok(waited >= 900 && waited < 5000, `waited ${waited.toFixed(0)} ms for missing audio`);
  assert.equal(summary.latency.samplesReceived, audio.length);
});

test('lost and repeated samples are counted exactly and the timeline is kept; other clients cannot inject audio', async () => {
  const audio = concat(quiet(0.4, 7), speechLike(0.8, 26), quiet(0.8, 8));
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  const parts = frames(audio, 640);
  let position = 0;
  let missing = 0;
  let repeated = 0;
  parts.forEach((frame, i) => {
    if (i === 5) missing += frame.length; // dropped on the way
    else services.sessions.pushAudio(sessionId, frame, 'test', position);
    if (i === 9) {
      services.sessions.pushAudio(sessionId, frame, 'test', position); // delivered twice
      repeated += frame.length;
    }
    position += frame.length;
  });
  assert.equal(services.sessions.pushAudio(sessionId, audio.slice(0, 640), 'intruder', position), false);
  const summary = await services.sessions.stop(sessionId, 'test');
  assert.equal(summary.latency.sampleGaps, missing + repeated);
  assert.equal(summary.audioSeconds, audio.length / RATE, 'the gap was filled with silence, the repeat dropped');
  const kept = await services.sessions.get(sessionId)!.audio();
  assert.deepEqual(kept.slice(0, 5 * 640), audio.slice(0, 5 * 640));
  assert.ok(kept.slice(5 * 640, 6 * 640).every((v) => v === 0));
  assert.deepEqual(kept.slice(6 * 640), audio.slice(6 * 640));
});

test('48 kHz input is resampled to 16 kHz and segmented the same way', async () => {
  const audio16 = concat(quiet(0.5, 9), speechLike(1.0, 27), quiet(1.0, 10));
  const audio48 = new Float32Array(audio16.length * 3);
  for (let i = 0; i < audio48.length; i += 1) audio48[i] = audio16[Math.floor(i / 3)]!; // sample-and-hold: content below 8 kHz survives
  const { sessionId } = services.sessions.start({ sampleRate: 48_000 }, 'test');
  const summary = await (async () => {
    let position = 0;
    for (const frame of frames(audio48, 1920)) {
      services.sessions.pushAudio(sessionId, frame, 'test', position);
      position += frame.length;
    }
    return services.sessions.stop(sessionId, 'test');
  })();
  assert.equal(summary.latency.samplesReceived, audio48.length);
  assert.equal(Math.round(summary.audioSeconds * RATE), audio16.length);
  assert.equal(summary.segments.length, 1);
  assert.ok(Math.abs(summary.segments[0]!.startSample! - (0.5 - 0.3) * RATE) < 0.05 * RATE);
});

test('a long session holds no more memory than its audio', async () => {
  // Two minutes, mostly room noise with a phrase every 20 s, sent as fast as possible.
  const parts: Float32Array[] = [];
  for (let i = 0; i < 6; i += 1) parts.push(quiet(19, 30 + i), speechLike(1, 40 + i));
  const audio = concat(...parts);
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  const session = services.sessions.get(sessionId)!;
  let peak = 0;
  let position = 0;
  for (const frame of frames(audio, 1600)) {
    services.sessions.pushAudio(sessionId, frame, 'test', position);
    position += frame.length;
    peak = Math.max(peak, session.audioMemoryBytes - session.storedSamples * 4);
  }
  const summary = await services.sessions.stop(sessionId, 'test');
  assert.equal(summary.segments.length, 6);
  assert.equal(summary.latency.sampleGaps, 0);
  assert.ok(peak <= 64_000 * 4, `memory beyond the audio itself stays under one chunk (${peak} bytes)`);
  assert.equal(session.segmentsHoldingResults, 0, 'no segment keeps its decode results once its final is out');
});

test('switching the device reloads the model once per devices:select', async () => {
  const loads: string[] = [];
  const off = services.engine.on('status', (s) => {
    if (s.state === 'loading') loads.push(services.settings.get().device);
  });
  try {
    for (const name of ['CPU', 'auto', 'CPU']) {
      loads.length = 0;
      const result = await services.router.handle('devices:select', { name }, { clientId: 'test' });
      assert.ok(result.ok, JSON.stringify(result));
      await sleep(50); // a second, fire-and-forget reload would have started by now
      assert.equal(loads.length, 1, `devices:select ${name}: ${loads.length} loads`);
      assert.equal(services.engine.status().state, 'ready');
    }
  } finally {
    off();
  }
  assert.equal(services.engine.loadedModel?.path, modelPath);
});

test('an engine death blamed on no device (killed while idle) reloads on Auto\'s choice, as the first load did, and marks nothing', async () => {
  assert.ok((await services.router.handle('devices:select', { name: 'auto' }, { clientId: 'test' })).ok);
  assert.equal(services.engine.status().state, 'ready');
  assert.equal(services.engine.loadedModel?.device.source, 'auto', 'the load was Auto\'s');
  const failedBefore = services.devices.state().failed.length;
  const restarted = waitFor((resolve) => services.engine.on('restarted', resolve), 30_000, 'the restart');
  process.kill(services.engine.pid!, 'SIGKILL');
  await restarted;
  // It was the CPU by name (a setting the user never made: "Auto" no longer meant Auto after any crash).
  assert.equal(services.engine.loadedModel?.device.source, 'auto');
  assert.equal(services.devices.state().failed.length, failedBefore, 'no device was running anything: none is blamed');
});

test('the engine process dies twice mid-session: the UI is told, dictation continues, nothing captured is lost', async () => {
  const audio = concat(
    quiet(0.5, 11), speechLike(1.2, 28), quiet(0.9, 12), speechLike(1.4, 29), quiet(0.9, 13), speechLike(1.1, 30), quiet(0.9, 14),
  );
  const rec = record();
  const restartsBefore = services.engine.status().restarts;
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  const frameSamples = Math.round(0.04 * RATE);
  const secondPhrase = Math.floor((0.5 + 1.2 + 0.9 + 0.3) * RATE / frameSamples);
  const thirdPhrase = Math.floor((0.5 + 1.2 + 0.9 + 1.4 + 0.9 + 0.4) * RATE / frameSamples);
  await feed(sessionId, audio, {
    frameMs: 40,
    speed: 3,
    onFrame: async (i) => {
      // During the second phrase: the next decode kills the engine (a fault mid-request).
      if (i === secondPhrase) await engine.triggers.crash('nextTranscribe');
      // During the third: killed from outside, like a driver fault or the OOM killer (once the first restart is done).
      if (i === thirdPhrase) {
        // 'busy' means the restart is over and a decode is running: only a restart still in progress is waited for.
        const restarting: readonly string[] = ['crashed', 'restarting', 'loading'];
        if (restarting.includes(services.engine.status().state)) {
          await waitFor((resolve) => services.engine.on('restarted', resolve), 30_000, 'the first restart');
        }
        process.kill(services.engine.pid!, 'SIGKILL');
      }
    },
  });
  const summary = await services.sessions.stop(sessionId, 'test');
  rec.stop();

  assert.ok(services.engine.status().restarts >= restartsBefore + 2, 'restarted twice');
  assert.equal(services.engine.status().state, 'ready');
  assert.equal(summary.segments.length, 3, 'every phrase has its final');
  assert.ok(summary.segments.every((s) => s.text.length > 0), JSON.stringify(summary.segments.map((s) => s.text)));
  checkFinals(rec, sessionId, summary);
  await checkInvariant(summary, audio);
  assert.equal(summary.latency.sampleGaps, 0);
  assert.deepEqual(await services.sessions.get(sessionId)!.audio(), audio);

  const sessionNotices = rec.of('dictation:state').filter((s) => s.sessionId === sessionId && s.notice).map((s) => s.notice!.code);
  assert.ok(sessionNotices.includes('ENGINE_CRASHED'), `the session was told (${sessionNotices.join(',')})`);
  assert.ok(sessionNotices.includes('ENGINE_RESTARTED'));
  assert.ok(rec.of('notice').some((n) => n.code === 'ENGINE_CRASHED' && /restarted/.test(n.message)));
  const devices = services.devices.state();
  assert.ok(devices.failed.some((f) => f.name === 'CPU'), 'the device in use is marked failed for this run');
  assert.equal(devices.active?.device.name, 'CPU', 'and the session continued on the CPU');
  assert.deepEqual(devices.lastRan, ['CPU']);
  assert.ok(rec.of('devices:changed').some((d) => d.failed.length > 0), 'the device view was told');
});
