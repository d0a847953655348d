// The generator's tensor set against spec 1.6 / 1.7, written out independently
// here, plus the published parakeet.cpp file sizes (spec 6.2) as a cross-check
// of every shape and of the quantization allowlist.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GgmlType, alignUp, tensorByteSize } from '../../support/gguf/types.js';
import { buildModelSpec } from '../../support/model/generate.js';
import { ARCHS, type Arch, type ModelOptionsInput, type PresetName, type WeightType } from '../../support/model/options.js';

interface Dims { D: number; L: number; H: number; FF: number; K: number; C: number; M: number; V: number; P: number; Lp: number; J: number; Fp: number }

/** Spec 1.6, transcribed table by table. */
function expectedTensors(arch: Arch, d: Dims, o: { bias: boolean; convNorm: 'batch_norm' | 'layer_norm'; ctc: 'ctc_decoder' | 'decoder' | 'none'; nd: number }): Map<string, number[]> {
  const m = new Map<string, number[]>();
  m.set('preprocessor.featurizer.window', [400]);
  m.set('preprocessor.featurizer.fb', [257, d.M, 1]);
  for (const i of [0, 2, 5]) {
    m.set(`encoder.pre_encode.conv.${i}.weight`, [3, 3, 1, d.C]);
    m.set(`encoder.pre_encode.conv.${i}.bias`, [d.C]);
  }
  for (const i of [3, 6]) {
    m.set(`encoder.pre_encode.conv.${i}.weight`, [1, 1, d.C, d.C]);
    m.set(`encoder.pre_encode.conv.${i}.bias`, [d.C]);
  }
  m.set('encoder.pre_encode.out.weight', [d.C * d.Fp, d.D]);
  m.set('encoder.pre_encode.out.bias', [d.D]);
  for (let l = 0; l < d.L; l++) {
    const p = `encoder.layers.${l}.`;
    const b = (name: string, ne: number[]) => { if (o.bias) m.set(p + name, ne); };
    for (const n of ['norm_feed_forward1', 'norm_self_att', 'norm_conv', 'norm_feed_forward2', 'norm_out']) {
      m.set(`${p}${n}.weight`, [d.D]);
      m.set(`${p}${n}.bias`, [d.D]);
    }
    for (const f of ['feed_forward1', 'feed_forward2']) {
      m.set(`${p}${f}.linear1.weight`, [d.D, d.FF]);
      b(`${f}.linear1.bias`, [d.FF]);
      m.set(`${p}${f}.linear2.weight`, [d.FF, d.D]);
      b(`${f}.linear2.bias`, [d.D]);
    }
    for (const x of ['q', 'k', 'v', 'out']) {
      m.set(`${p}self_attn.linear_${x}.weight`, [d.D, d.D]);
      b(`self_attn.linear_${x}.bias`, [d.D]);
    }
    m.set(`${p}self_attn.linear_pos.weight`, [d.D, d.D]);
    m.set(`${p}self_attn.pos_bias_u`, [d.D / d.H, d.H]);
    m.set(`${p}self_attn.pos_bias_v`, [d.D / d.H, d.H]);
    m.set(`${p}conv.pointwise_conv1.weight`, [1, d.D, 2 * d.D]);
    b('conv.pointwise_conv1.bias', [2 * d.D]);
    m.set(`${p}conv.depthwise_conv.weight`, [d.K, 1, d.D]);
    b('conv.depthwise_conv.bias', [d.D]);
    m.set(`${p}conv.batch_norm.weight`, [d.D]);
    m.set(`${p}conv.batch_norm.bias`, [d.D]);
    if (o.convNorm === 'batch_norm') {
      m.set(`${p}conv.batch_norm.running_mean`, [d.D]);
      m.set(`${p}conv.batch_norm.running_var`, [d.D]);
    }
    m.set(`${p}conv.pointwise_conv2.weight`, [1, d.D, d.D]);
    b('conv.pointwise_conv2.bias', [d.D]);
  }
  if (o.ctc !== 'none') {
    m.set(`${o.ctc}.decoder_layers.0.weight`, [1, d.D, d.V + 1]);
    m.set(`${o.ctc}.decoder_layers.0.bias`, [d.V + 1]);
  }
  if (arch !== 'ctc') {
    m.set('decoder.prediction.embed.weight', [d.P, d.V + 1]);
    for (let l = 0; l < d.Lp; l++) {
      m.set(`decoder.prediction.dec_rnn.lstm.weight_ih_l${l}`, [d.P, 4 * d.P]);
      m.set(`decoder.prediction.dec_rnn.lstm.weight_hh_l${l}`, [d.P, 4 * d.P]);
      m.set(`decoder.prediction.dec_rnn.lstm.bias_ih_l${l}`, [4 * d.P]);
      m.set(`decoder.prediction.dec_rnn.lstm.bias_hh_l${l}`, [4 * d.P]);
    }
    m.set('joint.enc.weight', [d.D, d.J]);
    m.set('joint.enc.bias', [d.J]);
    m.set('joint.pred.weight', [d.P, d.J]);
    m.set('joint.pred.bias', [d.J]);
    m.set('joint.joint_net.2.weight', [d.J, d.V + 1 + o.nd]);
    m.set('joint.joint_net.2.bias', [d.V + 1 + o.nd]);
  }
  return m;
}

