// Custom vocabulary through the addon (native/index.ts `vocabulary`): an empty
// list decodes bit-identically on every architecture and decoder; a 1,000-phrase
// list on generated TDT/RNNT/CTC models neither crashes nor empties a result;
// the limit, the weights and the never-boosted spoken commands are enforced;
// on the trained digits model a phrase that is spoken fires.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model, type DecoderName, type TranscribeResult } from '../../native/index.js';
import { NEVER_BOOSTED, vocabularyOptions, type VocabularyPhrase } from '../../app/shared/vocabulary.js';
import { DIGITS_MODEL, digitString, ensureDigitsSet, prng, readWav16 } from '../support/audio/digits.js';
import { generateModel } from '../support/model/generate.js';
import type { Arch } from '../support/model/options.js';
import { noise, seconds, silence, speechSamples } from './helpers/audio.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('vocabulary');
const pcm = speechSamples(dir, seconds(4));
const WORD_MARK = '\u2581';

/** What decoding produced (timings and the vocabulary report aside). */
function decoded(r: TranscribeResult): unknown {
  return { text: r.text, words: r.words, tokens: r.tokens, windows: r.windows };
}

/** `count` phrases of 1–3 word pieces of the model's own vocabulary. */
function phrasesFromPieces(pieces: readonly string[], count: number, seed: number): VocabularyPhrase[] {
  const words = pieces.filter((p) => p.startsWith(WORD_MARK) && p.length > 1).map((p) => p.slice(1));
  const random = prng(seed);
  return Array.from({ length: count }, () => {
    const n = 1 + Math.floor(random() * 3);
    const phrase = Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
    return { phrase, weight: 0.5 + random() * 2 };
  });
}

const CASES: { arch: Arch; decoders: DecoderName[] }[] = [
  { arch: 'ctc', decoders: ['ctc'] },
  { arch: 'rnnt', decoders: ['rnnt'] },
  { arch: 'tdt', decoders: ['tdt'] },
  { arch: 'hybrid_tdt_ctc', decoders: ['tdt', 'ctc'] },
  { arch: 'hybrid_rnnt_ctc', decoders: ['rnnt', 'ctc'] },
];

describe('vocabulary on generated models', () => {
  for (const [i, { arch, decoders }] of CASES.entries()) {
    test(`${arch}: an empty vocabulary is bit-identical; 1,000 phrases neither crash nor empty the result`, async () => {
      const description = generateModel(join(dir, `${arch}.gguf`), { preset: 'tiny', arch, seed: 450 + i });
      const model = await Model.load(description.path, { threads: 1 });
      try {
        for (const decoder of decoders) {
          const plain = await model.transcribe(pcm, { decoder });
          const empty = await model.transcribe(pcm, { decoder, vocabulary: [], neverBoost: [] });
          assert.deepEqual(decoded(empty), decoded(plain), `${arch}/${decoder}: vocabulary [] changed the output`);
          assert.deepEqual(empty.phrasesFired, []);

          const many = phrasesFromPieces(description.pieces, 1000, 7 + i);
          const boosted = await model.transcribe(pcm, { decoder, ...vocabularyOptions(many) });
          if (plain.text.trim() !== '') assert.notEqual(boosted.text.trim(), '', `${arch}/${decoder}: 1,000 phrases emptied the result`);
          assert.ok(boosted.tokens.length <= plain.tokens.length * 2 + 8, `${arch}/${decoder}: ${boosted.tokens.length} tokens vs ${plain.tokens.length}`);
          for (const fired of boosted.phrasesFired) assert.ok(many.some((p) => p.phrase === fired), `fired "${fired}" is not a phrase`);
          if (decoder === 'tdt') {
            // Durations are the model's: every boosted token keeps a duration of the model's set.
            const allowed = new Set(model.info().durations);
            for (const t of boosted.tokens) assert.ok(allowed.has(t.duration), `duration ${t.duration}`);
          }
        }
      } finally {
        model.dispose();
      }
    });
  }

  test('VAD gating: no decision is bought in what the caller marks as non-speech', async () => {
    const description = generateModel(join(dir, 'gated.gguf'), { preset: 'tiny', arch: 'ctc', seed: 457 });
    const model = await Model.load(description.path, { threads: 1 });
    try {
      const options = vocabularyOptions(phrasesFromPieces(description.pieces, 1000, 17));
      const plain = await model.transcribe(pcm, {});
      const boosted = await model.transcribe(pcm, options);
      assert.notDeepEqual(decoded(boosted), decoded(plain), 'the list buys decisions on this clip (the case needs it)');
      const clip = pcm.length / 16000;
      const gated = await model.transcribe(pcm, { ...options, nonSpeech: [{ start: 0, end: clip }] });
      assert.deepEqual(decoded(gated), decoded(plain), 'all non-speech: the model\'s own decisions');
      // Gated in the first half only: that half is the model's own (CTC decides frame by frame).
      const half = clip / 2;
      const firstHalf = (r: TranscribeResult) => r.tokens.filter((t) => t.frame * model.info().frameSec < half - 0.2).map((t) => t.id);
      const partly = await model.transcribe(pcm, { ...options, nonSpeech: [{ start: 0, end: half }] });
      assert.deepEqual(firstHalf(partly), firstHalf(plain));
      await assert.rejects(model.transcribe(pcm, { ...options, nonSpeech: [{ start: 2, end: 1 }] }), /non-speech range is 2\.0+ \.\. 1\.0+ s/);
    } finally {
      model.dispose();
    }
  });

  test('more than 1,000 phrases and non-positive weights are refused with a clear message', async () => {
    const description = generateModel(join(dir, 'limits.gguf'), { preset: 'tiny', arch: 'ctc', seed: 461 });
    const model = await Model.load(description.path, { threads: 1 });
    try {
      const tooMany = phrasesFromPieces(description.pieces, 1001, 3);
      await assert.rejects(model.transcribe(pcm, { vocabulary: tooMany }), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'BAD_ARGUMENT');
        assert.match(e.message, /1001 phrases; at most 1000/);
        return true;
      });
      await assert.rejects(model.transcribe(pcm, { vocabulary: [{ phrase: 'x', weight: 0 }] }), /weights must be positive/);
      await assert.rejects(model.transcribe(pcm, { vocabulary: [{ phrase: 3 } as unknown as VocabularyPhrase] }), /vocabulary\[0\] must be/);
    } finally {
      model.dispose();
    }
  });
});

