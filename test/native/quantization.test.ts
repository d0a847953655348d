// Reduced-precision weights.
// * F16 / BF16 / Q8_0 / Q4_0 files agree with their F32 twin (same seed) to documented tolerances.
// * Load-time conversions (weightType f16, bf16, q8_0, q4_0) of the F32 file: looser, reported.
// * weightType 'f32' dequantizes losslessly: a quantized file loaded as F32 matches the float64
//   reference run on the same (dequantized) file to 1e-4.
// * quantizeModel() writes exactly the spec 1.7 allowlist in the new type, everything else unchanged.
//
// Tolerance rationale (encoder relative L2, tiny random model, 2 layers ≈ 14 matmuls on the path):
// rounding a weight adds relative noise ≈ ε/√3·… per matmul: F16 ≈ 3e-4, BF16 ≈ 2e-3, Q8_0 ≈ 4e-3,
// Q4_0 ≈ 6e-2; accumulated over ~14 independent matmuls ×√14 ≈ ×3.7 → F16 ~1e-3, Q8_0 ~1.5e-2,
// Q4_0 ~0.2. Bounds are ~2–5× the expected values. Load-time conversion also converts the conformer
// pointwise convolutions and the CTC head (engine design, model_weights.cpp), so its error is larger.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Model, quantizeModel, type TranscribeResult, type WeightType as LoadWeightType } from '../../native/index.js';
import { referenceTranscribe } from '../reference/index.js';
import { plainValue } from '../support/gguf/values.js';
import { readGguf, readTensorBytes } from '../support/gguf/reader.js';
import { ggmlTypeName } from '../support/gguf/types.js';
import { generateModel } from '../support/model/generate.js';
import type { WeightType } from '../support/model/options.js';
import { isAllowlisted, storageType } from '../support/model/quant-policy.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { commonPrefix, fmt, ids, maxAbsDiff, relL2, tokenErrorRate } from './helpers/compare.js';
import { ONE_THREAD, rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('quant');
const SEED = 4321;
const pcm = speechSamples(dir, seconds(10));
const f32Path = join(dir, 'tdt-f32.gguf');
const f32 = generateModel(f32Path, { preset: 'tiny', arch: 'tdt', seed: SEED });

let baseline: TranscribeResult | undefined;
async function f32Result(): Promise<TranscribeResult> {
  if (!baseline) {
    const m = await Model.load(f32Path, { ...ONE_THREAD, weightType: 'f32' });  // exact: the F32 kernel
    baseline = await m.transcribe(pcm, { captureEncoder: true });
    m.dispose();
  }
  return baseline;
}

interface Measured {
  label: string;
  encRel: number;
  ter: number;
  prefix: number;
  tokens: number;
  bound: number;
}
const measured: Measured[] = [];
after(() => {
  if (measured.length === 0) return;
  console.log('\nquantized vs F32 twin (tiny TDT, 10 s speech):');
  console.log('variant              enc relL2   bound   token err  same prefix');
  for (const m of measured) {
    console.log(`${m.label.padEnd(20)} ${fmt(m.encRel).padStart(9)} ${fmt(m.bound).padStart(8)}  ${m.ter.toFixed(3).padStart(8)}  ${m.prefix}/${m.tokens}`);
  }
});

async function compareToF32(label: string, path: string, load: { weightType?: LoadWeightType }, bound: number): Promise<Measured> {
  const base = await f32Result();
  const model = await Model.load(path, { ...ONE_THREAD, ...load });
  const r = await model.transcribe(pcm, { captureEncoder: true });
  const info = model.info();
  model.dispose();
  assert.ok(base.encoder && r.encoder);
  assert.equal(r.encoder.validFrames, base.encoder.validFrames);
  const encRel = relL2(base.encoder.data, r.encoder.data, base.encoder.validFrames * base.encoder.dim);
  const m: Measured = {
    label, encRel, bound,
    ter: tokenErrorRate(ids(base.tokens), ids(r.tokens)),
    prefix: commonPrefix(base.tokens, r.tokens),
    tokens: base.tokens.length,
  };
  measured.push(m);
  assert.ok(encRel > 0, `${label}: the reduced precision must change the encoder output at all (weightTypes ${JSON.stringify(info.weightTypes)})`);
  assert.ok(encRel <= bound, `${label}: encoder rel L2 ${fmt(encRel)} > ${fmt(bound)}`);
  return m;
}

describe('files stored in reduced precision vs their F32 twin', () => {
  const cases: { type: WeightType; bound: number; maxTer?: number }[] = [
    { type: 'f16', bound: 5e-3, maxTer: 0.1 },
    { type: 'bf16', bound: 3e-2 },
    { type: 'q8_0', bound: 3e-2 },
    { type: 'q4_0', bound: 0.5 },
  ];
  for (const { type, bound, maxTer } of cases) {
    test(`${type} file: encoder rel L2 ≤ ${bound}${maxTer !== undefined ? `, token error rate ≤ ${maxTer}` : ''}`, async () => {
      const d = generateModel(join(dir, `tdt-${type}.gguf`), { preset: 'tiny', arch: 'tdt', seed: SEED, weightType: type });
      const m = await compareToF32(`file ${type}`, d.path, {}, bound);
      if (maxTer !== undefined) assert.ok(m.ter <= maxTer, `file ${type}: token error rate ${m.ter.toFixed(3)} vs F32`);
    });
  }
});

describe('load-time weight conversion of the F32 file', () => {
  const cases: { type: LoadWeightType; bound: number; placed: string }[] = [
    { type: 'f16', bound: 1e-2, placed: 'f16' },
    { type: 'bf16', bound: 6e-2, placed: 'bf16' },
    { type: 'q8_0', bound: 6e-2, placed: 'q8_0' },
    { type: 'q4_0', bound: 0.6, placed: 'q4_0' },
  ];
  for (const { type, bound, placed } of cases) {
    test(`weightType ${type}: weights placed as ${placed}, encoder rel L2 ≤ ${bound}`, async () => {
      const model = await Model.load(f32Path, { ...ONE_THREAD, weightType: type });
      const info = model.info();
      model.dispose();
      assert.equal(info.weightType, type);
      assert.deepEqual(info.tensorTypes, { f32: f32.tensors.length }, 'the file itself is F32');
      const allowlisted = f32.tensors.filter((t) => isAllowlisted(t.name)).length;
      assert.ok((info.weightTypes[placed] ?? 0) >= allowlisted - 1, `weightTypes ${JSON.stringify(info.weightTypes)}`);
      await compareToF32(`load ${type}`, f32Path, { weightType: type }, bound);
    });
  }

  test('weightType f32 on the F32 file runs it exactly; auto stays within the F32 file\'s tolerance of it', async () => {
    const base = await f32Result();
    const asStored = await Model.load(f32Path, { ...ONE_THREAD, packedKernels: false });
    const stored = await asStored.transcribe(pcm, { captureEncoder: true });
    asStored.dispose();
    const n = base.encoder!.validFrames * base.encoder!.dim;
    assert.ok(relL2(base.encoder!.data, stored.encoder!.data, n) <= 1e-5, 'f32: ggml\'s F32 result to rounding');
    // auto may run an F32 file's matmuls as 14-bit blocks (i16_vnni, or i16_avx2 / i16_avx_vnni on
    // the 256-bit classes): never further from the exact result than F16 storage would be
    // (packed-kernels tests), the same tokens here.
    const auto = await Model.load(f32Path, ONE_THREAD);
    const r = await auto.transcribe(pcm, { captureEncoder: true });
    const kernels = auto.info().kernels;
    auto.dispose();
    const rel = relL2(r.encoder!.data, base.encoder!.data, n);
    assert.ok(rel <= 1e-3, `auto vs f32: rel L2 ${rel}`);
    if (!Object.keys(kernels).some((k) => k.startsWith('i16_'))) assert.equal(rel, 0, 'without a 14-bit kernel auto is the exact path');
    assert.deepEqual(ids(r.tokens), ids(base.tokens));
  });
});

describe("weightType 'f32' dequantizes losslessly", () => {
  for (const type of ['f16', 'q8_0', 'q4_0', 'q4_k'] as const) {
    test(`${type} file loaded as F32 matches the float64 reference of the same file`, async () => {
      const path = join(dir, `hyb-${type}.gguf`);
      // ffDim 256 keeps feed_forward linear2 (ne0 = 256) eligible for K-quants.
      const d = generateModel(path, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: SEED + 1, weightType: type });
      assert.ok(d.quantizedCount > 0);
      const model = await Model.load(path, { ...ONE_THREAD, weightType: 'f32' });
      assert.deepEqual(Object.keys(model.info().weightTypes), ['f32']);
      const clip = pcm.subarray(0, seconds(3));
      const r = await model.transcribe(clip, { captureMel: true, captureEncoder: true });
      model.dispose();
      const ref = referenceTranscribe(openWeightSource(path), clip);
      assert.ok(r.mel && r.encoder);
      const melMax = maxAbsDiff(ref.mel.mel, r.mel.data);
      const encRel = relL2(ref.encoder.out, r.encoder.data, r.encoder.validFrames * r.encoder.dim);
      console.log(`${type} as f32 vs reference: mel ${fmt(melMax)}, encoder rel L2 ${fmt(encRel)}`);
      assert.ok(melMax <= 1e-4);
      assert.ok(encRel <= 1e-4, `encoder rel L2 ${fmt(encRel)}`);
      assert.ok(commonPrefix(ref.tokens, r.tokens) >= ref.reliableTokens);
    });
  }
});