const TINY: Dims = { D: 64, L: 2, H: 4, FF: 256, K: 9, C: 16, M: 80, V: 96, P: 64, Lp: 1, J: 64, Fp: 10 };
const SHAPE_110M: Dims = { D: 512, L: 17, H: 8, FF: 2048, K: 9, C: 256, M: 80, V: 1024, P: 640, Lp: 1, J: 640, Fp: 10 };
const SHAPE_600M: Dims = { D: 1024, L: 24, H: 8, FF: 4096, K: 9, C: 256, M: 128, V: 1024, P: 640, Lp: 2, J: 640, Fp: 16 };

function planned(input: ModelOptionsInput): Map<string, number[]> {
  return new Map(buildModelSpec(input).tensors.map((t) => [t.name, [...t.ne]]));
}

const ALLOWLIST = /^(encoder\.layers\.\d+\.(feed_forward[12]\.linear[12]|self_attn\.linear_(q|k|v|out|pos))\.weight|encoder\.pre_encode\.out\.weight|joint\.(enc|pred)\.weight)$/;

describe('tensor set (spec 1.6)', () => {
  const tinyCounts: Record<Arch, number> = { ctc: 94, rnnt: 103, tdt: 103, hybrid_tdt_ctc: 105, hybrid_rnnt_ctc: 105 };
  for (const arch of ARCHS) {
    test(`tiny ${arch}: exact names and ne`, () => {
      const ctc = arch === 'ctc' ? 'decoder' : arch.startsWith('hybrid_') ? 'ctc_decoder' : 'none';
      const nd = arch === 'tdt' || arch === 'hybrid_tdt_ctc' ? 5 : 0;
      const got = planned({ preset: 'tiny', arch });
      assert.deepEqual(got, expectedTensors(arch, TINY, { bias: true, convNorm: 'batch_norm', ctc, nd }));
      assert.equal(got.size, tinyCounts[arch]);
    });
  }

  test('tiny without biases, layer_norm conv, CTC head moved/removed', () => {
    const got = planned({ preset: 'tiny', arch: 'tdt', useBias: false, convNormType: 'layer_norm', ctcHeadLocation: 'ctc_decoder' });
    assert.deepEqual(got, expectedTensors('tdt', TINY, { bias: false, convNorm: 'layer_norm', ctc: 'ctc_decoder', nd: 5 }));
    const noCtc = planned({ preset: 'tiny', arch: 'hybrid_tdt_ctc', ctcHeadLocation: 'none' });
    assert.ok(![...noCtc.keys()].some((n) => n.includes('decoder_layers')));
  });

  test('shape110m: 690 tensors as parakeet-tdt_ctc-110m', () => {
    const got = planned({ preset: 'shape110m' });
    assert.deepEqual(got, expectedTensors('hybrid_tdt_ctc', SHAPE_110M, { bias: true, convNorm: 'batch_norm', ctc: 'ctc_decoder', nd: 5 }));
    assert.equal(got.size, 690);
  });

  test('shape600m: 701 tensors as parakeet-tdt-0.6b-v2', () => {
    const got = planned({ preset: 'shape600m' });
    assert.deepEqual(got, expectedTensors('tdt', SHAPE_600M, { bias: false, convNorm: 'batch_norm', ctc: 'none', nd: 5 }));
    assert.equal(got.size, 701);
  });
});

