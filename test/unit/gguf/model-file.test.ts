// Generated model files: metadata (spec 1.2, with GGUF types), vocabulary
// (1.4), real preprocessor buffers (1.8), weight statistics, determinism and the
// WeightSource adapter used by the float64 reference.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readGguf, readTensorF32 } from '../../support/gguf/reader.js';
import { GgmlType, GgufValueType } from '../../support/gguf/types.js';
import { gv } from '../../support/gguf/values.js';
import { generateModel } from '../../support/model/generate.js';
import { slaneyMelFilterbank } from '../../support/model/mel.js';
import { WORD_START, makeVocabulary } from '../../support/model/vocab.js';
import { openWeightSource } from '../../support/model/weights-source.js';
import { scratchDir } from './tmp.js';

const dir = scratchDir('gguf-model');
const T = GgufValueType;

/** Spec 1.2: key → GGUF type, for a transducer (TDT) model. */
const SPEC_KEYS: Record<string, GgufValueType> = {
  'general.architecture': T.STRING,
  'general.name': T.STRING,
  'parakeet.arch': T.STRING,
  'parakeet.encoder.feat_in': T.UINT32,
  'parakeet.encoder.d_model': T.UINT32,
  'parakeet.encoder.n_layers': T.UINT32,
  'parakeet.encoder.n_heads': T.UINT32,
  'parakeet.encoder.ff_dim': T.UINT32,
  'parakeet.encoder.conv_kernel': T.UINT32,
  'parakeet.encoder.conv_norm_type': T.STRING,
  'parakeet.encoder.subsampling_factor': T.UINT32,
  'parakeet.encoder.subsampling_conv_channels': T.UINT32,
  'parakeet.encoder.xscaling': T.BOOL,
  'parakeet.encoder.pos_emb_max_len': T.UINT32,
  'parakeet.encoder.use_bias': T.BOOL,
  'parakeet.preprocessor.sample_rate': T.UINT32,
  'parakeet.preprocessor.n_mels': T.UINT32,
  'parakeet.preprocessor.n_fft': T.UINT32,
  'parakeet.preprocessor.win_length': T.UINT32,
  'parakeet.preprocessor.hop_length': T.UINT32,
  'parakeet.preprocessor.preemph': T.FLOAT32,
  'parakeet.preprocessor.mag_power': T.FLOAT32,
  'parakeet.preprocessor.normalize': T.STRING,
  'parakeet.preprocessor.log_zero_guard': T.FLOAT32,
  'parakeet.vocab_size': T.UINT32,
  'parakeet.blank_id': T.UINT32,
  'parakeet.tokenizer.pieces': T.ARRAY,
  'parakeet.decoder.pred_hidden': T.UINT32,
  'parakeet.decoder.pred_rnn_layers': T.UINT32,
  'parakeet.joint.joint_hidden': T.UINT32,
  'parakeet.joint.activation': T.STRING,
  'parakeet.decoding.max_symbols': T.UINT32,
  'parakeet.tdt.durations': T.ARRAY,
};
const TRANSDUCER_KEYS = ['parakeet.decoder.pred_hidden', 'parakeet.decoder.pred_rnn_layers', 'parakeet.joint.joint_hidden', 'parakeet.joint.activation', 'parakeet.decoding.max_symbols'];

const sha256 = (x: Float32Array) => createHash('sha256').update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)).digest('hex');