describe('quantizeModel()', () => {
  const src = generateModel(join(dir, 'qsrc.gguf'), { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 5 });
  const srcFile = readGguf(src.path);
  const types = ['f16', 'bf16', 'q8_0', 'q5_0', 'q4_0', 'q6_k', 'q5_k', 'q4_k'] as const;
  for (const type of types) {
    test(`f32 → ${type}: the allowlisted tensors (spec 1.7) change type, everything else is copied`, async () => {
      const out = join(dir, `qout-${type}.gguf`);
      await quantizeModel(src.path, out, type);
      const f = readGguf(out);
      assert.equal(f.tensors.size, src.tensors.length);
      let converted = 0;
      for (const t of src.tensors) {
        const info = f.tensors.get(t.name);
        assert.ok(info, `tensor ${t.name} kept`);
        // ggml's GGUF writer stores ggml_n_dims() dimensions, so trailing 1s (fb [257, M, 1]) are dropped.
        assert.deepEqual(trimOnes(info.ne), trimOnes(t.ne), `${t.name} shape`);
        const expected = ggmlTypeName(storageType(t.name, t.ne, type));
        assert.equal(ggmlTypeName(info.type), expected, `${t.name} type`);
        if (expected === 'f32') assert.deepEqual(readTensorBytes(f, t.name), readTensorBytes(srcFile, t.name), `${t.name} copied unchanged`);
        else converted++;
      }
      assert.ok(converted > 0, 'something was quantized');
      assert.deepEqual([...f.kv.keys()], [...srcFile.kv.keys()], 'KV keys unchanged');
      for (const [k, v] of srcFile.kv) assert.deepEqual(plainValue(f.kv.get(k) ?? v), plainValue(v), `KV ${k}`);
      const model = await Model.load(out, ONE_THREAD);
      const info = model.info();
      // Type names are ggml's ("q4_K"); compare case-insensitively.
      const counted = Object.entries(info.tensorTypes).find(([name]) => name.toLowerCase() === type)?.[1];
      assert.equal(counted, converted, `tensorTypes ${JSON.stringify(info.tensorTypes)}`);
      const r = await model.transcribe(pcm.subarray(0, seconds(2)));
      assert.ok(r.windows.length === 1);
      model.dispose();
    });
  }

  test('q8_0 output is byte-identical to the reference quantizer (test/support/gguf)', async () => {
    const out = join(dir, 'qout-q8_0.gguf');
    const twin = generateModel(join(dir, 'qtwin-q8_0.gguf'), { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 5, weightType: 'q8_0' });
    const a = readGguf(out);
    const b = readGguf(twin.path);
    for (const t of twin.tensors) assert.deepEqual(readTensorBytes(a, t.name), readTensorBytes(b, t.name), t.name);
  });

  test('errors: unknown type → BAD_ARGUMENT, broken input → MODEL_INVALID', async () => {
    await rejectsWithCode(quantizeModel(src.path, join(dir, 'x.gguf'), 'q3_x'), 'BAD_ARGUMENT', 'q3_x');
    const missing = join(dir, 'missing.gguf');
    const e = await rejectsWithCode(quantizeModel(missing, join(dir, 'y.gguf'), 'q8_0'), 'MODEL_INVALID');
    assert.ok(e.message.includes(missing));
  });
});

function trimOnes(ne: readonly number[]): number[] {
  const out = [...ne];
  while (out.length > 1 && out[out.length - 1] === 1) out.pop();
  return out;
}
