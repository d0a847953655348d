// The bundled Silero VAD through the real services (engine process, the trained digits model): spoken digit
// strings separated by noise, hum and clicks are transcribed to exactly those strings, as a file (cut at
// pauses, the noise never decoded, every word where espeak-ng spoke it in the whole file's time) and as
// a live dictation (one final per string, none for the noise); the non-speech set yields no word; the
// held-out-style set gives no word in its gaps and every string; the confidence floor works; a model
// bundle's own VAD runs while the bundle is the model; the energy VAD is the fallback when the settings ask for it.
//
// Pre-roll 0 ms and file pad 0 ms: the digits model learned tightly cut espeak-ng strings, and what it
// hears for a string's first word depends on where the onset falls in its 80 ms encoder frame: this clip's
// "oh" is "oh" with 0 or 10 ms in front of it, "four" with 20 or 30, lost with 40, "two" with 60 — the same
// with digital silence there as with the hum, so the place, not the pad's content. The exact strings here
// check the cuts and times; bench:vad measures the WER of the default pad (30 ms) over 120 strings.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { TranscriptEvent } from '../../app/ipc/contract.js';
import { DIGITS_MODEL, ensureDigitsSet, readWav16, writeWav16, type WordTiming } from '../support/audio/digits.js';
import { nonSpeech, nonSpeechSet } from '../support/audio/non-speech.js';
import { RATE, concat, frames } from '../support/audio/signals.js';
import { writeBundle } from '../support/model/bundle.js';
import { gappedDigits } from '../support/audio/gapped-digits.js';
import { align, normalizeText, words } from '../../app/shared/wer.js';
import { dictate, startTestServices, tempDir, writeTestSettings, type TestServices } from './helpers.js';
import { DEFAULT_DICTATION } from '../../app/ipc/settings.js';
import { fadeInOnset, ONSET_FADE_MS } from '../../app/shared/onset-fade.js';
import { Model } from '../../native/index.js';
import { describeExit } from '../native/helpers/child.js';
import { parakeet } from '../native/helpers/cli.js';

const haveModel = existsSync(DIGITS_MODEL);
const dir = tempDir('silero-vad');
let services: TestServices;

/** Three digit strings with noise between them (the noise at a level a quiet room or a laptop fan has). */
function noisyDictation(): { pcm: Float32Array; texts: string[]; words: WordTiming[] } {
  const set = ensureDigitsSet('silero-vad', { seed: 0x51e0, perVoice: 3, voices: ['en-us'], minWords: 3, maxWords: 5 });
  const gaps = [nonSpeech('pink', 1.5, 0.01, 1), nonSpeech('hum', 2, 0.01, 2), nonSpeech('clicks', 3, 0.02, 3), nonSpeech('white', 1.5, 0.005, 4)];
  const parts: Float32Array[] = [gaps[0]!];
  const words: WordTiming[] = [];
  let at = gaps[0]!.length;
  set.items.forEach((item, i) => {
    const speech = readWav16(item.wav).samples;
    for (const w of item.words) words.push({ text: w.text, start: w.start + at / RATE, end: w.end + at / RATE });
    parts.push(speech, gaps[i + 1]!);
    at += speech.length + gaps[i + 1]!.length;
  });
  return { pcm: concat(...parts), texts: set.items.map((it) => it.text), words };
}

before(async () => {
  if (!haveModel) return;
  writeTestSettings(dir, { dictation: { vadModel: 'silero', preRollMs: 0, vadSpeechPadMs: 0 } });
  services = await startTestServices(dir, DIGITS_MODEL);
  for (let i = 0; i < 200 && services.engine.vadStatus.kind !== 'silero'; i++) await sleep(25);
});
after(async () => {
  await services?.dispose();
});

test('the bundled Silero VAD is loaded in the engine', { skip: !haveModel && `no trained model at ${DIGITS_MODEL}` }, () => {
  const status = services.engine.vadStatus;
  assert.equal(status.kind, 'silero', JSON.stringify(status));
  assert.equal(status.kind === 'silero' && status.sourceVersion, 'v6.2');
});

test('a file of digit strings between noise: exactly the strings, every word at its spoken time in the file', { skip: !haveModel && 'no trained model' }, async () => {
  const { pcm, texts, words } = noisyDictation();
  const wav = join(dir, 'noisy-digits.wav');
  writeWav16(wav, pcm);
  const result = await services.files.transcribe(wav);
  assert.equal(result.text.trim(), texts.join(' '));
  assert.equal(result.words.length, words.length);
  result.words.forEach((w, i) => {
    assert.equal(w.text, words[i]!.text);
    const spokenMid = (words[i]!.start + words[i]!.end) / 2;
    assert.ok(w.start - 0.25 <= spokenMid && spokenMid <= w.end + 0.25, `"${w.text}" at ${w.start}–${w.end} s, spoken around ${spokenMid.toFixed(2)} s`);
  });
});

