// The malformed model files are broken exactly in the intended way: container
// damage makes the GGUF reader fail with the matching complaint, and semantic
// damage leaves a well-formed GGUF with one specific thing wrong.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type GgufFile, GgufFormatError, readGguf, readTensorBytes, readTensorF32 } from '../../support/gguf/reader.js';
import { GgmlType, GgufValueType } from '../../support/gguf/types.js';
import { generateModel } from '../../support/model/generate.js';
import { MALFORMED_BASE, MALFORMED_CASES, writeCorruptedCopies } from '../../support/model/malformed.js';
import { scratchDir } from './tmp.js';

const dir = scratchDir('gguf-malformed');

/** Cases the GGUF container parser itself must reject, with the reason it should give. */
const CONTAINER: Record<string, RegExp> = {
  'empty-file': /not a GGUF file: only 0 bytes/,
  'three-bytes': /not a GGUF file: only 3 bytes/,
  'random-bytes': /bad magic/,
  'wav-file': /bad magic "RIFF"/,
  'bad-magic': /bad magic "GGUG"/,
  'version-1': /unsupported GGUF version 1/,
  'version-4': /unsupported GGUF version 4/,
  'truncated-in-magic-and-version': /truncated/,
  'truncated-in-header': /truncated/,
  'truncated-in-kv': /parakeet\.tokenizer\.pieces|truncated/,
  'truncated-in-tensor-infos': /truncated|exceeds/,
  'truncated-at-data-start': /extends past end of file/,
  'truncated-in-last-tensor': /tensor 'ctc_decoder\.decoder_layers\.0\.bias' data .* extends past end of file/,
  'tensor-offset-past-eof': /has data offset 1099511627776/,
};

const kvValue = (f: GgufFile, key: string) => f.kv.get(key)?.value;

