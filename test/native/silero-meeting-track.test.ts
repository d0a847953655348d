// A meeting track segmented by the real Silero VAD (the bundled weights on the engine's VadStream, fed as
// the engine process feeds it): three spoken phrases between loud speech-like noise bursts give exactly
// three segments, each around its phrase; the noise (which the energy VAD takes for speech) gives none.
// The decoder is the meeting-track tests' stand-in: what is checked here is where the track cuts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { VadModel } from '../../native/index.js';
import type { EngineTranscript } from '../../app/engine-process/protocol.js';
import { nullLogger } from '../../app/main/log.js';
import { MeetingTrack, type TrackFinal } from '../../app/main/meeting/meeting-track.js';
import { SILERO_WINDOW_MS } from '../../app/main/sessions/session.js';
import { bundledVadModel } from '../../app/main/vad/bundled-silero.js';
import { REPO_ROOT } from '../support/audio/digits.js';
import { RATE, speechLike } from '../support/audio/signals.js';
import { concat, speech } from './helpers/audio.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('silero-meeting');

const decoder = {
  transcribe: async (pcm: Float32Array): Promise<EngineTranscript> =>
    ({ text: `${pcm.length}`, words: [], tokens: [], devicesRan: ['CPU'] }) as unknown as EngineTranscript,
};

async function cutsOf(detector: 'silero' | 'energy', audio: Float32Array): Promise<TrackFinal[]> {
  const vadModel = await VadModel.load(await bundledVadModel(join(REPO_ROOT, '.cache', 'vad'), REPO_ROOT));
  const stream = vadModel.createStream(16000);
  // One push at a time per stream, queued as the engine process queues them (engine-vad.ts).
  let tail: Promise<Float32Array> = Promise.resolve(new Float32Array(0));
  const push = (pcm: Float32Array) => (tail = tail.then(() => stream.process(pcm)));
  const finals: TrackFinal[] = [];
  const segmenter = { pauseMs: 600, maxSegmentSec: 20, preRollMs: 100, thresholdDb: 10 };
  const track = new MeetingTrack({
    track: 'you', inputRate: RATE, wav: null, engine: decoder, log: nullLogger,
    segmenter: detector === 'silero' ? { ...segmenter, detector: 'external', windowMs: SILERO_WINDOW_MS, speechThreshold: 0.5 } : segmenter,
    vad: detector === 'silero' ? { push, close: () => void tail.finally(() => stream.dispose()) } : null,
    onFinal: (f) => finals.push(f), onProblem: () => undefined,
  });
  for (let at = 0; at < audio.length; at += 640) track.push(audio.slice(at, at + 640), at);
  await track.finish();
  vadModel.dispose();
  return finals;
}

test('a meeting track cut by Silero: one segment per spoken phrase, none for noise bursts', async () => {
  const phrases = ['seven people joined the call', 'the budget is approved', 'see you all next week'].map((t, i) => speech(dir, t, `phrase-${i}`).pcm);
  const silence = (s: number) => new Float32Array(Math.round(s * RATE));
  const noise = (seed: number) => speechLike(1.2, seed, 0.05);
  const audio = concat(silence(1), noise(1), silence(1), phrases[0]!, silence(1.5), noise(2), silence(1), phrases[1]!, silence(1.5), phrases[2]!, silence(1));
  const silero = await cutsOf('silero', audio);
  assert.equal(silero.length, 3, `Silero segments: ${JSON.stringify(silero.map((f) => [f.startSample / RATE, f.endSample / RATE]))}`);
  let at = 0;
  const starts: number[] = [];
  for (const part of [silence(1), noise(1), silence(1), phrases[0]!, silence(1.5), noise(2), silence(1), phrases[1]!, silence(1.5), phrases[2]!]) {
    if (phrases.includes(part)) starts.push(at / RATE);
    at += part.length;
  }
  silero.forEach((f, i) => assert.ok(Math.abs(f.startSample / RATE - starts[i]!) < 0.25, `segment ${i} starts at ${f.startSample / RATE} s, its phrase at ${starts[i]} s`));
  const energy = await cutsOf('energy', audio);
  assert.ok(energy.length > silero.length, `the energy VAD also cuts the noise (${energy.length} segments)`);
});
