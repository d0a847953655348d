// What a cache-aware streaming model's segment streams hear, for dictation and a meeting track, against a
// stand-in engine stream that counts the samples fed to each handle: every stream hears exactly its
// segment's audio [start, end) — never past the end (a stream cannot take back what it heard) and no
// sample in two streams — when the length cap cuts mid-speech and when Silero's verdicts lag the audio;
// and a stream whose feed failed on a live engine is still freed there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventMap, EventName, TranscriptEvent } from '../../../app/ipc/contract.js';
import type { EngineStreamChunk, EngineStreamHandle, EngineStreamOptions, EngineTranscript } from '../../../app/engine-process/protocol.js';
import { DEFAULT_DICTATION } from '../../../app/ipc/settings.js';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingTrack, type TrackFinal } from '../../../app/main/meeting/meeting-track.js';
import { DictationSession, type SessionVad } from '../../../app/main/sessions/session.js';
import { SegmentStream, type StreamDecoder } from '../../../app/main/sessions/segment-stream.js';
import { trainedVadSegmenterOptions } from '../../../app/main/sessions/segmenter.js';
import type { StreamInfo } from '../../../native/index.js';
import { RATE, concat, frames, quiet, speechLike } from '../../support/audio/signals.js';

function chunk(text: string): EngineStreamChunk {
  return {
    firstFrame: 0, frames: 1, tokenIds: [], tokenFrames: [], events: [], text, tokens: [], words: [], continuesWord: false,
    decoderReset: false, phrasesFired: [], encoderMs: 0, decoderMs: 0, encoderCpuMs: 0, decoderCpuMs: 0,
  };
}

/** Engine streams that count what each one heard; end() commits "<samples heard>" as the stream's text. */
class CountingStreams implements StreamDecoder {
  readonly heard = new Map<number, number>();
  readonly open = new Set<number>();
  failFeeds = false;
  private next = 1;
  async streamBegin(_options: EngineStreamOptions): Promise<EngineStreamHandle> {
    const handle = this.next++;
    this.heard.set(handle, 0);
    this.open.add(handle);
    return { handle, info: { phrasesRejected: [] } as unknown as StreamInfo, chunkAudioMs: 160 };
  }
  async streamFeed(handle: number, pcm: Float32Array): Promise<EngineStreamChunk[]> {
    if (this.failFeeds) throw Object.assign(new Error('feed failed'), { code: 'INTERNAL' });
    this.heard.set(handle, this.heard.get(handle)! + pcm.length);
    return [];
  }
  async streamEnd(handle: number): Promise<EngineStreamChunk[]> {
    this.open.delete(handle);
    return [chunk(String(this.heard.get(handle)))];
  }
  async streamClose(handle: number): Promise<void> {
    this.open.delete(handle);
  }
}

const offline = {
  async transcribe(pcm: Float32Array): Promise<EngineTranscript> {
    return { text: `offline ${pcm.length}`, words: [], devicesRan: [] } as unknown as EngineTranscript;
  },
};

/** Silero's stand-in: one probability per 512 samples (speech when loud), each push answered a few ms later. */
class LaggingVad implements SessionVad {
  private pending: number[] = [];
  async push(pcm: Float32Array): Promise<Float32Array> {
    this.pending.push(...pcm);
    const out: number[] = [];
    while (this.pending.length >= 512) {
      const chunk = this.pending.splice(0, 512);
      const rms = Math.sqrt(chunk.reduce((s, x) => s + x * x, 0) / 512);
      out.push(rms > 0.02 ? 0.95 : 0.02);
    }
    await sleep(3);
    return Float32Array.from(out);
  }
  close(): void {}
}

function dictation(streams: CountingStreams, overrides: Partial<typeof DEFAULT_DICTATION>, vad: SessionVad | null = null) {
  const finals: TranscriptEvent[] = [];
  const session = new DictationSession({
    id: 't', owner: 'o', sampleRate: RATE, dictation: { ...DEFAULT_DICTATION, ...overrides }, decoder: 'auto', engine: offline,
    emit: <E extends EventName>(event: E, data: EventMap[E]) => {
      if (event === 'dictation:transcript' && (data as TranscriptEvent).kind === 'final') finals.push(data as TranscriptEvent);
    },
    log: nullLogger, stream: { decoder: streams, options: {} }, vad, realTimeSlackSec: 3600,
  });
  return { session, finals };
}

