// Custom vocabulary in cache-aware streams (StreamOptions.vocabulary; the engine carries the phrase
// state across chunks and boosts committed tokens only): on generated models of the streaming
// families an empty list streams bit-identically; a 1,000-phrase list from the model's own words boosts
// (a phrase the plain stream did not say fires) and the result still does not depend on how the PCM
// is cut into blocks (a chunk, once returned, never changes); nothing is bought where the caller's VAD
// heard no speech; silence stays silent (the EOU model's); and
// `parakeet transcribe --stream --vocabulary FILE --json` follows the offline contract.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Model, type StreamChunk } from '../../native/index.js';
import { formatVocabularyFile, vocabularyOptions, type VocabularyPhrase } from '../../app/shared/vocabulary.js';
import { prng } from '../support/audio/digits.js';
import { concat, quiet, speechLike } from '../support/audio/signals.js';
import { silence, seconds, writeWav16 } from './helpers/audio.js';
import { describeExit } from './helpers/child.js';
import { parakeet } from './helpers/cli.js';
import { ONE_THREAD } from './helpers/engine.js';
import { engineStream, familyModel, STREAMING_FAMILIES } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('vocabulary-stream');
const pcm = concat(speechLike(1.8, 41), quiet(0.4, 42), speechLike(1.6, 43));
const WORD_MARK = '\u2581';

/** What a stream committed, chunk by chunk (the vocabulary report and the chunk's timings aside). */
function committed(chunks: readonly StreamChunk[]): unknown {
  return chunks.map(({ phrasesFired: _fired, encoderMs: _e, decoderMs: _d, encoderCpuMs: _ec, decoderCpuMs: _dc, profile: _p, ...chunk }) => chunk);
}

/** `count` phrases of 1–2 of the model's word pieces. */
function phrasesFromPieces(pieces: readonly string[], count: number, seed: number): VocabularyPhrase[] {
  const words = pieces.filter((p) => p.startsWith(WORD_MARK) && p.length > 1 && !p.includes('<')).map((p) => p.slice(1));
  const random = prng(seed);
  return Array.from({ length: count }, () => {
    const n = 1 + Math.floor(random() * 2);
    return { phrase: Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' '), weight: 1.5 };
  });
}

describe('vocabulary in streams', () => {
  for (const family of STREAMING_FAMILIES) {
    const description = familyModel(dir, family);
    const loaded = Model.load(description.path, { ...ONE_THREAD, weightType: 'f32' });
    after(async () => (await loaded).dispose());

    test(`${family}: an empty vocabulary streams bit-identically; 1,000 phrases boost committed tokens only`, async () => {
      const model = await loaded;
      const plain = await engineStream(model, pcm);
      const empty = await engineStream(model, pcm, { vocabulary: [], neverBoost: [] });
      assert.deepEqual(committed(empty.raw), committed(plain.raw), 'vocabulary [] changed the stream');
      for (const c of empty.raw) assert.deepEqual(c.phrasesFired, []);
      assert.ok(plain.text.trim() !== '', 'the generated model says something for the speech-like clip');

      const many = phrasesFromPieces(description.pieces, 1000, 39 + family.length);
      const options = vocabularyOptions(many);
      const stream = model.createStream(options);
      assert.deepEqual(stream.info().phrasesRejected, []);
      stream.dispose();
      const boosted = await engineStream(model, pcm, options);
      const fired = boosted.raw.flatMap((c) => c.phrasesFired);
      for (const f of fired) assert.ok(many.some((p) => p.phrase === f), `fired "${f}" is not a phrase`);
      const plainText = ` ${plain.text.trim()} `;
      assert.ok(fired.some((f) => !plainText.includes(` ${f} `)), `no phrase was boosted into the text (fired: ${fired.join(', ') || 'none'})`);
      assert.notEqual(boosted.text, plain.text);
      // (No bound on the token count here: on these random prediction networks a changed history alone can
      // turn blank frames into tokens, blank decisions themselves are never changed, native/tests.)
      // Committed means final: the same chunks whatever the feed size, so no chunk was decided by a later one.
      const otherBlocks = await engineStream(model, pcm, options, 4321);
      assert.deepEqual(committed(otherBlocks.raw), committed(boosted.raw));
      assert.deepEqual(otherBlocks.raw.map((c) => c.phrasesFired), boosted.raw.map((c) => c.phrasesFired));
      // VAD gating: a stream its caller marks as non-speech throughout (the padded last frame too) buys nothing.
      const gated = await engineStream(model, pcm, { ...options, nonSpeech: [{ start: 0, end: pcm.length / 16000 + 1 }] });
      assert.deepEqual(committed(gated.raw), committed(plain.raw));
    });

    // The generated EOU model hears nothing in silence (the others' random joints emit tokens anyway).
    if (family === 'eou') test(`${family}: silence gives no words with 1,000 phrases loaded`, async () => {
      const model = await loaded;
      const nothing = silence(seconds(2.5));
      const plain = await engineStream(model, nothing);
      assert.equal(plain.raw.flatMap((c) => c.words).length, 0, 'the model alone hears nothing in silence');
      const boosted = await engineStream(model, nothing, vocabularyOptions(phrasesFromPieces(description.pieces, 1000, 5)));
      assert.equal(boosted.raw.flatMap((c) => c.words).length, 0, `"${boosted.text}" out of silence`);
      assert.deepEqual(boosted.raw.flatMap((c) => c.phrasesFired), []);
    });
  }
});

test('parakeet transcribe --stream --vocabulary FILE --json: an empty FILE is no flag; phrases fire; a bad weight is a usage error', () => {
  const description = familyModel(dir, 'eou');
  const wav = writeWav16(join(dir, 'speech.wav'), pcm);
  const run = (extra: string[]) => {
    const r = parakeet(['transcribe', wav, '--model', description.path, '--stream', '--json', '--weight-type', 'f32', ...extra]);
    assert.equal(r.status, 0, describeExit(r));
    const { timings: _timings, ...rest } = JSON.parse(r.stdout) as { timings: unknown; phrasesFired: string[]; phrasesRejected: unknown[] };
    return rest;
  };
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '');
  const plain = run([]);
  assert.deepEqual(run(['--vocabulary', empty]), plain);
  const list = join(dir, 'phrases.txt');
  writeFileSync(list, formatVocabularyFile(phrasesFromPieces(description.pieces, 1000, 44)));
  const boosted = run(['--vocabulary', list]);
  assert.ok(boosted.phrasesFired.length > 0, 'phrases fired');
  assert.deepEqual(boosted.phrasesRejected, []);
  const bad = join(dir, 'bad.txt');
  writeFileSync(bad, 'hello\tlots\n');
  const refused = parakeet(['transcribe', wav, '--model', description.path, '--stream', '--vocabulary', bad]);
  assert.equal(refused.status, 2, describeExit(refused));
  assert.match(refused.stderr, /line 1: the weight after the TAB is "lots"/);
});
