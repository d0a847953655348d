// Phrase tokenization for the custom vocabulary (Model.checkVocabulary, what Settings shows per phrase):
// a parakeet.cpp file holds pieces only, so a phrase is every plausible segmentation (longest match
// first); an NVIDIA file that embeds its SentencePiece model is tokenized exactly as that model
// tokenizes (unigram: the best-scored split, here not the longest match), and transcription boosts
// exactly those pieces. A malformed embedded model falls back to the piece list; the model still loads.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Model } from '../../native/index.js';
import { NEVER_BOOSTED } from '../../app/shared/vocabulary.js';
import { checkVocabulary } from '../../app/main/vocabulary-check.js';
import { generateModel } from '../support/model/generate.js';
import { sentencePieceModel } from '../support/model/nemo-archive.js';
import { writeNvidiaSchema } from '../support/model/nvidia-schema.js';
import { ONE_THREAD } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('vocabulary-tokenizer');
const MARK = '\u2581';

/** A word piece "▁ab…" that also splits into two pieces "▁a…" + "…b": the case where scores decide. */
function splittableWord(pieces: readonly string[]): { word: string; whole: string; split: [string, string] } {
  const known = new Set(pieces);
  for (const whole of pieces) {
    if (!whole.startsWith(MARK) || whole.length < 4 || !/^[a-z]+$/.test(whole.slice(1))) continue;
    for (let k = 2; k < whole.length - 1; k++) {
      const head = whole.slice(0, k);
      const tail = whole.slice(k);
      if (known.has(head) && known.has(tail)) return { word: whole.slice(1), whole, split: [head, tail] };
    }
  }
  throw new Error('the generated vocabulary has no word piece that also splits in two');
}

test('an embedded unigram SentencePiece model tokenizes phrases exactly; the piece list alone gives every plausible split', async () => {
  const ours = join(dir, 'ctc.gguf');
  const description = generateModel(ours, { preset: 'tiny', arch: 'ctc', seed: 4504 });
  const { word, whole, split } = splittableWord(description.pieces);
  // Scores that make the two-piece split the unigram model's best: the whole word is rare.
  const scores = description.pieces.map((p) => (p === whole ? -100 : split.includes(p) ? -1 : -10));
  const theirs = join(dir, 'ctc.asr.gguf');
  writeNvidiaSchema(ours, theirs, { weightType: 'as-source', sentencePiece: sentencePieceModel(description.pieces, { scores, modelType: 'unigram' }) });

  const plain = await Model.load(ours, ONE_THREAD);
  const nvidia = await Model.load(theirs, ONE_THREAD);
  try {
    const [enumerated] = plain.checkVocabulary([{ phrase: word, weight: 1 }]);
    assert.equal(enumerated.exact, false);
    assert.deepEqual(enumerated.spellings[0], [whole], 'without scores the longest match comes first');
    assert.ok(enumerated.spellings.some((s) => s.join('|') === split.join('|')), 'and the split is among the alternatives');

    const [exact] = nvidia.checkVocabulary([{ phrase: word, weight: 1 }]);
    assert.equal(exact.exact, true);
    assert.equal(exact.reason, undefined);
    assert.deepEqual(exact.spellings, [split], `"${word}" only as the SentencePiece model splits it`);

    // Settings' view of the same answer (vocabulary:check), and a rejected phrase with its reason.
    const verdict = await checkVocabulary({ loadedModel: nvidia.info(), checkVocabulary: async (p, n) => nvidia.checkVocabulary(p, n) },
      [{ phrase: word, weight: 1 }, { phrase: 'new line', weight: 1 }, { phrase: '€€', weight: 1 }]);
    assert.equal(verdict.exact, true);
    assert.deepEqual(verdict.phrases.map((p) => [p.phrase, p.pieces, p.reason === undefined]), [[word, split, true], ['new line', [], false], ['€€', [], false]]);
    assert.match(verdict.phrases[1].reason!, /spoken command 'new line'/);
    assert.match(verdict.phrases[2].reason!, /character '€' is not in the model's vocabulary/);
    assert.ok(NEVER_BOOSTED.includes('new line'));
  } finally {
    plain.dispose();
    nvidia.dispose();
  }
});

test('a malformed embedded SentencePiece model: the file loads, phrases come from the piece list; too many phrases are refused', async () => {
  const ours = join(dir, 'rnnt.gguf');
  const description = generateModel(ours, { preset: 'tiny', arch: 'rnnt', seed: 4505 });
  const theirs = join(dir, 'rnnt.asr.gguf');
  writeNvidiaSchema(ours, theirs, { weightType: 'as-source', sentencePiece: Uint8Array.from([0x0a, 0x7f, 0x01]) });
  const model = await Model.load(theirs, ONE_THREAD);
  try {
    const word = description.pieces.find((p) => p.startsWith(MARK) && p.length > 3)!.slice(1);
    const [check] = model.checkVocabulary([{ phrase: word, weight: 1 }]);
    assert.equal(check.exact, false);
    assert.equal(check.reason, undefined);
    assert.ok(check.spellings.length >= 1);
    const tooMany = Array.from({ length: 1001 }, () => ({ phrase: word, weight: 1 }));
    assert.throws(() => model.checkVocabulary(tooMany), /1001 phrases; at most 1000/);
  } finally {
    model.dispose();
  }
});
