// The diarization CLI contracts: `parakeet diarize WAV --model SORTFORMER.gguf [--stream] --json` prints
// {"frames_sec", "activities" (one [p0..p3] per frame), "segments" [{speaker, start, end}]} with the engine's
// activities; `parakeet transcribe … --diarizer SORTFORMER.gguf` gives every word the speaker most active
// over its frames; each kind of model is refused where the other is expected.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Diarizer } from '../../native/diarizer.js';
import { dominantSpeaker, segmentParamsOf, speakerSegments } from '../../app/shared/diarization.js';
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
    const params = segmentParamsOf(d.info());
    d.dispose();
    assert.equal(json.activities.length, direct.frames);
    assert.ok(json.activities.every((row) => row.length === 4 && row.every((p) => p >= 0 && p <= 1)));
    assert.deepEqual(json.activities.flat(), Array.from(direct.activities));
    assert.deepEqual(json.segments, speakerSegments(direct, params));
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

test('diarize cuts segments with the file\'s onset/offset thresholds; the post-processing flags override them', async () => {
  // A file with hysteresis thresholds of its own (as a converter writes a config's diarizer.onset / offset).
  const tuned = join(dir, 'sortformer-tuned.gguf');
  generateSortformer(tuned, { onsetThreshold: 0.625, offsetThreshold: 0.375 });
  const d = await Diarizer.load(tuned, { threads: 1 });
  const info = d.info();
  const direct = await d.diarize(clip.pcm, { streaming: true });
  d.dispose();
  assert.deepEqual([info.onsetThreshold, info.offsetThreshold], [0.625, 0.375], 'the file\'s values (exact in float32)');
  const fileParams = segmentParamsOf(info);
  const r = parakeet(['diarize', clip.wav16, '--model', tuned, '--stream', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as DiarizeJson;
  assert.deepEqual(json.segments, speakerSegments(direct, fileParams));
  assert.notDeepEqual(speakerSegments(direct, fileParams), speakerSegments(direct), 'the thresholds change these segments');
  const flags = ['--onset', '0.5', '--offset', '0.5', '--pad-onset', '0.1', '--pad-offset', '0.2', '--min-duration-on', '0.3', '--min-duration-off', '0.4'];
  const overridden = parakeet(['diarize', clip.wav16, '--model', tuned, '--stream', '--json', ...flags]);
  assert.equal(overridden.status, 0, overridden.stderr);
  assert.deepEqual((JSON.parse(overridden.stdout) as DiarizeJson).segments,
    speakerSegments(direct, { onset: 0.5, offset: 0.5, padOnset: 0.1, padOffset: 0.2, minDurationOn: 0.3, minDurationOff: 0.4 }));
  const bad = parakeet(['diarize', clip.wav16, '--model', tuned, '--onset', '1.5']);
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /--onset must be a number from 0 to 1, got "1.5"/);
});

test('a file whose onset threshold is not a probability is refused naming the key', async () => {
  const broken = join(dir, 'sortformer-bad-onset.gguf');
  generateSortformer(broken, { onsetThreshold: 1.5 });
  await assert.rejects(Diarizer.load(broken, { threads: 1 }), /parakeet\.diar\.onset_threshold' = 1\.5\d* is out of range/);
});

test('a diarizer where a speech model is expected, and the reverse, are refused naming the file', () => {
  const asDecoder = parakeet(['transcribe', clip.wav16, '--model', model]);
  assert.equal(asDecoder.status, 1);
  assert.match(asDecoder.stderr, /MODEL_INVALID.*speaker-diarization model/);
  const asDiarizer = parakeet(['diarize', clip.wav16, '--model', DIGITS_MODEL, '--json']);
  assert.equal(asDiarizer.status, 1);
  assert.match(asDiarizer.stderr, /MODEL_INVALID.*speech recognition model \(parakeet.arch = 'ctc'\)/);
});
