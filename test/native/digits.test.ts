// Real words through the real engine: the trained digits model
// (../shared/models/digits-en-ctc-test.gguf) on espeak-ng digit strings from
// the seeded test-set generator. The CLI gives the spoken digits for a WAV and
// for a FLAC of it (converted by sox, as the app does); `parakeet eval` scores
// a folder (text and JSON) at WER 0 or near it on clean speech; the engine's
// word times sit on espeak-ng's own word timings.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { EvalReport } from '../../app/cli/eval.js';
import { Model, type TranscribeResult } from '../../native/index.js';
import { DIGITS_MODEL, ensureDigitsSet, ensureNoisySet, readWav16, type DigitsSetOptions } from '../support/audio/digits.js';
import { describeExit } from './helpers/child.js';
import { parakeet } from './helpers/cli.js';
import { scratchDir } from './helpers/tmp.js';

const missingTool = ['espeak-ng', 'sox', 'python3'].find((t) => spawnSync('which', [t]).status !== 0);
const skip = !existsSync(DIGITS_MODEL)
  ? `the trained test model is not at ${DIGITS_MODEL} (set PARAKEET_DIGITS_MODEL)`
  : missingTool
    ? `${missingTool} is not installed`
    : false;

/** Six strings in two of the model's voices at ordinary rates: clean speech the model hears without error. */
const CHECKS: DigitsSetOptions = { seed: 0xd161_7500, perVoice: 3, voices: ['en-us', 'en'], rates: [150, 165, 180], minWords: 3, maxWords: 8 };

function ok(args: string[]): string {
  const r = parakeet(args);
  assert.equal(r.status, 0, `parakeet ${args.join(' ')}: ${describeExit(r)}`);
  return r.stdout;
}

