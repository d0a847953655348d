// Every model file of another project that users bring as "a Parakeet model" is refused by name: the
// message says what the file is and what to use instead, with the engine's MODEL_INVALID code, never
// a crash and never a bare "invalid file" (issue 46, items 3 and 4).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model } from '../../native/index.js';
import { type ForeignKind, FOREIGN_KINDS, writeAsrWithVadHead, writeForeignModel } from '../support/model/foreign.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { rejectsWithCode } from './helpers/engine.js';
import { assertSameDecoding } from './helpers/same-decoding.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('foreign');

/** What the message must name for each kind (the file's identity). */
const NAMED: Readonly<Record<ForeignKind, RegExp>> = {
  'whisper-cpp-bin': /whisper\.cpp model file \(legacy ggml \.bin/,
  'transcribe-cpp-stt': /transcribe\.cpp model file \(its keys are 'stt\.\*'\)/,
  'crispasr-flat': /CrispASR Parakeet file \(flat keys such as 'parakeet\.d_model'/,
  diarization: /speaker-diarization model/,
  'vad-only-slice': /VAD-only slice \(parakeet\.vad_only\.\*\)/,
  'ternary-redux': /packed-ternary Moondream Redux model/,
  'language-model': /'llama': this is a large language model/,
  'unknown-architecture': /'conformer-x', a model family this app does not know/,
};

describe('a model file of another project', () => {
  for (const kind of FOREIGN_KINDS) {
    test(`${kind}: refused by name, with what to use instead`, async () => {
      const path = join(dir, `${kind}.${kind === 'whisper-cpp-bin' ? 'bin' : 'gguf'}`);
      writeForeignModel(path, kind);
      const error = await rejectsWithCode(Model.load(path, { threads: 1 }), 'MODEL_INVALID', NAMED[kind]);
      assert.match(error.message, /parakeet\.cpp GGUF format/, 'says which files to use instead');
      assert.doesNotMatch(error.message, /invalid file|corrupt/i);
      assert.ok(error.message.startsWith(path), 'names the file');
    });
  }
});

describe('a Parakeet ASR model that also carries a Moondream VAD head', () => {
  test('loads as speech recognition (parakeet.vad.*, vad_head.* are left unused) and decodes as the model without them', async () => {
    const plain = join(dir, 'no-head.gguf');
    const withHead = join(dir, 'with-head.gguf');
    writeAsrWithVadHead(plain, withHead);
    await assertSameDecoding(plain, withHead, speechSamples(dir, seconds(3)));
  });
});
