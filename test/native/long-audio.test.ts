// Long audio: input longer than maxWindowSec is cut into contiguous windows at
// the quietest stretch, on the encoder-frame grid; timestamps are absolute; the
// text is the windows' texts joined. Windows are normalized with the whole
// clip's mel statistics: their features equal a single pass's. With a model
// that does not normalize, each window transcribes exactly like its slice alone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Model, type TranscribeResult } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { concat, noise, seconds, silence, speechSamples } from './helpers/audio.js';
import { ONE_THREAD } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('long');
const SR = 16000;
const FRAME = 0.08;
const modelPath = join(dir, 'tdt.gguf');
generateModel(modelPath, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 99 });
const unnormalizedPath = join(dir, 'tdt-na.gguf');
generateModel(unnormalizedPath, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 99, normalize: 'NA' });
let model: Model | undefined;
async function engine(): Promise<Model> {
  model ??= await Model.load(modelPath, ONE_THREAD);
  return model;
}
after(() => model?.dispose());

/** Speech with a faint noise floor (so the speech's own pauses are not digital silence) and two inserted silences. */
const SILENCES: [number, number][] = [[7.0, 7.8], [15.0, 15.8]];
function speechWithPauses(): Float32Array {
  const voice = speechSamples(dir, seconds(23.4));
  const floor = noise(voice.length, 0.003, 17);
  for (let i = 0; i < voice.length; i++) voice[i] += floor[i];
  const a = voice.subarray(0, seconds(7));
  const b = voice.subarray(seconds(7), seconds(14.2));
  const c = voice.subarray(seconds(14.2), seconds(23.4));
  return concat(a, silence(seconds(0.8)), b, silence(seconds(0.8)), c);
}

function assertMonotonic(r: TranscribeResult): void {
  for (let i = 1; i < r.tokens.length; i++) {
    assert.ok(r.tokens[i].start >= r.tokens[i - 1].start - 1e-9, `token ${i} starts at ${r.tokens[i].start} before token ${i - 1} (${r.tokens[i - 1].start})`);
  }
  for (let i = 1; i < r.words.length; i++) {
    assert.ok(r.words[i].start >= r.words[i - 1].start - 1e-9, `word ${i} '${r.words[i].text}' starts before the previous word`);
  }
  for (const w of r.words) assert.ok(w.start <= w.end && w.start >= 0 && w.end <= r.durationSec + 4 * FRAME, `word '${w.text}' ${w.start}–${w.end}`);
}