describe('generated tiny model', () => {
  const path = join(dir, 'tiny-tdt-ctc.gguf');
  const desc = generateModel(path, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 42 });
  const f = readGguf(path);

  test('KVs of spec 1.2 with exact GGUF types and values', () => {
    assert.deepEqual([...f.kv.keys()].sort(), Object.keys(SPEC_KEYS).sort());
    for (const [key, type] of Object.entries(SPEC_KEYS)) assert.equal(f.kv.get(key)?.type, type, key);
    const v = (k: string) => f.kv.get(k)?.value;
    assert.equal(v('general.architecture'), 'parakeet');
    assert.equal(v('general.name'), desc.options.label);
    assert.equal(v('parakeet.arch'), 'hybrid_tdt_ctc');
    assert.equal(v('parakeet.encoder.d_model'), 64);
    assert.equal(v('parakeet.encoder.feat_in'), 80);
    assert.equal(v('parakeet.preprocessor.preemph'), Math.fround(0.97));
    assert.equal(v('parakeet.preprocessor.log_zero_guard'), 2 ** -24);
    assert.equal(v('parakeet.vocab_size'), 96);
    assert.equal(v('parakeet.blank_id'), 96);
    const durations = f.kv.get('parakeet.tdt.durations');
    assert.ok(durations?.type === T.ARRAY && durations.itemType === T.INT32);
    assert.deepEqual(durations.value, [0, 1, 2, 3, 4]);
    const pieces = f.kv.get('parakeet.tokenizer.pieces');
    assert.ok(pieces?.type === T.ARRAY && pieces.itemType === T.STRING);
    assert.deepEqual(pieces.value, desc.pieces);
  });

  test('tensor infos match the description; data is 32-byte aligned', () => {
    assert.equal(f.tensors.size, 105);
    assert.deepEqual([...f.tensors.keys()], desc.tensors.map((t) => t.name));
    for (const t of f.tensors.values()) assert.equal((f.dataOffset + t.offset) % 32, 0, t.name);
  });

  test('preprocessor buffers are librosa slaney mel and symmetric Hann', () => {
    const fb = readTensorF32(f, 'preprocessor.featurizer.fb');
    assert.deepEqual(f.tensors.get('preprocessor.featurizer.fb')?.ne, [257, 80, 1]);
    // sha256 of librosa.filters.mel(sr=16000, n_fft=512, n_mels=80/128) as float32, from a numpy
    // transcription of librosa 0.10 (htk=False, norm='slaney').
    assert.equal(sha256(fb), '2676995a34afe980bc0392219c797ddd56c78e1809f84c387577c9e151664cec');
    assert.equal(sha256(Float32Array.from(slaneyMelFilterbank({ sampleRate: 16000, nFft: 512, nMels: 128 }))),
      'f5608e00763a20a191022fbb00a43346db5f1ec06828a97a6f4157f7d02b76c8');
    assert.equal(fb[1], Math.fround(0.022534560412168503));
    assert.equal(fb.filter((x) => x === 0).length, 20060); // ~98% zeros, as the spec says
    for (let m = 1; m < 80; m++) {
      const peak = (r: number) => fb.subarray(r * 257, (r + 1) * 257).indexOf(Math.max(...fb.subarray(r * 257, (r + 1) * 257)));
      assert.ok(peak(m) >= peak(m - 1), `filter ${m} peaks above filter ${m - 1}`);
    }
    const w = readTensorF32(f, 'preprocessor.featurizer.window');
    assert.equal(w.length, 400);
    for (let n = 0; n < 400; n++) assert.equal(w[n], Math.fround(0.5 - 0.5 * Math.cos((2 * Math.PI * n) / 399)));
    assert.equal(w[0], 0);
    assert.equal(w[399], 0);
  });

  test('weights have the intended statistics', () => {
    const emb = readTensorF32(f, 'decoder.prediction.embed.weight');
    assert.ok(emb.subarray(96 * 64).every((x) => x === 0), 'blank embedding row is zero');
    assert.ok(emb.subarray(0, 96 * 64).every((x) => x !== 0));
    const ln = readTensorF32(f, 'encoder.layers.1.norm_out.weight');
    assert.ok(ln.every((x) => x >= 0.9 && x <= 1.1));
    const rv = readTensorF32(f, 'encoder.layers.0.conv.batch_norm.running_var');
    assert.ok(rv.every((x) => x >= 0.5 && x <= 1.5));
    const q = readTensorF32(f, 'encoder.layers.0.self_attn.linear_q.weight');
    const rms = Math.sqrt(q.reduce((a, x) => a + x * x, 0) / q.length);
    assert.ok(rms > 0.05 && rms < 1, `linear_q rms ${rms}`);
    const bias = readTensorF32(f, 'joint.joint_net.2.bias');
    assert.ok(bias[96] > 1, 'blank gets a positive bias');
  });

  test('same seed → same bytes; other seed → other weights; quantized files share the weights', () => {
    const again = join(dir, 'again.gguf');
    generateModel(again, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 42 });
    assert.ok(readFileSync(again).equals(readFileSync(path)));
    const other = join(dir, 'other.gguf');
    generateModel(other, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 43 });
    const name = 'encoder.layers.0.feed_forward1.linear1.weight';
    assert.notDeepEqual(readTensorF32(readGguf(other), name), readTensorF32(f, name));
    const q8 = join(dir, 'q8.gguf');
    const d8 = generateModel(q8, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 42, weightType: 'q8_0' });
    assert.equal(d8.quantizedCount, 21);
    const g = readGguf(q8);
    assert.equal(g.tensors.get(name)?.type, GgmlType.Q8_0);
    const a = readTensorF32(f, name);
    const b = readTensorF32(g, name);
    for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 0.01, `${i}`);
    assert.deepEqual(readTensorF32(g, 'joint.joint_net.2.weight'), readTensorF32(f, 'joint.joint_net.2.weight'));
  });
});