describe('digits model: real words', { skip }, () => {
  const set = skip ? { dir: '', items: [] } : ensureDigitsSet('checks', CHECKS);
  const dir = skip ? '' : scratchDir('digits');

  test('the CLI transcribes a WAV to the spoken digits, and a FLAC of it (sox) to the same words and times', () => {
    const item = set.items.find((it) => it.text.split(' ').length >= 5)!;
    assert.ok(item, 'the check set has a string of 5+ words');
    const text = ok(['transcribe', item.wav, '--model', DIGITS_MODEL]).trim();
    assert.equal(text, item.text);

    mkdirSync(dir, { recursive: true });
    const flac = join(dir, 'digits.flac');
    execFileSync('sox', [item.wav, flac]);
    assert.notEqual(readFileSync(flac).subarray(0, 4).toString('latin1'), 'RIFF');
    assert.equal(ok(['transcribe', flac, '--model', DIGITS_MODEL]).trim(), item.text);
    const fromWav = JSON.parse(ok(['transcribe', item.wav, '--model', DIGITS_MODEL, '--json'])) as TranscribeResult;
    const fromFlac = JSON.parse(ok(['transcribe', flac, '--model', DIGITS_MODEL, '--json'])) as TranscribeResult;
    assert.deepEqual(fromFlac.words, fromWav.words); // lossless: the same samples reach the engine
  });

  test('parakeet eval: per-file and total WER/CER, text and JSON, at WER 0 on clean speech', () => {
    const report = JSON.parse(ok(['eval', set.dir, '--model', DIGITS_MODEL, '--json'])) as EvalReport;
    assert.equal(report.files.length, CHECKS.perVoice * CHECKS.voices!.length);
    assert.equal(report.decoder, 'ctc');
    for (const f of report.files) {
      const item = set.items.find((it) => `${it.id}.wav` === f.file)!;
      assert.equal(f.reference, item.text);
      assert.equal(f.hypothesis, item.text, `${f.file}: heard "${f.hypothesis}"`);
      assert.equal(f.wer, 0);
      assert.equal(f.cer, 0);
    }
    assert.equal(report.total.word.n, set.items.reduce((n, it) => n + it.text.split(' ').length, 0));
    assert.equal(report.total.wer, 0);

    const text = ok(['eval', set.dir, '--model', DIGITS_MODEL, '--weight-type', 'q8_0', '--decoder', 'ctc', '--device', 'cpu']);
    assert.match(text, new RegExp(`^total: ${report.files.length} files, ${report.total.word.n} words`, 'm'));
    assert.match(text, /^WER \d+\.\d\d% \(\d+ substitutions, \d+ deletions, \d+ insertions\)$/m);
    assert.match(text, /weight type q8_0/);
    for (const f of report.files) assert.match(text, new RegExp(`^${f.file} +\\d+\\.\\d\\d% +\\d+\\.\\d\\d%`, 'm'));
    const wer = Number(/^WER (\d+\.\d\d)%/m.exec(text)![1]);
    assert.ok(wer <= 5, `Q8_0 weights converted at load: WER ${wer}% on clean speech`);
  });

  test('eval refuses a folder without references and a bad flag, with usage exit codes', () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    const r = parakeet(['eval', empty, '--model', DIGITS_MODEL]);
    assert.equal(r.status, 1, describeExit(r));
    assert.match(r.stderr, /no \*\.wav file with a \*\.txt reference/);
    assert.equal(parakeet(['eval', set.dir]).status, 2);
    assert.equal(parakeet(['eval', set.dir, '--model', DIGITS_MODEL, '--weight-type', 'q3']).status, 2);
  });

  test('quantize says how many tensors took the type, and warns when none could (144-wide rows fit no K-quant block)', () => {
    const q8 = parakeet(['quantize', DIGITS_MODEL, join(dir, 'q8_0.gguf'), 'q8_0']);
    assert.equal(q8.status, 0, describeExit(q8));
    assert.match(q8.stderr, /wrote .*\(tensors: .*q8_0×\d+/);
    assert.doesNotMatch(q8.stderr, /warning/);
    const report = JSON.parse(ok(['eval', set.dir, '--model', join(dir, 'q8_0.gguf'), '--json'])) as EvalReport;
    assert.ok(report.total.wer <= 0.05, `Q8_0 file: WER ${report.total.wer}`);
    const q4k = parakeet(['quantize', DIGITS_MODEL, join(dir, 'q4_k.gguf'), 'q4_k']);
    assert.equal(q4k.status, 0, describeExit(q4k));
    assert.match(q4k.stderr, /warning: no tensor could be stored as q4_k/);
  });

  test('noisy copies: each file at the SNR asked for, noise over all of it, the same references', () => {
    const noisy = ensureNoisySet(set, 'pink', 10);
    assert.equal(noisy.items.length, set.items.length);
    for (const [i, item] of noisy.items.entries()) {
      const clean = readWav16(set.items[i].wav).samples;
      const mixed = readWav16(item.wav).samples;
      assert.equal(mixed.length, clean.length);
      let ps = 0;
      let pn = 0;
      let lastQuarter = 0;
      for (let k = 0; k < clean.length; k++) {
        const n = mixed[k] - clean[k];
        ps += clean[k] ** 2;
        pn += n ** 2;
        if (k >= (3 * clean.length) / 4) lastQuarter += n ** 2;
      }
      const snr = 10 * Math.log10(ps / pn);
      assert.ok(Math.abs(snr - 10) < 0.2, `${item.id}: SNR ${snr.toFixed(2)} dB`);
      assert.ok(lastQuarter > pn / 8, `${item.id}: noise reaches the end of the file`);
      assert.equal(readFileSync(item.wav.replace(/\.wav$/, '.txt'), 'utf8').trim(), set.items[i].text);
    }
  });

  test("word times: each word's time (its CTC spike) within 0.2 s of the middle of espeak-ng's word", async () => {
    const model = await Model.load(DIGITS_MODEL, {});
    try {
      for (const item of set.items) {
        const audio = readWav16(item.wav);
        const r = await model.transcribe(audio.samples, { sampleRate: audio.sampleRate });
        assert.deepEqual(r.words.map((w) => w.text), item.words.map((w) => w.text), item.id);
        r.words.forEach((w, i) => {
          const spoken = item.words[i];
          const middle = (spoken.start + spoken.end) / 2;
          assert.ok(Math.abs(w.start - middle) <= 0.2, `${item.id} word ${i} "${w.text}": at ${w.start.toFixed(2)} s, espeak-ng spoke it ${spoken.start.toFixed(2)}–${spoken.end.toFixed(2)} s`);
          assert.ok(w.end >= w.start);
        });
      }
    } finally {
      model.dispose();
    }
  });
});
