// Live dictation on a cache-aware streaming model (a generated EOU-120M-like model, the real engine
// process): each segment is fed to an engine stream as its audio arrives, partials are the committed
// tokens (they only grow), the model's <EOU> ends an utterance without waiting for a pause, and a
// segment's final equals an independent stream over exactly its audio. A meeting track does the same.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep, setImmediate as tick } from 'node:timers/promises';
import type { EventMap, EventName, SessionSummary } from '../../app/ipc/contract.js';
import { readFileSync } from 'node:fs';
import { nullLogger } from '../../app/main/log.js';
import { MeetingTrack, type TrackFinal, type TrackPartial } from '../../app/main/meeting/meeting-track.js';
import { WavJournalWriter } from '../../app/main/meeting/wav-journal.js';
import { createServices, type Services } from '../../app/main/services.js';
import { streamOptionsFor } from '../../app/main/sessions/stream-options.js';
import { decodeWav } from '../../app/shared/wav.js';
import { Model } from '../../native/index.js';
import { RATE, concat, frames, quiet, speechLike } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { FAMILY_TEST_SEEDS } from '../support/model/streaming.js';
import { tempDir, writeTestSettings } from './helpers.js';

const dir = tempDir('dictation-streaming');
const modelPath = join(dir, 'eou.gguf');
let services: Services;
let model: Model;

before(async () => {
  generateModel(modelPath, { preset: 'tiny', family: 'eou', weightType: 'f32', seed: FAMILY_TEST_SEEDS.eou });
  // Energy VAD: the synthetic speech-like bursts are not speech to Silero.
  writeTestSettings(dir, { text: { spokenPunctuation: false, replacements: [] }, dictation: { vadModel: 'energy' } });
  services = await createServices({
    userDataDir: dir, mode: 'web', engineMode: 'process', retainSessionAudio: true, modelPath,
    modelEndpoint: 'https://127.0.0.1:9', logToStderr: process.env.PARAKEET_TEST_LOG === '1',
  });
  await services.ready;
  assert.equal(services.engine.loadedModel?.streaming, true, 'the generated EOU model loads as a streaming model');
  model = await Model.load(modelPath, { threads: 1 });
});
after(async () => {
  model?.dispose();
  await services?.dispose();
});

function record(): { of<E extends EventName>(event: E): EventMap[E][]; stop(): void } {
  const events: { event: EventName; data: unknown }[] = [];
  const stop = services.bus.onAny((event, data) => events.push({ event, data }));
  return { of: <E extends EventName>(event: E) => events.filter((e) => e.event === event).map((e) => e.data as EventMap[E]), stop };
}

/** Sends audio like the renderer, 40 ms frames; `realTime` paces them as a microphone would (the stream keeps up). */
async function dictate(audio: Float32Array, realTime = false): Promise<{ summary: SessionSummary; partials: EventMap['dictation:transcript'][] }> {
  const rec = record();
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  let position = 0;
  for (const frame of frames(audio, Math.round(0.04 * RATE))) {
    assert.equal(services.sessions.pushAudio(sessionId, frame, 'test', position), true);
    position += frame.length;
    if (realTime) await sleep(40);
    else await tick();
  }
  const summary = await services.sessions.stop(sessionId, 'test');
  rec.stop();
  const partials = rec.of('dictation:transcript').filter((t) => t.sessionId === sessionId && t.kind === 'partial');
  return { summary, partials };
}

/** An independent stream of the same model over `pcm` (in the test process). */
async function streamed(pcm: Float32Array): Promise<{ text: string; eou: number }> {
  const stream = model.createStream({});
  try {
    const chunks = [...await stream.feed(pcm), ...await stream.end()];
    return { text: chunks.map((c) => c.text).join('').trim(), eou: chunks.flatMap((c) => c.events).filter((e) => e.type === 'eou').length };
  } finally {
    stream.dispose();
  }
}