/** What must hold in each well-formed but wrong file. */
const SEMANTIC: Record<string, (f: GgufFile) => void> = {
  'arch-silero-vad': (f) => assert.equal(kvValue(f, 'general.architecture'), 'silero_vad'),
  'arch-llama': (f) => assert.equal(kvValue(f, 'general.architecture'), 'llama'),
  'parakeet-arch-diarization': (f) => assert.equal(kvValue(f, 'parakeet.arch'), 'diarization'),
  'parakeet-arch-vad': (f) => assert.equal(kvValue(f, 'parakeet.arch'), 'vad'),
  'parakeet-arch-unknown': (f) => assert.equal(kvValue(f, 'parakeet.arch'), 'whisper'),
  'no-general-architecture': (f) => assert.ok(!f.kv.has('general.architecture')),
  'd-model-as-string': (f) => assert.deepEqual(f.kv.get('parakeet.encoder.d_model'), { type: GgufValueType.STRING, value: '64' }),
  'd-model-2-pow-31': (f) => assert.equal(kvValue(f, 'parakeet.encoder.d_model'), 2 ** 31),
  'n-layers-100000': (f) => assert.equal(kvValue(f, 'parakeet.encoder.n_layers'), 100000),
  'vocab-size-mismatch': (f) => {
    assert.equal(kvValue(f, 'parakeet.vocab_size'), 97);
    assert.equal((kvValue(f, 'parakeet.tokenizer.pieces') as string[]).length, 96);
  },
  'blank-id-wrong': (f) => assert.equal(kvValue(f, 'parakeet.blank_id'), 0),
  'n-heads-not-dividing': (f) => assert.equal(64 % (kvValue(f, 'parakeet.encoder.n_heads') as number), 4),
  'conv-kernel-even': (f) => assert.equal(kvValue(f, 'parakeet.encoder.conv_kernel'), 8),
  'pieces-not-strings': (f) => {
    const v = f.kv.get('parakeet.tokenizer.pieces');
    assert.ok(v?.type === GgufValueType.ARRAY && v.itemType === GgufValueType.INT32);
  },
  'durations-not-ints': (f) => {
    const v = f.kv.get('parakeet.tdt.durations');
    assert.ok(v?.type === GgufValueType.ARRAY && v.itemType === GgufValueType.STRING);
  },
  'missing-linear-q': (f) => {
    assert.ok(!f.tensors.has('encoder.layers.0.self_attn.linear_q.weight'));
    assert.ok(f.tensors.has('encoder.layers.1.self_attn.linear_q.weight'));
  },
  'misshaped-linear1': (f) => assert.deepEqual(f.tensors.get('encoder.layers.1.feed_forward1.linear1.weight')?.ne, [64, 255]),
  'misshaped-fb': (f) => assert.deepEqual(f.tensors.get('preprocessor.featurizer.fb')?.ne, [256, 80, 1]),
  'transducer-without-joint': (f) => {
    assert.equal(kvValue(f, 'parakeet.arch'), 'tdt');
    assert.ok(f.tensors.has('decoder.prediction.embed.weight'));
    assert.ok(![...f.tensors.keys()].some((n) => n.startsWith('joint.')));
  },
  'joint-output-missing': (f) => {
    assert.ok(f.tensors.has('joint.enc.weight'));
    assert.ok(!f.tensors.has('joint.joint_net.2.weight'));
  },
  ...Object.fromEntries(
    [
      ['missing-ff-bias', 'encoder.layers.1.feed_forward1.linear1.bias', 'encoder.layers.0.feed_forward1.linear1.bias'],
      ['missing-attention-bias', 'encoder.layers.0.self_attn.linear_v.bias', 'encoder.layers.1.self_attn.linear_v.bias'],
      ['missing-depthwise-bias', 'encoder.layers.1.conv.depthwise_conv.bias', 'encoder.layers.0.conv.depthwise_conv.bias'],
      ['missing-pointwise-bias', 'encoder.layers.0.conv.pointwise_conv2.bias', 'encoder.layers.1.conv.pointwise_conv2.bias'],
      ['missing-norm-bias', 'encoder.layers.1.norm_conv.bias', 'encoder.layers.0.norm_conv.bias'],
      ['missing-pos-bias-v', 'encoder.layers.0.self_attn.pos_bias_v', 'encoder.layers.0.self_attn.pos_bias_u'],
      ['missing-subsampling-bias', 'encoder.pre_encode.conv.2.bias', 'encoder.pre_encode.conv.2.weight'],
      ['missing-lstm-bias', 'decoder.prediction.dec_rnn.lstm.bias_hh_l0', 'decoder.prediction.dec_rnn.lstm.bias_ih_l0'],
      ['missing-window', 'preprocessor.featurizer.window', 'preprocessor.featurizer.fb'],
    ].map(([name, gone, kept]) => [name!, (f: GgufFile) => {
      assert.ok(!f.tensors.has(gone!), `${gone} is gone`);
      assert.ok(f.tensors.has(kept!), `${kept} is still there`);
      assert.equal(kvValue(f, 'parakeet.encoder.use_bias'), true);
    }]),
  ),
  'biases-without-use-bias': (f) => {
    assert.equal(kvValue(f, 'parakeet.encoder.use_bias'), false);
    assert.ok(f.tensors.has('encoder.layers.0.feed_forward1.linear1.bias'));
  },
  'nan-weight-f32': (f) => {
    const v = readTensorF32(f, 'encoder.layers.1.feed_forward1.linear1.weight');
    assert.ok(Number.isNaN(v[5]) && Number.isFinite(v[4]) && Number.isFinite(v[6]));
  },
  'inf-weight-f32': (f) => assert.equal(readTensorF32(f, 'decoder.prediction.embed.weight')[70], Number.POSITIVE_INFINITY),
  'neg-inf-bias-f32': (f) => assert.equal(readTensorF32(f, 'ctc_decoder.decoder_layers.0.bias')[0], Number.NEGATIVE_INFINITY),
  'inf-weight-f16': (f) => {
    assert.equal(f.tensors.get('encoder.layers.0.feed_forward2.linear2.weight')?.type, GgmlType.F16);
    assert.equal(readTensorF32(f, 'encoder.layers.0.feed_forward2.linear2.weight')[33], Number.POSITIVE_INFINITY);
  },
  'nan-scale-q8_0': (f) => {
    assert.equal(f.tensors.get('encoder.layers.1.self_attn.linear_q.weight')?.type, GgmlType.Q8_0);
    const v = readTensorF32(f, 'encoder.layers.1.self_attn.linear_q.weight');
    assert.ok(v.subarray(96, 128).some(Number.isNaN) && v.subarray(0, 96).every(Number.isFinite), 'block 3 only');
  },
  'nan-scale-q4_k': (f) => {
    assert.equal(f.tensors.get('encoder.layers.0.feed_forward1.linear2.weight')?.type, GgmlType.Q4_K);
    const raw = readTensorBytes(f, 'encoder.layers.0.feed_forward1.linear2.weight');
    assert.equal(raw[0]! | (raw[1]! << 8), 0x7e00);
  },
  'arch-70000-characters': (f) => assert.equal((kvValue(f, 'parakeet.arch') as string).length, 70_000),
  'ctc-without-head': (f) => {
    assert.equal(kvValue(f, 'parakeet.arch'), 'ctc');
    assert.ok(![...f.tensors.keys()].some((n) => n.includes('decoder_layers')));
  },
};

