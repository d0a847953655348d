// NVIDIA NeMo-Speech.cpp GGUFs (general.architecture "asr"): a file our writer converts from one of our
// parakeet.cpp-schema models, as NVIDIA's converter would from the same checkpoint, decodes exactly as
// that model on every architecture and head; the embedded SentencePiece model is kept; what the
// engine cannot run is refused by name (issue 46, item 1).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model } from '../../native/index.js';
import { gv } from '../support/gguf/values.js';
import { generateModel } from '../support/model/generate.js';
import { writeNvidiaSchema, writeWithNvidiaStorage } from '../support/model/nvidia-schema.js';
import { ARCHS } from '../support/model/options.js';
import { seconds, speechSamples, writeWav16 } from './helpers/audio.js';
import { parakeet } from './helpers/cli.js';
import { ONE_THREAD, rejectsWithCode } from './helpers/engine.js';
import { assertSameDecoding } from './helpers/same-decoding.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('nvidia');
const pcm = (): Float32Array => speechSamples(dir, seconds(4));
/** Stand-in bytes for the SentencePiece model proto (the engine keeps them opaque). */
const SPM = Uint8Array.from({ length: 1000 }, (_, i) => (i * 37 + 11) & 0xff);

describe('an NVIDIA NeMo-Speech.cpp file of the same weights', () => {
  for (const arch of ARCHS) {
    test(`${arch}: same tokens and text as the parakeet.cpp file`, async () => {
      const ours = join(dir, `${arch}.gguf`);
      const theirs = join(dir, `${arch}.asr.gguf`);
      generateModel(ours, { preset: 'tiny', arch, seed: 46 });
      writeNvidiaSchema(ours, theirs, { weightType: 'as-source', sentencePiece: SPM });
      await assertSameDecoding(ours, theirs, pcm());
    });
  }

  for (const weightType of ['q8_0', 'bf16', 'f16'] as const) {
    test(`${weightType} (the converter's storage: ${weightType} linears, F16 convs and embedding): same as parakeet.cpp names over the same bytes`, async () => {
      const ours = join(dir, `hybrid-${weightType}.src.gguf`);
      generateModel(ours, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 7 });
      const twin = join(dir, `hybrid-${weightType}.gguf`);
      const theirs = join(dir, `hybrid-${weightType}.asr.gguf`);
      writeWithNvidiaStorage(ours, twin, weightType);
      writeNvidiaSchema(ours, theirs, { weightType });
      await assertSameDecoding(twin, theirs, pcm());
      const model = await Model.load(theirs, ONE_THREAD);
      try {
        const types = model.info().tensorTypes;
        assert.ok((types[weightType] ?? 0) > 0 && (types.f16 ?? 0) > 0, JSON.stringify(types));
      } finally {
        model.dispose();
      }
    });
  }

  test('without preprocessor.fb (converted without librosa): NeMo\'s Slaney filterbank computed, same tokens as the file that stores it', async () => {
    const ours = join(dir, 'no-fb.gguf');
    const theirs = join(dir, 'no-fb.asr.gguf');
    generateModel(ours, { preset: 'tiny', arch: 'tdt', seed: 9 });
    writeNvidiaSchema(ours, theirs, { weightType: 'as-source', omitFilterbank: true });
    await assertSameDecoding(ours, theirs, pcm());
    const model = await Model.load(theirs, ONE_THREAD);
    const mel = (await model.transcribe(pcm(), { captureMel: true })).mel;
    const reference = await Model.load(ours, ONE_THREAD);
    const expected = (await reference.transcribe(pcm(), { captureMel: true })).mel;
    try {
      assert.ok(mel && expected && mel.data.length === expected.data.length);
      let worst = 0;
      for (let i = 0; i < mel.data.length; i++) worst = Math.max(worst, Math.abs(mel.data[i] - expected.data[i]));
      assert.ok(worst < 1e-4, `log-mel differs by ${worst}`);
    } finally {
      model.dispose();
      reference.dispose();
    }
  });

  test('info names the schema, and the embedded SentencePiece model comes back byte for byte', async () => {
    const ours = join(dir, 'info.gguf');
    const theirs = join(dir, 'info.asr.gguf');
    generateModel(ours, { preset: 'tiny', arch: 'hybrid_tdt_ctc', label: 'nvidia/parakeet-tdt_ctc-tiny' });
    writeNvidiaSchema(ours, theirs, { weightType: 'as-source', sentencePiece: SPM });
    const model = await Model.load(theirs, ONE_THREAD);
    const plain = await Model.load(ours, ONE_THREAD);
    try {
      const info = model.info();
      assert.equal(info.schema, 'NeMo-Speech.cpp');
      assert.equal(info.name, 'nvidia/parakeet-tdt_ctc-tiny');
      assert.equal(info.arch, 'hybrid_tdt_ctc');
      assert.equal(info.winLength, 400);
      assert.equal(info.hopLength, 160);
      assert.equal(info.sentencePieceBytes, SPM.length);
      assert.deepEqual(model.sentencePieceModel(), Buffer.from(SPM));
      assert.equal(plain.info().schema, 'parakeet.cpp');
      assert.equal(plain.sentencePieceModel(), null);
    } finally {
      model.dispose();
      plain.dispose();
    }
  });
});