describe('windows for long audio', () => {
  const pcm = speechWithPauses();
  const duration = pcm.length / SR;
  let result: TranscribeResult | undefined;
  async function run(): Promise<TranscribeResult> {
    result ??= await (await engine()).transcribe(pcm, { maxWindowSec: 10 });
    return result;
  }

  test('25 s with maxWindowSec 10 → several contiguous windows covering the input, each ≤ 10 s', async () => {
    const r = await run();
    assert.ok(Math.abs(duration - 25) < 1e-9);
    console.log(`windows: ${r.windows.map((w) => `[${w.start.toFixed(3)}, ${w.end.toFixed(3)}]`).join(' ')}`);
    assert.ok(r.windows.length >= 3, `${r.windows.length} windows`);
    assert.equal(r.windows[0].start, 0);
    assert.equal(r.windows[r.windows.length - 1].end, duration);
    for (let i = 0; i < r.windows.length; i++) {
      const w = r.windows[i];
      assert.ok(w.end > w.start);
      assert.ok(w.end - w.start <= 10 + 1e-9, `window ${i} is ${w.end - w.start} s`);
      if (i > 0) assert.equal(w.start, r.windows[i - 1].end, `window ${i} starts where window ${i - 1} ends`);
    }
  });

  test('cuts fall inside the inserted silences (the quietest stretches)', async () => {
    const r = await run();
    const cuts = r.windows.slice(1).map((w) => w.start);
    for (const cut of cuts) {
      assert.ok(SILENCES.some(([a, b]) => cut >= a && cut <= b), `cut at ${cut.toFixed(3)} s is not in a silence (${JSON.stringify(SILENCES)})`);
    }
    // Both silences are used (a cut in the first one leaves the second in the next window's search range).
    for (const [a, b] of SILENCES) assert.ok(cuts.some((c) => c >= a && c <= b), `no cut in the silence ${a}–${b} s`);
  });

  test('timestamps are absolute and monotonic; windows start on the encoder-frame grid', async () => {
    const r = await run();
    assert.ok(r.tokens.length > 10, 'the clip produced tokens');
    assertMonotonic(r);
    for (const w of r.windows) {
      const frames = w.start / FRAME;
      assert.ok(Math.abs(frames - Math.round(frames)) < 1e-6, `window start ${w.start} s is not a multiple of ${FRAME} s`);
    }
    for (const t of r.tokens) {
      const w = r.windows.find((x) => t.start >= x.start - 1e-9 && t.start <= x.end + 1e-9);
      assert.ok(w, `token at ${t.start} s lies in no window`);
    }
  });

  test('each window is normalized with the whole clip\'s statistics: its mel equals a single pass\'s', async () => {
    const m = await engine();
    const whole = await m.transcribe(pcm, { maxWindowSec: 60, captureMel: true });
    const cut = await m.transcribe(pcm, { maxWindowSec: 10, captureMel: true });
    assert.equal(whole.windows.length, 1);
    assert.ok(cut.windows.length > 1);
    const a = whole.mel!;
    const b = cut.mel!;  // the first window's
    let max = 0;
    // Away from the window's end (the STFT frames there see the cut's zero padding).
    for (let m2 = 0; m2 < b.bins; m2++) {
      for (let t = 0; t < b.validFrames - 4; t++) max = Math.max(max, Math.abs(a.data[m2 * a.frames + t] - b.data[m2 * b.frames + t]));
    }
    assert.ok(max < 1e-5, `first window mel differs from the single pass by ${max}`);
    // The encoder capture spans every window on one time line.
    const enc = await m.transcribe(pcm, { maxWindowSec: 10, captureEncoder: true });
    const single = await m.transcribe(pcm, { maxWindowSec: 60, captureEncoder: true });
    assert.equal(enc.encoder!.frames, single.encoder!.validFrames, 'valid frames of all windows, concatenated = a single pass\'s');
  });

  test('a model without mel normalization: each window transcribes exactly like its slice alone', async () => {
    const m = await Model.load(unnormalizedPath, ONE_THREAD);
    try {
      const r = await m.transcribe(pcm, { maxWindowSec: 10 });
      assert.ok(r.windows.length > 1);
      const texts: string[] = [];
      let at = 0;
      for (const [k, w] of r.windows.entries()) {
        const begin = Math.round(w.start * SR);
        const end = Math.round(w.end * SR);
        const alone = await m.transcribe(pcm.subarray(begin, end), { maxWindowSec: 10 });
        assert.equal(alone.windows.length, 1);
        if (alone.text) texts.push(alone.text);
        const mine = r.tokens.slice(at, at + alone.tokens.length);
        at += alone.tokens.length;
        assert.deepEqual(mine.map((t) => t.id), alone.tokens.map((t) => t.id), `window ${k}: same tokens as the slice alone`);
        for (let i = 0; i < mine.length; i++) {
          assert.ok(Math.abs(mine[i].start - (alone.tokens[i].start + w.start)) < 1e-6, `window ${k} token ${i}: start ${mine[i].start} vs ${alone.tokens[i].start} + ${w.start}`);
          assert.ok(Math.abs(mine[i].end - (alone.tokens[i].end + w.start)) < 1e-6);
        }
      }
      assert.equal(at, r.tokens.length, 'every token belongs to a window');
      assert.equal(r.text, texts.join(' '), 'text = the windows\' texts joined');
    } finally {
      m.dispose();
    }
  });

  test('token frames are absolute (parakeet.h: "window-relative frames are made absolute")', async () => {
    const r = await run();
    const bad: string[] = [];
    for (const [i, t] of r.tokens.entries()) {
      if (/^[.,?']$/.test(t.piece)) continue; // punctuation times are pinned to the previous token
      if (!(Math.abs(t.start - t.frame * FRAME) < FRAME)) bad.push(`token ${i} '${t.piece}' frame ${t.frame} (${(t.frame * FRAME).toFixed(2)} s) but start ${t.start.toFixed(3)} s`);
    }
    assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${r.tokens.length} tokens carry a window-relative frame`);
  });

  test('a clip no longer than maxWindowSec is one window; the default (60 s) keeps 25 s whole', async () => {
    const m = await engine();
    const whole = await m.transcribe(pcm);
    assert.deepEqual(whole.windows, [{ start: 0, end: duration }]);
    assertMonotonic(whole);
    const exact = await m.transcribe(pcm.subarray(0, seconds(10)), { maxWindowSec: 10 });
    assert.equal(exact.windows.length, 1);
  });

  test('windows also hold for noise without pauses (cuts at the window end are still contiguous)', async () => {
    const m = await engine();
    const n = noise(seconds(21), 0.3, 4);
    const r = await m.transcribe(n, { maxWindowSec: 5, decoder: 'ctc' });
    assert.ok(r.windows.length >= 5, `${r.windows.length} windows`);
    for (let i = 1; i < r.windows.length; i++) assert.equal(r.windows[i].start, r.windows[i - 1].end);
    assert.equal(r.windows[r.windows.length - 1].end, 21);
    for (const w of r.windows) assert.ok(w.end - w.start <= 5 + 1e-9 && w.end - w.start >= 2.5 - 0.2, `window ${w.start}–${w.end}`);
    assertMonotonic(r);
  });
});
