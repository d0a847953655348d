// Silero gating a streaming model's dictation (issue 40 item 4, last bullet): the stream is fed only
// segments the VAD opened (silence between strings is never decoded), and a segment's tail is flushed —
// the one the stop closes right after the last word included — so the last word is kept: the segment
// ends after the last spoken word, the stream's end() encodes every frame of its audio (the final
// partial chunk padded, spec Corrections 3), and the final is that flushed stream's text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep, setImmediate as tick } from 'node:timers/promises';
import { createServices, type Services } from '../../app/main/services.js';
import { Model } from '../../native/index.js';
import { ensureDigitsSet, readWav16, type WordTiming } from '../support/audio/digits.js';
import { RATE, concat, frames } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { FAMILY_TEST_SEEDS } from '../support/model/streaming.js';
import { tempDir, writeTestSettings } from './helpers.js';

const dir = tempDir('silero-streaming-tail');
const modelPath = join(dir, 'eou.gguf');
let services: Services;
let model: Model;

before(async () => {
  generateModel(modelPath, { preset: 'tiny', family: 'eou', weightType: 'f32', seed: FAMILY_TEST_SEEDS.eou });
  writeTestSettings(dir, { dictation: { vadModel: 'silero' } });
  services = await createServices({
    userDataDir: dir, mode: 'web', engineMode: 'process', modelPath, retainSessionAudio: true,
    modelEndpoint: 'https://127.0.0.1:9', logToStderr: process.env.PARAKEET_TEST_LOG === '1',
  });
  await services.ready;
  for (let i = 0; i < 200 && services.engine.vadStatus.kind !== 'silero'; i++) await sleep(25);
  model = await Model.load(modelPath, { threads: 1 });
});
after(async () => {
  model?.dispose();
  await services?.dispose();
});

/** Two spoken strings, 2 s of silence between them, nothing after the second: the stop closes its segment. */
function twoStrings(): { pcm: Float32Array; lastWords: WordTiming[] } {
  const set = ensureDigitsSet('silero-streaming-tail', { seed: 0x7a11, perVoice: 2, voices: ['en-us'], minWords: 3, maxWords: 4 });
  const [a, b] = set.items.map((it) => readWav16(it.wav).samples);
  const lead = new Float32Array(Math.round(0.5 * RATE));
  const gap = new Float32Array(2 * RATE);
  const secondAt = (lead.length + a!.length + gap.length) / RATE;
  const lastWords = [set.items[0]!.words.at(-1)!, set.items[1]!.words.at(-1)!].map((w, i) => {
    const offset = i === 0 ? lead.length / RATE : secondAt;
    return { text: w.text, start: w.start + offset, end: w.end + offset };
  });
  return { pcm: concat(lead, a!, gap, b!), lastWords };
}

test('a Silero-gated stream: one final per string, each segment past its last word, its tail flushed into the final', async () => {
  assert.equal(services.engine.vadStatus.kind, 'silero');
  assert.equal(services.engine.loadedModel?.streaming, true);
  const { pcm, lastWords } = twoStrings();
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  let position = 0;
  for (const frame of frames(pcm, Math.round(0.04 * RATE))) {
    services.sessions.pushAudio(sessionId, frame, 'test', position);
    position += frame.length;
    await tick();
  }
  const summary = await services.sessions.stop(sessionId, 'test');
  const kept = await services.sessions.get(summary.sessionId)!.audio();
  assert.equal(summary.segments.length, 2, `one segment per string: ${JSON.stringify(summary.segments.map((s) => [s.startSample, s.endSample]))}`);
  const frameSamples = Math.round(model.info().frameSec * RATE);
  for (const [i, final] of summary.segments.entries()) {
    const lastEnd = Math.round(lastWords[i]!.end * RATE);
    assert.ok(final.endSample! >= lastEnd, `segment ${i} ends at ${final.endSample} before its last word "${lastWords[i]!.text}" ends at ${lastEnd}`);
    const audio = kept.subarray(final.startSample!, final.endSample!);
    const stream = model.createStream({});
    try {
      const chunks = [...await stream.feed(audio), ...await stream.end()];
      const encoded = chunks.reduce((n, c) => Math.max(n, c.firstFrame + c.frames), 0);
      assert.ok(encoded >= Math.floor(audio.length / frameSamples), `the stream encoded ${encoded} frames of ${audio.length} samples: the tail was not flushed`);
      assert.equal(final.text, chunks.map((c) => c.text).join('').trim(), `segment ${i}: the final is the flushed stream's text`);
    } finally {
      stream.dispose();
    }
  }
});