test('a segment the stop closes: partials only grow, and the final is an independent stream over exactly its audio', async () => {
  // One burst, stopped before its pause completes: the segment ends at the last sample the stream heard.
  const audio = concat(quiet(0.5, 1), speechLike(2.4, 31));
  const { summary, partials } = await dictate(audio, true);
  assert.ok(summary.segments.length >= 1, 'the speech opened a segment');
  const audioKept = await services.sessions.get(summary.sessionId)!.audio();
  for (const final of summary.segments) {
    const mine = partials.filter((p) => p.segmentId === final.segmentId).map((p) => p.text);
    for (let i = 1; i < mine.length; i++) assert.ok(mine[i]!.startsWith(mine[i - 1]!), `partials only grow: "${mine[i - 1]}" → "${mine[i]}"`);
    if (mine.length) assert.ok(final.text.startsWith(mine.at(-1)!), `the final keeps the committed text: "${mine.at(-1)}" → "${final.text}"`);
    const expected = await streamed(audioKept.subarray(final.startSample!, final.endSample!));
    assert.equal(final.text, expected.text, `segment ${final.segmentId}: the final equals a stream over [${final.startSample}, ${final.endSample})`);
  }
  assert.ok(summary.text.length > 0, 'the random model emits text on speech-like audio');
  assert.ok(partials.length >= 1, 'partial text appeared while speaking (the stream\'s committed tokens)');
  // The latency panel's streaming figures: the engine's compute per chunk against the preset's 160 ms chunk.
  const chunk = summary.latency.streamChunk;
  assert.ok(chunk, 'the session reports its stream chunk compute');
  assert.equal(chunk.chunkAudioMs, 160, 'EOU [70,1]: 16 new mel frames of 10 ms a chunk');
  assert.ok(chunk.chunks >= 5, `2.4 s of speech gave several steady chunks (${chunk.chunks})`);
  assert.ok(chunk.p50Ms > 0 && chunk.p95Ms >= chunk.p50Ms, `chunk compute p50 ${chunk.p50Ms} ms, p95 ${chunk.p95Ms} ms`);
  assert.ok(Math.abs(chunk.percent - (100 * chunk.p50Ms) / 160) < 1e-9, 'the percentage is the median against the chunk\'s audio');
});

test('<EOU> ends an utterance without a pause: continuous speech at real time becomes several finals', async () => {
  const speech = speechLike(3.2, 41);
  const whole = await streamed(speech);
  assert.ok(whole.eou >= 2, `the model emits <EOU> on this audio (${whole.eou}); the test needs some`);
  const { summary } = await dictate(concat(quiet(0.4, 2), speech), true);
  assert.ok(summary.segments.length >= 2, `an <EOU> closed a segment before the end (${summary.segments.length} finals for 3.2 s without a pause)`);
  for (let i = 1; i < summary.segments.length; i++) {
    assert.ok(summary.segments[i]!.startSample! >= summary.segments[i - 1]!.endSample!, 'the utterances never overlap');
  }
  for (const f of summary.segments) assert.ok(!/<EOU>|<EOB>/.test(f.text), 'special pieces never reach the text');
});

test('a meeting track on a streaming model: its finals are the streams of its segments, its partials their committed text', async () => {
  const finals: TrackFinal[] = [];
  const partials: TrackPartial[] = [];
  const problems: string[] = [];
  const wavPath = join(dir, 'others.wav');
  const wav = await WavJournalWriter.create(wavPath, { sampleRate: RATE, autoSync: false });
  const model = services.engine.loadedModel!;
  const track = new MeetingTrack({
    track: 'others', inputRate: RATE, wav, engine: services.engine, log: nullLogger,
    segmenter: { pauseMs: 600, maxSegmentSec: 20, preRollMs: 200, thresholdDb: 10 },
    onFinal: (f) => finals.push(f), onPartial: (p) => partials.push(p), onProblem: (code) => problems.push(code),
    stream: { decoder: services.engine, options: streamOptionsFor(model, { preset: 'default', language: 'auto' }, () => undefined) },
  });
  const audio = concat(quiet(0.4, 5), speechLike(1.6, 51), quiet(1.2, 6), speechLike(1.4, 52), quiet(0.3, 7));
  let position = 0;
  for (const frame of frames(audio, 640)) {
    track.push(frame, position);
    position += frame.length;
    await tick();
  }
  await track.finish();
  assert.deepEqual(problems, []);
  assert.ok(finals.length >= 2, `two phrases at least (${finals.length})`);
  // The track's timeline is the input's (16 kHz in, no gaps): its journal holds it, 16-bit.
  assert.equal(decodeWav(readFileSync(wavPath)).frames, audio.length);
  for (const f of finals) {
    const expected = await streamed(audio.subarray(f.startSample, f.endSample));
    assert.equal(f.text, expected.text, `segment ${f.segmentId}: the final equals a stream over its audio`);
    const mine = partials.filter((p) => p.segmentId === f.segmentId).map((p) => p.text);
    for (let i = 1; i < mine.length; i++) assert.ok(mine[i]!.startsWith(mine[i - 1]!), 'partials only grow');
  }
});