test('a file with a vocabulary and padded VAD windows: each window decodes with its padding as non-speech, the transcript as without a vocabulary', { skip: !haveModel && 'no trained model' }, async () => {
  const { pcm, texts } = noisyDictation();
  const wav = join(dir, 'noisy-digits-vocabulary.wav');
  writeWav16(wav, pcm);
  // 500 ms of padding around each segment (vadSpeechPadMs): each window's first and last 0.3 s are non-speech (less the 0.2 s
  // margin; window-non-speech.ts, whose unit test checks the ranges). The padding's noise gives the model words
  // of its own, which the vocabulary must leave as they are. (This clip does not tell gated from ungated: the
  // strings as phrases buy no word in its padding either way; it checks the engine takes every window's ranges.)
  await services.settings.set({ dictation: { vadSpeechPadMs: 500 } });
  try {
    const plain = await services.files.transcribe(wav);
    await services.settings.set({ text: { vocabulary: texts.map((phrase) => ({ phrase, weight: 1 })) } });
    const guarded = await services.files.transcribe(wav);
    assert.equal(guarded.text, plain.text);
    assert.deepEqual(guarded.words.map((w) => [w.text, w.start, w.end]), plain.words.map((w) => [w.text, w.start, w.end]));
  } finally {
    await services.settings.set({ dictation: { vadSpeechPadMs: 0 }, text: { vocabulary: [] } });
  }
});

/** A count in Devices' VAD line (the silence guards' sums). */
function guardCount(pattern: RegExp): number {
  return Number(pattern.exec(services.engine.status().vad?.text ?? '')?.[1] ?? NaN);
}

test('a live dictation of digit strings between noise: one final per string, exactly the strings, none for the noise', { skip: !haveModel && 'no trained model' }, async () => {
  const { pcm, texts } = noisyDictation();
  const summary = await dictate(services, pcm, 2);
  const finals = summary.segments.filter((s: TranscriptEvent) => s.kind === 'final');
  assert.deepEqual(finals.map((f) => f.text.trim()).filter((t) => t.length > 0), texts);
  assert.equal(finals.length, texts.length, 'no segment opened on noise, hum or clicks');
  // The closed stream's cost reaches Devices (engine status).
  for (let i = 0; i < 200 && !/real time/.test(services.engine.status().vad?.text ?? ''); i++) await sleep(25);
  assert.match(services.engine.status().vad?.text ?? '', /^Silero VAD v6\.2 \(F32\).*it cost \d+\.\d\d % of real time over \d+\.\d min of live audio\. Silence guards: \d+ live stretch(es)? Silero was unsure of not transcribed, \d+ words? below the confidence floor dropped$/);
});

test('the engine dies mid-dictation: a new Silero stream takes over from the undecided audio, so the dictation still types exactly the strings, none for the noise', { skip: !haveModel && 'no trained model' }, async () => {
  const { pcm, texts, words } = noisyDictation();
  // Killed in the gap after the first string: that string's final may be decoding, the next gap's noise is
  // undecided. Without a new stream the energy VAD would take the rest (noise in the gaps opens segments there).
  const killAt = Math.round((words[words.length / 3 | 0]!.end + 0.4) * RATE);
  const restarted = new Promise((resolve) => services.engine.once('restarted', resolve));
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'test');
  let position = 0;
  for (const frame of frames(pcm, 640)) {
    if (position <= killAt && killAt < position + frame.length) process.kill(services.engine.pid!, 'SIGKILL');
    services.sessions.pushAudio(sessionId, frame, 'test', position);
    position += frame.length;
    await sleep(2);
  }
  await restarted;
  const summary = await services.sessions.stop(sessionId, 'test');
  const finals = summary.segments.filter((s: TranscriptEvent) => s.kind === 'final');
  assert.deepEqual(finals.map((f) => f.text.trim()).filter((t) => t.length > 0), texts);
  assert.equal(finals.length, texts.length, 'no segment opened on the noise after the restart');
});

