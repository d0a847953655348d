// A live cut by the real Silero VAD with the app's settings (trainedVadSegmenterOptions: dictation and meeting
// tracks) opens no segment anywhere in the 10-minute non-speech set — before the minimum speech applied live,
// a 128 ms stretch of a quiet tone (Silero 0.56–0.71) opened one and a generated model typed two words into it
// (bench:vad) — and still opens one for every short one-word answer ("no", "oh", "yes", "eight", … at 195 wpm
// in six voices) in quiet and fan-level pink noise, starting at its word.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { VadModel } from '../../native/index.js';
import { DEFAULT_DICTATION } from '../../app/ipc/settings.js';
import { Segmenter, trainedVadSegmenterOptions, type SegmentEvent } from '../../app/main/sessions/segmenter.js';
import { bundledVadModel } from '../../app/main/vad/bundled-silero.js';
import { REPO_ROOT, VOICES, ensureSpokenSet, readWav16 } from '../support/audio/digits.js';
import { nonSpeech, nonSpeechSet } from '../support/audio/non-speech.js';
import { RATE, concat } from '../support/audio/signals.js';

const ANSWERS = ['no', 'oh', 'yes', 'one', 'two', 'six', 'eight', 'stop', 'go', 'wait'];

/** The live cut of `pcm` with the app's default settings: Silero's verdicts through the Segmenter. */
async function liveCut(pcm: Float32Array): Promise<Extract<SegmentEvent, { type: 'close' }>[]> {
  const model = await VadModel.load(await bundledVadModel(join(REPO_ROOT, '.cache', 'vad'), REPO_ROOT));
  try {
    const stream = model.createStream(RATE);
    const probs = Float32Array.from([...await stream.process(pcm), ...await stream.flush()]);
    stream.dispose();
    const d = DEFAULT_DICTATION;
    const seg = new Segmenter({
      sampleRate: RATE, pauseMs: d.pauseMs, maxSegmentSec: d.maxSegmentSec, preRollMs: d.preRollMs, thresholdDb: d.vadThresholdDb,
      ...trainedVadSegmenterOptions(d),
    });
    seg.push(pcm);
    return [...seg.decide(probs), ...seg.finish()].filter((e): e is Extract<SegmentEvent, { type: 'close' }> => e.type === 'close');
  } finally {
    model.dispose();
  }
}

test('live, the non-speech set (silence, noises, hum, clicks, tones at three levels; 10 minutes) opens no segment', async () => {
  const cuts = await liveCut(nonSpeechSet(32, [0.003, 0.03, 0.1]));
  assert.deepEqual(cuts.map((c) => [c.start / RATE, c.end / RATE]), []);
});

test('live, every short one-word answer in pink noise opens one segment, at its word', async () => {
  const set = ensureSpokenSet('one-word-answers', { answers: ANSWERS, rate: 195 }, () =>
    VOICES.flatMap((voice, v) => ANSWERS.map((text, w) => ({ id: `${v}-${w}-${voice}`, text, voice, rate: 195, pitch: 50 }))));
  for (const level of [0.003, 0.03]) {
    const parts: Float32Array[] = [];
    const starts: number[] = [];
    let at = 0;
    set.items.forEach((item, i) => {
      const gap = nonSpeech('pink', 1.5, level, 100 + i);
      const word = readWav16(item.wav).samples;
      parts.push(gap, word);
      starts.push((at + gap.length) / RATE + item.words[0]!.start);
      at += gap.length + word.length;
    });
    parts.push(nonSpeech('pink', 1.5, level, 99));
    const cuts = await liveCut(concat(...parts));
    assert.equal(cuts.length, set.items.length, `pink noise at RMS ${level}: ${cuts.length} segments for ${set.items.length} answers`);
    cuts.forEach((c, i) => assert.ok(Math.abs(c.start / RATE - starts[i]!) < 0.15, `"${set.items[i]!.text}" spoken at ${starts[i]!.toFixed(2)} s, its segment starts at ${(c.start / RATE).toFixed(2)} s`));
  }
});