/** Each final is its stream's count of samples heard: exactly its segment's, and the segments tile the speech. */
function assertEachStreamHeardItsSegment(finals: { text: string; startSample?: number; endSample?: number }[]): void {
  assert.ok(finals.length >= 2, `several segments: ${finals.length}`);
  for (const [i, f] of finals.entries()) {
    assert.equal(f.text, String(f.endSample! - f.startSample!), `segment ${i} [${f.startSample}, ${f.endSample}): its stream heard ${f.text} samples`);
    if (i > 0) assert.ok(f.startSample! >= finals[i - 1]!.endSample!, 'segments never overlap');
  }
}

/** Plays `audio` into the session as 40 ms frames, each on its own turn (decisions and feeds run between), then stops it. */
async function play(session: ReturnType<typeof dictation>['session'], audio: Float32Array): Promise<void> {
  let at = 0;
  for (const frame of frames(audio, 640)) {
    session.pushAudio(frame, at);
    at += frame.length;
    await sleep(0);
  }
  await session.stop(at);
}

test('dictation, energy VAD: a length-cap cut mid-speech never falls before what the stream already heard (no word in two finals)', async () => {
  const streams = new CountingStreams();
  const { session, finals } = dictation(streams, { vadModel: 'energy', maxSegmentSec: 2, pauseMs: 600 });
  const audio = concat(quiet(0.5, 1), speechLike(6, 7), quiet(1, 2));
  await play(session, audio);
  assert.ok(finals.some((f) => f.text !== '' && f.endSample! - f.startSample! < 2 * RATE + 1), 'the cap cut the speech');
  assertEachStreamHeardItsSegment(finals);
  assert.equal(streams.open.size, 0, 'every engine stream ended');
});

test('dictation, Silero lagging: each stream hears its segment only, the closing pause up to the cut', async () => {
  const streams = new CountingStreams();
  const { session, finals } = dictation(streams, { vadModel: 'silero', maxSegmentSec: 30, pauseMs: 600 }, new LaggingVad());
  const audio = concat(quiet(0.5, 1), speechLike(1.2, 7), quiet(1.5, 2), speechLike(1, 8), quiet(1.5, 3));
  await play(session, audio);
  assertEachStreamHeardItsSegment(finals.filter((f) => f.text !== ''));
  assert.equal(streams.open.size, 0, 'every engine stream ended');
});

async function meeting(streams: CountingStreams, trained: boolean, maxSegmentSec: number, audio: Float32Array): Promise<TrackFinal[]> {
  const finals: TrackFinal[] = [];
  const segmenter = { pauseMs: 600, maxSegmentSec, preRollMs: 300, thresholdDb: 10, ...(trained ? trainedVadSegmenterOptions(DEFAULT_DICTATION) : {}) };
  const t = new MeetingTrack({
    track: 'you', inputRate: RATE, wav: null, engine: offline, segmenter, log: nullLogger, vad: trained ? new LaggingVad() : null,
    onFinal: (f) => finals.push(f), onProblem: () => undefined, stream: { decoder: streams, options: {} },
  });
  let at = 0;
  for (const frame of frames(audio, 640)) {
    t.push(frame, at);
    at += frame.length;
    await sleep(0);
  }
  await t.finish();
  return finals;
}

test('meeting track, Silero lagging: a stream never hears audio past its segment\'s end', async () => {
  const streams = new CountingStreams();
  const finals = await meeting(streams, true, 30, concat(quiet(0.5, 1), speechLike(1.2, 7), quiet(1.5, 2), speechLike(1, 8), quiet(1.5, 3)));
  assertEachStreamHeardItsSegment(finals.filter((f) => f.text !== ''));
  assert.equal(streams.open.size, 0, 'every engine stream ended');
});

test('meeting track, energy VAD: a length-cap cut mid-speech never falls before what the stream already heard', async () => {
  const streams = new CountingStreams();
  const finals = await meeting(streams, false, 2, concat(quiet(0.5, 1), speechLike(6, 7), quiet(1, 2)));
  assertEachStreamHeardItsSegment(finals);
  assert.equal(streams.open.size, 0, 'every engine stream ended');
});

test('a stream whose feed failed while the engine lives is freed on the engine when it ends', async () => {
  const streams = new CountingStreams();
  streams.failFeeds = true;
  const stream = new SegmentStream(streams, {}, { onText: () => undefined, onUtteranceEnd: () => undefined });
  stream.feed(new Float32Array(1600));
  await assert.rejects(stream.end(), /feed failed/);
  await sleep(0);
  assert.equal(streams.open.size, 0, 'the engine\'s stream was closed');
});