test('the non-speech set (silence, white / pink / brown noise, hum, clicks, tones at three levels) yields no word, as a file and live; Devices counts what the confirm level kept out', { skip: !haveModel && 'no trained model' }, async () => {
  const wav = join(dir, 'non-speech.wav');
  writeWav16(wav, nonSpeechSet(3, [0.003, 0.03, 0.1]));
  const file = await services.files.transcribe(wav);
  assert.equal(file.words.length, 0, `words in non-speech: ${file.text}`);
  const unsureBefore = guardCount(/(\d+) live stretch/);
  const live = await dictate(services, readWav16(wav).samples, 1);
  assert.deepEqual(live.segments, [], 'no dictation segment in non-speech');
  // Silero rises just above 0.5 on a held tone, never to the confirm level: without that guard a segment
  // (and a final) would have opened there; Devices counts the stretch.
  assert.ok(guardCount(/(\d+) live stretch/) > unsureBefore, services.engine.status().vad?.text);
});

test('the held-out-style set (12 strings, 0.5–3 s of silence or noise between them) as a file: no word in the gaps, every string heard', { skip: !haveModel && 'no trained model' }, async () => {
  const held = gappedDigits(12);
  const wav = join(dir, 'held-out.wav');
  writeWav16(wav, held.pcm);
  const result = await services.files.transcribe(wav);
  // Each string's span in the stream, from its first to its last word.
  const spans: { start: number; end: number; heard: number }[] = [];
  let at = 0;
  for (const text of held.texts) {
    const n = words(text).length;
    spans.push({ start: held.words[at]!.start, end: held.words[at + n - 1]!.end, heard: 0 });
    at += n;
  }
  for (const w of result.words) {
    const mid = (w.start + w.end) / 2;
    const span = spans.find((s) => s.start - 0.3 <= mid && mid <= s.end + 0.3);
    assert.ok(span, `"${w.text}" at ${w.start.toFixed(2)}–${w.end.toFixed(2)} s lies in a gap of silence or noise`);
    span.heard += 1;
  }
  spans.forEach((s, i) => assert.ok(s.heard > 0, `string ${i} ("${held.texts[i]}") at ${s.start.toFixed(2)} s gave no word`));
  // The WER beside the strings decoded alone is bench:vad's (the digits model loses words at cut edges).
  const file = align(words(held.texts.join(' ')), words(normalizeText(result.text))).counts;
  // Full bench:vad (120 strings): 3.4 % with the default cut (30 ms pad, 130 ms tail, 16 ms onset fade), 2.0 % for the strings
  // decoded alone; with the pre-roll as the pad (300 ms), as files were cut once, 15 %.
  assert.ok(file.errors / file.n < 0.1, `WER ${(100 * file.errors / file.n).toFixed(1)} % (S/D/I ${file.substitutions}/${file.deletions}/${file.insertions})`);
  assert.equal(result.speechCut?.detector, 'silero');
  assert.ok(result.speechCut.decodedSec < 0.7 * result.durationSec, `the gaps are skipped: ${result.speechCut.decodedSec} s of ${result.durationSec} s decoded`);

  // `parakeet transcribe --vad` cuts the same file as the Files view with the default settings (this file's services
  // pad by 0 ms): the same words at the same times, the same seconds decoded; without --vad the digits model hears
  // words in the gaps (the reason the flag exists).
  await services.settings.set({ dictation: { vadSpeechPadMs: DEFAULT_DICTATION.vadSpeechPadMs } });
  let app;
  try {
    app = await services.files.transcribe(wav);
  } finally {
    await services.settings.set({ dictation: { vadSpeechPadMs: 0 } });
  }
  const cli = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--vad', '--json']);
  assert.equal(cli.status, 0, describeExit(cli));
  const out = JSON.parse(cli.stdout) as { text: string; words: typeof result.words; speechCut: unknown };
  assert.deepEqual(out.words, app.words);
  assert.equal(out.text, app.text);
  assert.deepEqual(out.speechCut, app.speechCut);
  assert.match(cli.stderr, /speech found by Silero VAD v6\.2 \(F32\): \d+\.\d s of \d+\.\d s decoded, \d+\.\d s of silence skipped/);
  const whole = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--json']);
  assert.equal(whole.status, 0, describeExit(whole));
  const inGaps = (JSON.parse(whole.stdout) as { words: typeof result.words }).words
    .filter((w) => !spans.some((s) => s.start - 0.3 <= (w.start + w.end) / 2 && (w.start + w.end) / 2 <= s.end + 0.3));
  assert.ok(inGaps.length > 0, 'without --vad, words in the gaps');
});

