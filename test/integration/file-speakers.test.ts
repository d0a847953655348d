// Files with "Speakers" and the engine process's diarizer: the real engine process (EngineHost) loads a
// generated Sortformer next to the ASR model; a file transcribed with speakers gets every word the speaker most
// active over its frames (the same as the CLI's attribution from the engine's streaming diarization); without a
// speaker model the option is refused saying where to choose one; an ASR file as the diarizer is refused by name.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Diarizer } from '../../native/diarizer.js';
import { EngineHost } from '../../app/main/engine/engine-host.js';
import { EventBus } from '../../app/main/events.js';
import { FileTranscriber } from '../../app/main/files/file-transcriber.js';
import { SettingsStore } from '../../app/main/settings.js';
import { defaultSpeakerName, dominantSpeaker } from '../../app/shared/diarization.js';
import { encodeWav16 } from '../../app/shared/wav.js';
import { DIGITS_MODEL } from '../support/audio/digits.js';
import { RATE, concat, quiet, speechLike } from '../support/audio/signals.js';
import { generateSortformer } from '../support/model/sortformer.js';
import { tempDir, testLogger } from './helpers.js';

const dir = tempDir('file-speakers');
const diarizerPath = join(dir, 'sortformer.gguf');
generateSortformer(diarizerPath);
const audio = concat(speechLike(2.5, 31), quiet(0.6, 32), speechLike(2.5, 33));
const wav = join(dir, 'talk.wav');
writeFileSync(wav, encodeWav16(audio, RATE));
let host: EngineHost;
let files: FileTranscriber;

before(async () => {
  host = new EngineHost({ mode: 'process', log: testLogger(dir), inUse: () => true });
  await host.start();
  await host.loadModel(DIGITS_MODEL, { device: 'cpu', threads: 1 });
  const settings = await SettingsStore.open(join(dir, 'settings'), testLogger(dir));
  files = new FileTranscriber({ engine: host, bus: new EventBus(), settings, log: testLogger(dir) });
});
after(async () => {
  await host.dispose();
});

test('without a speaker model, Speakers is refused naming where to choose one', async () => {
  await assert.rejects(files.transcribe(wav, { speakers: true }), { code: 'NO_DIARIZER', message: /Settings › Speakers/ });
});

test('an ASR model as the diarizer is refused naming what it is', async () => {
  await assert.rejects(host.setDiarizer(DIGITS_MODEL), { code: 'MODEL_INVALID', message: /speech recognition model .*not a speaker-diarization model/ });
  assert.equal(host.diarizerLoaded, false);
});

test('a file with Speakers: every word carries the speaker most active over its frames', async () => {
  const status = await host.setDiarizer(diarizerPath);
  assert.equal(status?.nSpeakers, 4);
  const t = await files.transcribe(wav, { speakers: true });
  assert.ok(t.words.length > 0, 'some words');
  const d = await Diarizer.load(diarizerPath, { threads: 1 });
  const frames = await d.diarize(audio, { streaming: true });
  d.dispose();
  assert.deepEqual(t.words.map((w) => w.speaker), t.words.map((w) => defaultSpeakerName(dominantSpeaker(frames, w.start, w.end))));
  const plain = await files.transcribe(wav);
  assert.ok(plain.words.every((w) => w.speaker === undefined), 'without the option, no speakers');
});
