// The diarization CLI contracts: `parakeet diarize WAV --model SORTFORMER.gguf [--stream] --json` prints
// {"frames_sec", "activities" (one [p0..p3] per frame), "segments" [{speaker, start, end}]} with the engine's
// activities; `parakeet transcribe … --diarizer SORTFORMER.gguf` gives every word the speaker most active
// over its frames; each kind of model is refused where the other is expected.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Diarizer } from '../../native/diarizer.js';
import { dominantSpeaker, speakerSegments } from '../../app/shared/diarization.js';
import { DIGITS_MODEL } from '../support/audio/digits.js';
import { generateSortformer } from '../support/model/sortformer.js';
import { speech } from './helpers/audio.js';
import { parakeet } from './helpers/cli.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('diarize-cli');
const model = join(dir, 'sortformer.gguf');
generateSortformer(model);
const clip = speech(dir, 'one two three four five six seven eight nine', 'digits');

interface DiarizeJson {
  frames_sec: number;
  activities: number[][];
  segments: { speaker: number; start: number; end: number }[];
}

for (const streaming of [false, true]) {
  test(`diarize${streaming ? ' --stream' : ''} --json: the contract's shape, the engine's activities and their segments`, async () => {
    const r = parakeet(['diarize', clip.wav16, '--model', model, '--json', ...(streaming ? ['--stream'] : [])]);
    assert.equal(r.status, 0, r.stderr);
    const json = JSON.parse(r.stdout) as DiarizeJson;
    assert.deepEqual(Object.keys(json), ['frames_sec', 'activities', 'segments']);
    assert.equal(json.frames_sec, 0.08);
    const d = await Diarizer.load(model, { threads: 1 });
    const direct = await d.diarize(clip.pcm, { streaming });
    d.dispose();
    assert.equal(json.activities.length, direct.frames);
    assert.ok(json.activities.every((row) => row.length === 4 && row.every((p) => p >= 0 && p <= 1)));
    assert.deepEqual(json.activities.flat(), Array.from(direct.activities));
    assert.deepEqual(json.segments, speakerSegments(direct));
    assert.ok(json.segments.length > 0, 'some speech');
    for (const s of json.segments) assert.deepEqual(Object.keys(s), ['speaker', 'start', 'end']);
  });
}

test('transcribe --diarizer: every word carries the speaker most active over its frames', async () => {
  const r = parakeet(['transcribe', clip.wav16, '--model', DIGITS_MODEL, '--diarizer', model, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as { words: { text: string; start: number; end: number; speaker: number }[] };
  assert.ok(json.words.length >= 5, `words: ${json.words.map((w) => w.text).join(' ')}`);
  const d = await Diarizer.load(model, { threads: 1 });
  const activities = await d.diarize(clip.pcm, { streaming: true });
  d.dispose();
  for (const w of json.words) assert.equal(w.speaker, dominantSpeaker(activities, w.start, w.end), `word ${w.text}`);
  const srt = parakeet(['transcribe', clip.wav16, '--model', DIGITS_MODEL, '--diarizer', model, '--format', 'srt']);
  assert.equal(srt.status, 0, srt.stderr);
  assert.match(srt.stdout, /^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\nSpeaker [1-4]: /);
});

test('a diarizer where a speech model is expected, and the reverse, are refused naming the file', () => {
  const asDecoder = parakeet(['transcribe', clip.wav16, '--model', model]);
  assert.equal(asDecoder.status, 1);
  assert.match(asDecoder.stderr, /MODEL_INVALID.*speaker-diarization model/);
  const asDiarizer = parakeet(['diarize', clip.wav16, '--model', DIGITS_MODEL, '--json']);
  assert.equal(asDiarizer.status, 1);
  assert.match(asDiarizer.stderr, /MODEL_INVALID.*speech recognition model \(parakeet.arch = 'ctc'\)/);
});