describe('the CLI on an NVIDIA file', () => {
  test('`parakeet info` names the schema and the SentencePiece model; `transcribe` gives the parakeet.cpp file\'s text', async () => {
    const ours = join(dir, 'cli.gguf');
    const theirs = join(dir, 'cli.asr.gguf');
    generateModel(ours, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 12 });
    writeNvidiaSchema(ours, theirs, { weightType: 'q8_0', sentencePiece: SPM });
    const info = parakeet(['info', theirs]);
    assert.equal(info.status, 0, info.stderr);
    assert.match(info.stdout, /schema: {7}NeMo-Speech\.cpp/);
    assert.match(info.stdout, /vocabulary: {3}96 pieces \(blank 96\), embedded SentencePiece model/);
    const wav = writeWav16(join(dir, 'cli.wav'), pcm());
    const text = (model: string): string => {
      const run = parakeet(['transcribe', wav, '--model', model, '--threads', '1']);
      assert.equal(run.status, 0, run.stderr);
      return run.stdout;
    };
    const twin = join(dir, 'cli.twin.gguf');
    writeWithNvidiaStorage(ours, twin, 'q8_0');
    const expected = text(twin);
    assert.ok(expected.trim().length > 0);
    assert.equal(text(theirs), expected);
  });
});

describe('what of an NVIDIA file the engine cannot run is refused by name', () => {
  const source = join(dir, 'refusals.gguf');
  const cases: [string, Parameters<typeof writeNvidiaSchema>[2], RegExp][] = [
    ['planar-q8', { weightType: 'q8_0', q8Layout: 'tensor_planar_v1' }, /q8_layout = 'tensor_planar_v1': Q8_0 weights in NVIDIA's CUDA-only planar layout/],
    ['prompts', { weightType: 'as-source', extraKv: [{ key: 'asr.rnnt.num_prompts', value: gv.u32(128) }] }, /prompt-conditioned model \(Nemotron-3\.5/],
    ['head', { weightType: 'as-source', extraKv: [{ key: 'asr.head_type', value: gv.str('aed') }] }, /asr\.head_type = 'aed' is not a head/],
    ['vocab', { weightType: 'as-source', extraKv: [{ key: 'asr.rnnt.vocab_size', value: gv.u32(0) }] }, /asr\.rnnt\.vocab_size = 0 \(it counts the pieces and the blank/],
    ['window', { weightType: 'as-source', extraKv: [{ key: 'asr.preprocessor.window_size', value: gv.f32(1) }] }, /window of 16000 samples, which does not fit n_fft/],
  ];
  for (const [label, conversion, message] of cases) {
    test(label, async () => {
      generateModel(source, { preset: 'tiny', arch: 'hybrid_tdt_ctc' });
      const path = join(dir, `${label}.asr.gguf`);
      writeNvidiaSchema(source, path, conversion);
      await rejectsWithCode(Model.load(path, ONE_THREAD), 'MODEL_INVALID', message);
    });
  }
});
