// The CLI contract of the custom vocabulary:
//   parakeet transcribe WAV --model M [--decoder D] --vocabulary FILE --json
// FILE: one phrase per line, optionally a TAB and a positive weight. An empty
// FILE gives the output of no --vocabulary; `parakeet eval` takes it too.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { EvalReport } from '../../app/cli/eval.js';
import type { TranscribeResult } from '../../native/index.js';
import { DIGITS_MODEL, ensureDigitsSet } from '../support/audio/digits.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples, writeWav16 } from './helpers/audio.js';
import { describeExit } from './helpers/child.js';
import { parakeet } from './helpers/cli.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('vocabulary-cli');

function ok(args: string[]): string {
  const r = parakeet(args);
  assert.equal(r.status, 0, `parakeet ${args.join(' ')}: ${describeExit(r)}`);
  return r.stdout;
}

/** The JSON's decoding (timings differ from run to run). */
function decoded(json: string): unknown {
  const { timings: _timings, ...rest } = JSON.parse(json) as TranscribeResult;
  return rest;
}

describe('parakeet transcribe --vocabulary (generated TDT+CTC model)', () => {
  const modelPath = join(dir, 'hybrid.gguf');
  generateModel(modelPath, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 452 });
  const wav = writeWav16(join(dir, 'speech.wav'), speechSamples(dir, seconds(3)));
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '');

  for (const decoder of ['tdt', 'ctc']) {
    test(`--decoder ${decoder}: an empty FILE gives the output of no --vocabulary`, () => {
      const base = ['transcribe', wav, '--model', modelPath, '--decoder', decoder, '--threads', '1'];
      assert.deepEqual(decoded(ok([...base, '--vocabulary', empty, '--json'])), decoded(ok([...base, '--json'])));
      assert.equal(ok([...base, '--vocabulary', empty]), ok(base));
    });
  }

  test('a bad weight or an unreadable FILE is a usage error naming the line or the file', () => {
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, 'first phrase\nsecond\t-2\n');
    const r = parakeet(['transcribe', wav, '--model', modelPath, '--vocabulary', bad, '--json']);
    assert.equal(r.status, 2, describeExit(r));
    assert.match(r.stderr, /line 2: the weight after the TAB is "-2"; write a positive number/);
    const missing = parakeet(['transcribe', wav, '--model', modelPath, '--vocabulary', join(dir, 'nope.txt')]);
    assert.equal(missing.status, 2, describeExit(missing));
    assert.match(missing.stderr, /--vocabulary .*nope\.txt: cannot read it/);
  });
});

const missingTool = ['espeak-ng', 'sox', 'python3'].find((t) => spawnSync('which', [t]).status !== 0);
const skipDigits = !existsSync(DIGITS_MODEL) ? `the trained test model is not at ${DIGITS_MODEL}` : missingTool ? `${missingTool} is not installed` : false;

describe('parakeet transcribe / eval --vocabulary (trained digits model)', { skip: skipDigits }, () => {
  const set = skipDigits ? { dir: '', items: [] } : ensureDigitsSet('vocabulary-cli', {
    seed: 0x0045_0002, perVoice: 2, voices: ['en-us'], rates: [150, 165], minWords: 4, maxWords: 6,
  });

  test('--json lists the phrases that fired (weights after a TAB) and those rejected', () => {
    const item = set.items[0];
    const words = item.text.split(' ');
    const file = join(dir, 'digits-vocabulary.txt');
    writeFileSync(file, `${words.slice(0, 2).join(' ')}\t2.5\n\n${words.slice(2, 4).join(' ')}\nnew line\n`);
    const json = JSON.parse(ok(['transcribe', item.wav, '--model', DIGITS_MODEL, '--decoder', 'ctc', '--vocabulary', file, '--json'])) as TranscribeResult;
    assert.equal(json.text, item.text);
    assert.deepEqual(json.phrasesFired, [words.slice(0, 2).join(' '), words.slice(2, 4).join(' ')]);
    assert.deepEqual(json.phrasesRejected.map((p) => p.phrase), ['new line']);
  });

  test('eval --vocabulary reports the phrases per file', () => {
    const file = join(dir, 'eval-vocabulary.txt');
    const first = set.items[0].text.split(' ').slice(0, 3).join(' ');
    writeFileSync(file, `${first}\n`);
    const report = JSON.parse(ok(['eval', set.dir, '--model', DIGITS_MODEL, '--vocabulary', file, '--json'])) as EvalReport;
    const own = report.files.find((f) => f.reference === set.items[0].text);
    assert.ok(own, 'the first item is in the report');
    assert.deepEqual(own.phrasesFired, [first]);
    assert.equal(own.wer, 0);
  });
});