test('the engine fades a clip\'s onset in when asked (a live segment Silero opened with its pad): its words are those of the faded audio', { skip: !haveModel && 'no trained model' }, async () => {
  const { pcm } = noisyDictation();
  // A stretch that starts in the noise just before the first string (the pad's place).
  const clip = pcm.slice(Math.round(1.2 * RATE), Math.round(4.5 * RATE));
  const faded = await services.engine.transcribe(clip, { sampleRate: RATE, onsetFadeMs: ONSET_FADE_MS }, { priority: 'final' });
  const plain = await services.engine.transcribe(clip, { sampleRate: RATE }, { priority: 'final' });
  const direct = await Model.load(DIGITS_MODEL, { threads: 1 });
  try {
    const expected = await direct.transcribe(fadeInOnset(clip, RATE), { sampleRate: RATE });
    assert.deepEqual(faded?.words, expected.words, 'the engine decoded the faded clip');
    assert.notDeepEqual(faded?.words, plain?.words, 'and not the clip as it was (the fade reached the decoder)');
  } finally {
    direct.dispose();
  }
});

test('parakeet transcribe --vad-* / --min-word-confidence cut a file as the Files view does with those settings changed', { skip: !haveModel && 'no trained model' }, async () => {
  const held = gappedDigits(12);
  const wav = join(dir, 'held-out-options.wav');
  writeWav16(wav, held.pcm);
  // Every setting away from its default: a stricter threshold, longer minimum speech and silence, a pad, a
  // trim and a floor (the floor just above the least sure word's confidence in the default cut, so it drops some).
  const defaults = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--vad', '--json']);
  assert.equal(defaults.status, 0, describeExit(defaults));
  const base = JSON.parse(defaults.stdout) as { words: { confidence: number }[]; speechCut: { decodedSec: number } };
  const sorted = base.words.map((w) => w.confidence).sort((a, b) => a - b);
  const floor = Math.min(0.99, Math.round((sorted[0]! + 0.005) * 1000) / 1000);
  const changed = { vadSpeechThreshold: 0.8, vadMinSpeechMs: 300, vadMinSilenceMs: 700, vadSpeechPadMs: 60, vadEdgeTrimMs: 10, minWordConfidence: floor };
  await services.settings.set({ dictation: changed });
  let app;
  try {
    app = await services.files.transcribe(wav);
  } finally {
    await services.settings.set({ dictation: { vadSpeechThreshold: 0.5, vadMinSpeechMs: DEFAULT_DICTATION.vadMinSpeechMs,
      vadMinSilenceMs: DEFAULT_DICTATION.vadMinSilenceMs, vadSpeechPadMs: 0, vadEdgeTrimMs: 0, minWordConfidence: 0 } });
  }
  const cli = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--json', '--vad-threshold', '0.8', '--vad-min-speech-ms', '300',
    '--vad-min-silence-ms', '700', '--vad-pad-ms', '60', '--vad-trim-ms', '10', '--min-word-confidence', String(floor)]);
  assert.equal(cli.status, 0, describeExit(cli));
  const out = JSON.parse(cli.stdout) as { text: string; words: typeof app.words; speechCut: { decodedSec: number } };
  // A --vad-* option alone cuts with the VAD; the cut and the words are the Files view's with the same settings.
  assert.deepEqual(out.speechCut, app.speechCut);
  assert.deepEqual(out.words, app.words);
  assert.equal(out.text, app.text);
  // ... and not the defaults' (the options were read): another cut, and the floor dropped words.
  assert.notEqual(out.speechCut.decodedSec, base.speechCut.decodedSec);
  assert.ok(out.words.every((w) => w.confidence >= floor) && out.words.length > 0, `floor ${floor}: ${out.text}`);
  // The floor without --vad: the whole file's words at or above it.
  const whole = JSON.parse(parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--json']).stdout) as { words: { confidence: number }[] };
  const floored = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--json', '--min-word-confidence', '0.9']);
  assert.equal(floored.status, 0, describeExit(floored));
  const kept = (JSON.parse(floored.stdout) as { words: { confidence: number }[]; speechCut?: unknown });
  assert.equal(kept.speechCut, undefined, 'the floor alone does not cut with the VAD');
  assert.deepEqual(kept.words, whole.words.filter((w) => w.confidence >= 0.9));
  assert.ok(kept.words.length < whole.words.length, 'words in the gaps fall below 0.9');
});