const missingTool = ['espeak-ng', 'sox', 'python3'].find((t) => spawnSync('which', [t]).status !== 0);
const skipDigits = !existsSync(DIGITS_MODEL) ? `the trained test model is not at ${DIGITS_MODEL}` : missingTool ? `${missingTool} is not installed` : false;

describe('vocabulary on the trained digits model', { skip: skipDigits }, () => {
  test('a spoken phrase fires and the text stays; spoken commands and foreign characters are reported, not boosted', async () => {
    const set = ensureDigitsSet('vocabulary-checks', { seed: 0x0045_0001, perVoice: 2, voices: ['en-us'], rates: [150, 165], minWords: 4, maxWords: 6 });
    const model = await Model.load(DIGITS_MODEL, { threads: 1 });
    try {
      const item = set.items[0];
      const audio = readWav16(item.wav);
      const plain = await model.transcribe(audio.samples, {});
      const spoken = item.text.split(' ').slice(1, 3).join(' ');
      const r = await model.transcribe(audio.samples, {
        ...vocabularyOptions([{ phrase: spoken, weight: 1 }, { phrase: 'seven period', weight: 1 }, { phrase: 'eleven', weight: 1 }]),
      });
      assert.equal(plain.text, item.text, 'clean en-us speech: the model hears it right');
      assert.equal(r.text, item.text);
      assert.deepEqual(r.phrasesFired, [spoken]);
      assert.deepEqual(r.phrasesRejected.map((p) => p.phrase), ['seven period', 'eleven']);
      assert.match(r.phrasesRejected[0].reason, /spoken command 'period'/);
      assert.match(r.phrasesRejected[1].reason, /character 'l' is not in the model's vocabulary/);
      assert.ok(NEVER_BOOSTED.includes('new line'));
    } finally {
      model.dispose();
    }
  });

  test('no words out of silence with 1,000 digit phrases loaded; noise gains no token', async () => {
    const random = prng(0x0045_0003);
    const phrases = Array.from({ length: 1000 }, () => ({ phrase: digitString(random, 2 + Math.floor(random() * 3)), weight: 1.5 }));
    const model = await Model.load(DIGITS_MODEL, { threads: 1 });
    try {
      const quiet = silence(seconds(3));
      assert.equal((await model.transcribe(quiet, {})).words.length, 0, 'the model alone hears nothing in silence');
      const fromSilence = await model.transcribe(quiet, vocabularyOptions(phrases));
      assert.equal(fromSilence.words.length, 0, `"${fromSilence.text}" out of silence`);
      assert.deepEqual(fromSilence.phrasesFired, []);
      // White noise, which this model (per-feature normalization) hears as digits at any level: the bonus
      // may re-rank a word it heard, never add one or move it.
      const loud = noise(seconds(3), 0.3, 46);
      const plain = await model.transcribe(loud, {});
      const boosted = await model.transcribe(loud, vocabularyOptions(phrases));
      assert.equal(boosted.tokens.length, plain.tokens.length, `"${plain.text}" → "${boosted.text}"`);
      assert.deepEqual(boosted.tokens.map((t) => t.frame), plain.tokens.map((t) => t.frame));
    } finally {
      model.dispose();
    }
  });
});