describe('malformed model files', () => {
  test('every case is classified here, names are unique, and the brief\'s list is covered', () => {
    const names = MALFORMED_CASES.map((c) => c.name);
    assert.equal(new Set(names).size, names.length);
    assert.deepEqual(names.slice().sort(), [...Object.keys(CONTAINER), ...Object.keys(SEMANTIC)].sort());
    for (const c of MALFORMED_CASES) {
      assert.equal(c.expectedCode, 'MODEL_INVALID');
      assert.ok(c.expectedMessageIncludes.length > 0);
      // Engine messages start with the path; the expectation must not be satisfiable by it.
      assert.ok(!`${dir}/case-0.gguf`.includes(c.expectedMessageIncludes), c.name);
    }
  });

  MALFORMED_CASES.forEach((c, i) => {
    test(`${c.name}: ${c.description}`, () => {
      const path = join(dir, `case-${i}.gguf`);
      c.write(path);
      const container = CONTAINER[c.name];
      if (container) {
        assert.throws(() => readGguf(path), (e: unknown) => e instanceof GgufFormatError && container.test(e.message));
      } else {
        SEMANTIC[c.name](readGguf(path));
      }
    });
  });

  test('the base of the semantic cases is itself valid', () => {
    const p = join(dir, 'base.gguf');
    generateModel(p, MALFORMED_BASE);
    assert.equal(readGguf(p).tensors.size, 105);
  });
});

describe('corrupted copies for fuzzing', () => {
  test('seeded flips and truncations, reproducible', () => {
    const p = join(dir, 'fuzz-base.gguf');
    const d = generateModel(p, MALFORMED_BASE);
    const source = new Uint8Array(readFileSync(p));
    const make = (sub: string) => writeCorruptedCopies(source, (i) => join(dir, `${sub}-${i}.gguf`), { seed: 7, count: 40, dataOffset: d.layout.dataOffset });
    const a = make('a');
    const b = make('b');
    assert.equal(a.length, 40);
    assert.deepEqual(a.map((x) => x.detail), b.map((x) => x.detail));
    assert.ok(a.some((x) => x.kind === 'flip') && a.some((x) => x.kind === 'truncate'));
    for (const c of a) {
      const bytes = readFileSync(c.path);
      assert.ok(!bytes.equals(Buffer.from(source)), c.detail);
      if (c.kind === 'truncate') assert.ok(bytes.length < source.length);
      else assert.equal(bytes.length, source.length);
    }
    // Most metadata flips must break the container or change what it says.
    let rejected = 0;
    for (const c of a) {
      try {
        readGguf(c.path);
      } catch (e) {
        assert.ok(e instanceof GgufFormatError, `${c.detail}: ${String(e)}`);
        rejected++;
      }
    }
    assert.ok(rejected >= 10, `${rejected} of 40 rejected`);
  });
});