test('the confidence floor (a silence guard, off by default) drops the words below it from a file\'s words and text', { skip: !haveModel && 'no trained model' }, async () => {
  const { pcm } = noisyDictation();
  const wav = join(dir, 'noisy-digits-floor.wav');
  writeWav16(wav, pcm);
  const all = await services.files.transcribe(wav);
  // Just above the least sure word's confidence (the setting's most is 0.99): that word (at least) goes.
  const sorted = all.words.map((w) => w.confidence).sort((a, b) => a - b);
  const floor = Math.min(0.99, sorted.find((c) => c > sorted[0]!) ?? 1);
  assert.ok(sorted[0]! < floor, `the least sure word's confidence (${sorted[0]}) is below the highest floor`);
  await services.settings.set({ dictation: { minWordConfidence: floor } });
  try {
    const kept = await services.files.transcribe(wav);
    assert.deepEqual(kept.words, all.words.filter((w) => w.confidence >= floor));
    assert.ok(kept.words.length < all.words.length, `a floor of ${floor} drops the least sure of ${all.words.length} words`);
    assert.equal(kept.text, kept.words.map((w) => w.text).join(' '));
  } finally {
    await services.settings.set({ dictation: { minWordConfidence: 0 } });
  }
});

test('the confidence floor applies to a dictation\'s finals as to a file: the words below it go, the text is the kept words\'', { skip: !haveModel && 'no trained model' }, async () => {
  const { pcm } = noisyDictation();
  const finalsOf = async () => (await dictate(services, pcm, 2)).segments.filter((s: TranscriptEvent) => s.kind === 'final');
  const all = await finalsOf();
  const droppedBefore = guardCount(/(\d+) words? below/);
  const sorted = all.flatMap((f) => f.words.map((w) => w.confidence)).sort((a, b) => a - b);
  const floor = sorted.find((c) => c > sorted[0]!) ?? 1;
  await services.settings.set({ dictation: { minWordConfidence: floor } });
  try {
    const kept = await finalsOf();
    assert.equal(kept.length, all.length);
    kept.forEach((f, i) => {
      assert.deepEqual(f.words.map((w) => [w.text, w.confidence]), all[i]!.words.filter((w) => w.confidence >= floor).map((w) => [w.text, w.confidence]));
      if (f.words.length < all[i]!.words.length) assert.equal(f.text, f.words.map((w) => w.text).join(' '));
    });
    const dropped = all.flatMap((f) => f.words).length - kept.flatMap((f) => f.words).length;
    assert.ok(dropped > 0, `a floor of ${floor} drops the least sure word`);
    assert.equal(guardCount(/(\d+) words? below/) - droppedBefore, dropped, 'Devices counts the dropped words');
  } finally {
    await services.settings.set({ dictation: { minWordConfidence: 0 } });
  }
});

test('a model bundle with a vad component: its Silero runs as the VAD, Devices says so, and another model brings the app\'s back', { skip: !haveModel && 'no trained model' }, async () => {
  const appVad = services.engine.vadStatus;
  assert.equal(appVad.kind, 'silero');
  const bundle = join(dir, 'digits+vad.bundle.gguf');
  writeBundle(bundle, 'digits+vad', [{ name: 'asr', kind: 'asr', file: DIGITS_MODEL }, { name: 'vad', kind: 'vad', file: appVad.kind === 'silero' ? appVad.path : '' }]);
  await services.openModelFile(bundle);
  const status = services.engine.vadStatus;
  assert.equal(status.kind === 'silero' && status.bundleComponent, 'vad', JSON.stringify(status));
  assert.equal(status.kind === 'silero' && status.path, bundle);
  assert.match(services.engine.status().vad?.text ?? '', /^Silero VAD v6\.2 \(F32\) from the model bundle \(component "vad" of digits\+vad\.bundle\.gguf\)/);
  // The bundle's VAD cuts a file as the app's did: exactly the strings.
  const { pcm, texts } = noisyDictation();
  const wav = join(dir, 'noisy-digits-bundle.wav');
  writeWav16(wav, pcm);
  assert.equal((await services.files.transcribe(wav)).text.trim(), texts.join(' '));
  await services.openModelFile(DIGITS_MODEL);
  const back = services.engine.vadStatus;
  assert.equal(back.kind === 'silero' && back.bundleComponent, undefined, JSON.stringify(back));
  assert.equal(back.kind === 'silero' && back.path, appVad.kind === 'silero' ? appVad.path : null);
});

test('with the energy VAD chosen, the engine holds no Silero model and says why', { skip: !haveModel && 'no trained model' }, async () => {
  await services.settings.set({ dictation: { vadModel: 'energy' } });
  for (let i = 0; i < 200 && services.engine.vadStatus.kind !== 'energy'; i++) await sleep(25);
  const status = services.engine.vadStatus;
  assert.equal(status.kind, 'energy');
  assert.match(status.kind === 'energy' ? status.reason : '', /energy VAD was chosen/);
});
