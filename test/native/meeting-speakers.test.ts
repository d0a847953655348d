// The "Others" track's speakers (app/main/meeting/meeting-speakers.ts) on the engine's real diarizer stream:
// audio pushed as a track records it, words attributed live from the frames known by then, and at the end
// every word again from the whole track, which equals the file-level attribution of the same audio.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Diarizer } from '../../native/diarizer.js';
import type { Word } from '../../app/ipc/contract.js';
import { MeetingSpeakers } from '../../app/main/meeting/meeting-speakers.js';
import { defaultSpeakerName, dominantSpeaker } from '../../app/shared/diarization.js';
import { concat, quiet, speechLike } from '../support/audio/signals.js';
import { generateSortformer } from '../support/model/sortformer.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('meeting-speakers');
const path = join(dir, 'sortformer.gguf');
generateSortformer(path);
const audio = concat(speechLike(2.5, 21), quiet(0.8, 22), speechLike(3, 23), quiet(0.5, 24));
const words: Word[] = Array.from({ length: 12 }, (_, i) => ({ text: `w${i}`, start: 0.2 + i * 0.5, end: 0.5 + i * 0.5, confidence: 1 }));

test('live attribution from the frames so far, refined at the end to the whole track\'s', async () => {
  const diarizer = await Diarizer.load(path, { threads: 1 });
  const whole = await diarizer.diarize(audio, { streaming: true });
  const stream = diarizer.createStream();
  const problems: string[] = [];
  const speakers = new MeetingSpeakers({ push: (pcm) => stream.push(pcm), finish: () => stream.finish(), close: () => stream.dispose() }, (m) => problems.push(m));
  // The first half, as a track records it (40 ms frames), then a live final's words.
  const half = Math.floor(audio.length / 2);
  for (let at = 0; at < half; at += 640) speakers.push(audio.subarray(at, Math.min(half, at + 640)));
  await new Promise((r) => setTimeout(r, 200));
  const live = speakers.attribute(words);
  assert.ok(live.every((w) => /^Speaker [1-4]$/.test(w.speaker ?? '')), 'every live word has a speaker');
  for (let at = half; at < audio.length; at += 640) speakers.push(audio.subarray(at, Math.min(audio.length, at + 640)));
  const frames = await speakers.finish();
  stream.dispose();
  diarizer.dispose();
  assert.deepEqual(problems, []);
  assert.equal(frames.frames, whole.frames, 'the stream covered the whole track');
  assert.deepEqual(Array.from(frames.activities, (v) => Math.fround(v)), Array.from(whole.activities));
  const refined = words.map((w) => defaultSpeakerName(dominantSpeaker(frames, w.start, w.end)));
  assert.deepEqual(refined, words.map((w) => defaultSpeakerName(dominantSpeaker(whole, w.start, w.end))));
  assert.deepEqual(speakers.attribute(words).map((w) => w.speaker), refined, 'after the end, attribution reads every frame');
});

test('a failing diarizer is reported once and the track keeps its words without speakers', async () => {
  const problems: string[] = [];
  const speakers = new MeetingSpeakers({
    push: () => Promise.reject(new Error('engine restarted')),
    finish: () => Promise.reject(new Error('not reached')),
    close: () => undefined,
  }, (m) => problems.push(m));
  speakers.push(new Float32Array(1600));
  speakers.push(new Float32Array(1600));
  const frames = await speakers.finish();
  assert.equal(frames.frames, 0);
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /diarizer failed \(engine restarted\)/);
  assert.deepEqual(speakers.attribute(words), words, 'no frames: words unchanged');
});