describe('model options', () => {
  test('CTC and RNNT models carry only their keys', () => {
    const ctc = readGguf(generateModel(join(dir, 'ctc.gguf'), { arch: 'ctc' }).path);
    for (const k of [...TRANSDUCER_KEYS, 'parakeet.tdt.durations']) assert.ok(!ctc.kv.has(k), k);
    assert.ok(ctc.tensors.has('decoder.decoder_layers.0.weight'));
    const rnnt = readGguf(generateModel(join(dir, 'rnnt.gguf'), { arch: 'rnnt' }).path);
    for (const k of TRANSDUCER_KEYS) assert.ok(rnnt.kv.has(k), k);
    assert.ok(!rnnt.kv.has('parakeet.tdt.durations'));
    assert.deepEqual(rnnt.tensors.get('joint.joint_net.2.weight')?.ne, [64, 97]);
  });

  test('omitKeys, extraKv, archLabel, alignment', () => {
    const p = join(dir, 'opts.gguf');
    generateModel(p, {
      arch: 'tdt', omitKeys: ['parakeet.encoder.xscaling', 'parakeet.decoding.max_symbols'],
      extraKv: [{ key: 'parakeet.encoder.n_heads', value: gv.u32(8) }, { key: 'custom.key', value: gv.str('x') }],
      archLabel: 'hybrid_tdt_ctc', alignment: 64, durations: [0, 1, 2], convNormType: 'layer_norm', normalize: 'NA', preemph: 0,
    });
    const f = readGguf(p);
    assert.ok(!f.kv.has('parakeet.encoder.xscaling'));
    assert.ok(!f.kv.has('parakeet.decoding.max_symbols'));
    assert.equal(f.kv.get('parakeet.encoder.n_heads')?.value, 8);
    assert.equal(f.kv.get('custom.key')?.value, 'x');
    assert.equal(f.kv.get('parakeet.arch')?.value, 'hybrid_tdt_ctc');
    assert.equal(f.kv.get('general.alignment')?.value, 64);
    assert.equal(f.alignment, 64);
    assert.equal(f.dataOffset % 64, 0);
    assert.deepEqual(f.tensors.get('joint.joint_net.2.bias')?.ne, [97 + 3]);
    assert.equal(f.kv.get('parakeet.encoder.conv_norm_type')?.value, 'layer_norm');
    assert.ok(!f.tensors.has('encoder.layers.0.conv.batch_norm.running_mean'));
    assert.equal(f.kv.get('parakeet.preprocessor.normalize')?.value, 'NA');
    assert.equal(f.kv.get('parakeet.preprocessor.preemph')?.value, 0);
  });

  test('invalid options are refused', () => {
    assert.throws(() => generateModel(join(dir, 'x.gguf'), { nHeads: 5 }), /does not divide/);
    assert.throws(() => generateModel(join(dir, 'x.gguf'), { convKernel: 8 }), /odd/);
    assert.throws(() => generateModel(join(dir, 'x.gguf'), { arch: 'ctc', ctcHeadLocation: 'none' }), /CTC head/);
  });
});

describe('vocabulary', () => {
  test('SentencePiece-like, unique, exactly V pieces', () => {
    for (const V of [8, 96, 1024, 8192]) {
      const p = makeVocabulary(V);
      assert.equal(p.length, V);
      assert.equal(new Set(p).size, V);
      assert.equal(p[0], '<unk>');
    }
    const p = makeVocabulary(96);
    for (const punct of ['.', ',', '?', "'"]) assert.ok(p.includes(punct), punct);
    assert.ok(p.filter((x) => x.startsWith(WORD_START)).length > 30);
    assert.ok(p.some((x) => /^[a-z]+$/.test(x)), 'bare subword pieces');
    assert.equal(WORD_START, '\u2581');
  });
});

describe('WeightSource adapter', () => {
  test('exposes plain KV values, ne and dequantized float64 data', () => {
    const p = join(dir, 'ws.gguf');
    generateModel(p, { preset: 'tiny', arch: 'tdt', weightType: 'q4_0' });
    const w = openWeightSource(p);
    assert.equal(w.kv.get('parakeet.encoder.d_model'), 64);
    assert.equal(w.kv.get('parakeet.encoder.xscaling'), false);
    assert.deepEqual(w.kv.get('parakeet.tdt.durations'), [0, 1, 2, 3, 4]);
    assert.equal((w.kv.get('parakeet.tokenizer.pieces') as string[]).length, 96);
    assert.ok(w.has('joint.enc.weight'));
    assert.ok(!w.has('ctc_decoder.decoder_layers.0.weight'));
    assert.deepEqual(w.ne('encoder.layers.0.conv.depthwise_conv.weight'), [9, 1, 64]);
    const name = 'encoder.layers.0.self_attn.linear_v.weight';
    const f = readGguf(p);
    assert.equal(f.tensors.get(name)?.type, GgmlType.Q4_0);
    assert.deepEqual(w.f64(name), Float64Array.from(readTensorF32(f, name)));
    assert.throws(() => w.f64('nope'), /no tensor 'nope'/);
  });
});