describe('quantization policy (spec 1.7)', () => {
  const types = (input: ModelOptionsInput) => buildModelSpec(input).tensors;

  test('only the allowlist is quantized, everything else F32', () => {
    for (const weightType of ['f16', 'q8_0', 'q4_0'] as const) {
      for (const t of types({ preset: 'tiny', arch: 'hybrid_tdt_ctc', weightType })) {
        const want = ALLOWLIST.test(t.name) ? { f16: GgmlType.F16, q8_0: GgmlType.Q8_0, q4_0: GgmlType.Q4_0 }[weightType] : GgmlType.F32;
        assert.equal(t.type, want, `${weightType} ${t.name}`);
      }
    }
  });

  test('allowlist sizes: 110m 156 (155 for K-quants, joint.pred stays F32), 600m 219', () => {
    const count = (preset: PresetName, weightType: WeightType) => types({ preset, weightType }).filter((t) => t.type !== GgmlType.F32).length;
    assert.equal(count('shape110m', 'q8_0'), 156);
    assert.equal(count('shape110m', 'q4_k'), 155);
    assert.equal(types({ preset: 'shape110m', weightType: 'q6_k' }).find((t) => t.name === 'joint.pred.weight')?.type, GgmlType.F32);
    assert.equal(count('shape600m', 'q8_0'), 219);
  });

  test('K-quants need ne0 % 256: in tiny only the FF→D linear2 weights qualify', () => {
    const q = types({ preset: 'tiny', weightType: 'q4_k' }).filter((t) => t.type !== GgmlType.F32).map((t) => t.name);
    assert.deepEqual(q, ['encoder.layers.0.feed_forward1.linear2.weight', 'encoder.layers.0.feed_forward2.linear2.weight',
      'encoder.layers.1.feed_forward1.linear2.weight', 'encoder.layers.1.feed_forward2.linear2.weight']);
  });
});

describe('published file sizes (spec 6.2)', () => {
  // size = metadata (KVs incl. 1024 pieces, tensor infos, padding) + Σ padded tensor bytes.
  // Our metadata differs (piece strings, name), the tensor data must not: the
  // metadata overhead implied by each published size must agree across types.
  const dataBytes = (preset: PresetName, weightType: WeightType) =>
    buildModelSpec({ preset, weightType }).tensors.reduce((a, t) => a + alignUp(tensorByteSize(t.type, t.ne), 32), 0);

  test('tdt_ctc-110m F32 / F16 / Q8_0 / Q6_K / Q4_K', () => {
    const overhead = 458_719_328 - dataBytes('shape110m', 'f32');
    assert.ok(overhead > 20_000 && overhead < 200_000, `metadata ${overhead}`);
    assert.equal(267_452_512 - dataBytes('shape110m', 'f16'), overhead);
    assert.equal(177_796_192 - dataBytes('shape110m', 'q8_0'), overhead);
    // parakeet-cli quantize rewrites the metadata; allow one alignment unit of difference.
    assert.ok(Math.abs(155_937_344 - dataBytes('shape110m', 'q6_k') - overhead) <= 32);
    assert.ok(Math.abs(131_387_456 - dataBytes('shape110m', 'q4_k') - overhead) <= 32);
  });

  test('tdt-0.6b-v2 F32 / Q8_0', () => {
    const overhead = 2_471_701_760 - dataBytes('shape600m', 'f32');
    assert.ok(overhead > 20_000 && overhead < 200_000, `metadata ${overhead}`);
    assert.equal(903_835_904 - dataBytes('shape600m', 'q8_0'), overhead);
  });
});
