// The engine's own CPU kernels (native/engine/kernels/cpu/matmul: f32_avx512, q8_0_vnni) against ggml's kernels on the
// same file, and the fused ops (attention, conv module, subsampling front) through the parity tests'
// reference. Runs where the CPU has the instructions; elsewhere each test says it skipped and why.
//
// * F32 weights on the AVX-512 kernel: exact F32 arithmetic in another summation order, so the
//   encoder output agrees with ggml's to float rounding (bound 1e-5 rel. L2 on the tiny model) and
//   the tokens are identical.
// * Q8_0 weights on the VNNI kernel: the same weights and the same per-32-block activation
//   quantization as ggml's Q8_0 path, so its error against the F32 twin matches ggml's own
//   (bound: 1.1× ggml's + 1e-4). Under auto a quantized file's conformer pointwise convs (F32 in
//   the published files) run in Q8_0 too: ≤ 1.25× the error of the file as stored.
// * 4–6 bit block types under auto: requantized to Q8_0, no worse than ggml's own kernels for them.
// * weightType 'int8' (explicit, lossy): per-channel int8 weights and per-frame int8 activations,
//   the precision class of ONNX Runtime's int8 graphs. Its error against the F32 twin is bounded
//   by a small multiple of ggml's Q8_0 error (per-channel and per-frame scales are coarser than
//   Q8_0's per-32 blocks); on CPUs without VNNI it loads as q8_0.
// * F16 weights on the same kernel, widened to F32 a block at a time: the file's values in F32
//   arithmetic, so the output agrees with ggml's F32 run on those values to float rounding.
// * weightType 'i16' (explicit, never auto): 14-bit integers per 32-block on VNNI (i16_vnni.h).
//   An F32 file so runs no further from F32 than its F16 twin; an F16 file within 1.5× of its own
//   error against the F32 twin.
// * On CPUs with AMX-BF16 (Sapphire Rapids and later; the device's cpuFeatures carry
//   PARAKEET_AMX_BF16 once the engine's probe passed) a Q8_0 file under auto runs its Q8_0 matmuls
//   on BF16 tiles (q8_amx_bf16.h): weights d·q and activations rounded to BF16, F32 sums, so its
//   error against the F32 twin stays at or below ggml's Q8_0 error; weightType q8_0 keeps the VNNI
//   kernel's exact Q8_0 arithmetic.
// * ModelInfo.kernels says how many matmul weights each kernel runs; packedKernels: false runs none.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model, type WeightType, listDevices } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { fmt, ids, relL2 } from './helpers/compare.js';
import { ONE_THREAD } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';
import { matmulKernels, opKernels } from './helpers/kernels.js';

const dir = scratchDir('packed');
const cpu = listDevices().find((d) => d.type === 'cpu');
const features = new Set(cpu?.cpuFeatures ?? []);
const avx512 = features.has('AVX512');
const vnni = avx512 && features.has('AVX512_VNNI');
const skipF32 = avx512 ? false : 'this CPU has no AVX-512: the engine keeps ggml\'s kernels';
const skipQ8 = vnni ? false : 'this CPU has no AVX512-VNNI: the engine keeps ggml\'s kernels';
const amx = features.has('PARAKEET_AMX_BF16');
const skipAmx = amx ? false : 'this process may not use AMX-BF16 (no such CPU, or the engine\'s probe failed): Q8_0 stays on the VNNI kernel';
/** The engine kernel that runs a Q8_0 file's Q8_0 matmuls under auto on this CPU. */
const q8AutoKernel = amx ? 'q8_0_amx_bf16' : 'q8_0_vnni';
/** Matmul weights on the per-channel int8 kernel (weightType int8): VNNI, or AMX-INT8 where usable (the same numbers). */
const channelInt8 = (kernels: Record<string, number>) => (kernels.int8_channel_vnni ?? 0) + (kernels.int8_channel_amx ?? 0);
const pcm = speechSamples(dir, seconds(10));

async function encoderOf(
  path: string, packedKernels: boolean, weightType: WeightType = 'auto', audio: Float32Array = pcm,
): Promise<{ data: Float32Array; n: number; tokens: number[]; kernels: Record<string, number> }> {
  const model = await Model.load(path, { ...ONE_THREAD, packedKernels, weightType });
  try {
    const r = await model.transcribe(audio, { captureEncoder: true });
    const enc = r.encoder!;
    return { data: enc.data, n: enc.validFrames * enc.dim, tokens: ids(r.tokens), kernels: model.info().kernels };
  } finally {
    model.dispose();
  }
}

/**
 * Clips of 7–12 encoder frames (80 ms each) leave 1, 2, 3, 4, 5 and 0 frames after the 6-frame
 * tiles: `path` loaded with `candidate` must stay within `bound` rel. L2 of it loaded with `reference`
 * at each (and differ from it, when `lossy`).
 */
async function compareOverTileTails(
  path: string, reference: { packedKernels?: boolean; weightType?: WeightType }, candidate: { packedKernels?: boolean; weightType?: WeightType },
  label: string, lossy: boolean, bound = 0.1,
): Promise<void> {
  const a = await Model.load(path, { ...ONE_THREAD, ...reference });
  const b = await Model.load(path, { ...ONE_THREAD, ...candidate });
  try {
    const seen: number[] = [];
    for (const frames of [7, 8, 9, 10, 11, 12]) {
      const clip = speechSamples(dir, seconds(frames * 0.08 - 0.01));
      const ea = (await a.transcribe(clip, { captureEncoder: true })).encoder!;
      const eb = (await b.transcribe(clip, { captureEncoder: true })).encoder!;
      assert.equal(eb.validFrames, ea.validFrames);
      seen.push(ea.validFrames);
      const rel = relL2(eb.data, ea.data, ea.validFrames * ea.dim);
      assert.ok((!lossy || rel > 0) && rel < bound, `${ea.validFrames} frames: ${label} rel L2 ${fmt(rel)}`);
    }
    assert.deepEqual(new Set(seen.map((n) => n % 6)), new Set([0, 1, 2, 3, 4, 5]), `frame counts ${seen.join(', ')}`);
  } finally {
    a.dispose();
    b.dispose();
  }
}

describe('packed CPU kernels', () => {
  for (const preset of ['tiny', 'small'] as const) {
    test(`F32 on the AVX-512 kernel equals ggml's F32 to rounding (${preset})`, { skip: skipF32 }, async () => {
      const path = join(dir, `${preset}-f32.gguf`);
      generateModel(path, { preset, arch: 'hybrid_tdt_ctc', seed: 77 });
      const ggml = await encoderOf(path, false);
      const ours = await encoderOf(path, true, 'f32');  // auto takes the 14-bit kernel on VNNI CPUs (below)
      assert.deepEqual(matmulKernels(ggml.kernels), {}, 'packedKernels: false runs no engine matmul kernel');
      // The fused ops are no packed weights: they run either way, on the same rows of the table.
      assert.deepEqual(opKernels(ggml.kernels), opKernels(ours.kernels), `fused ops ${JSON.stringify([ggml.kernels, ours.kernels])}`);
      assert.ok((ours.kernels.f32_avx512 ?? 0) > 0, `kernels ${JSON.stringify(ours.kernels)}`);
      const rel = relL2(ours.data, ggml.data, ours.n);
      console.log(`  ${preset} F32: packed vs ggml encoder rel L2 ${fmt(rel)}`);
      assert.ok(rel <= 1e-5, `rel L2 ${fmt(rel)} > 1e-5`);
      assert.deepEqual(ours.tokens, ggml.tokens);
    });

    test(`F16 weights on the AVX-512 kernel equal their F32 values run by ggml's F32, to rounding (${preset})`, { skip: skipF32 }, async () => {
      // The F16 panels are widened to F32 per block: the same arithmetic as the F32 kernel on the
      // file's own values (weightType 'f32' dequantizes them, losslessly). ggml's F16 path rounds
      // the activations to F16 as well, so it is further from those values than ours.
      const path = join(dir, `${preset}-f16.gguf`);
      generateModel(path, { preset, arch: 'hybrid_tdt_ctc', seed: 83, weightType: 'f16' });
      const exact = await encoderOf(path, false, 'f32');
      const ggmlF16 = await encoderOf(path, false);
      const ours = await encoderOf(path, true);
      assert.ok((ours.kernels.f16_avx512 ?? 0) > 0, `kernels ${JSON.stringify(ours.kernels)}`);
      const rel = relL2(ours.data, exact.data, ours.n);
      const ggmlRel = relL2(ggmlF16.data, exact.data, ggmlF16.n);
      console.log(`  ${preset} F16: packed vs the F32 values rel L2 ${fmt(rel)} (ggml's F16 path ${fmt(ggmlRel)})`);
      assert.ok(rel <= 1e-5, `rel L2 ${fmt(rel)} > 1e-5`);
      assert.deepEqual(ours.tokens, exact.tokens);
    });

    if (preset === 'small') {
      test('Q8_0 and 14-bit kernels over several frame spans (22 s) keep the error they have on one', { skip: skipQ8 }, async () => {
        // block_chunks.h takes frames in spans of ≥ 96 (fewer than 192 stay one span): 275 frames run
        // as two spans (138 and 137, the second ending in a tile of 5), each a full pass over the
        // panels with the prefetch wrapping to the first panel between them. A frame left out or
        // computed twice would put the output far from the reference.
        const clip = speechSamples(dir, seconds(22));
        const f32 = join(dir, 'spans-f32.gguf');
        const q8 = join(dir, 'spans-q8_0.gguf');
        generateModel(f32, { preset: 'small', arch: 'ctc', nLayers: 2, seed: 91 });
        generateModel(q8, { preset: 'small', arch: 'ctc', nLayers: 2, seed: 91, weightType: 'q8_0' });
        const reference = await encoderOf(f32, false, 'f32', clip);
        assert.ok(reference.n / 128 >= 2 * 96 + 80, `${reference.n / 128} frames`);
        const ggmlQ8 = await encoderOf(q8, false, 'q8_0', clip);
        const oursQ8 = await encoderOf(q8, true, 'q8_0', clip);
        const i16 = await encoderOf(f32, true, 'i16', clip);
        assert.ok((oursQ8.kernels.q8_0_vnni ?? 0) > 0 && (i16.kernels.i16_vnni ?? 0) > 0, `kernels ${JSON.stringify([oursQ8.kernels, i16.kernels])}`);
        const ggmlErr = relL2(ggmlQ8.data, reference.data, reference.n);
        const q8Err = relL2(oursQ8.data, reference.data, reference.n);
        const i16Err = relL2(i16.data, reference.data, reference.n);
        console.log(`  22 s vs F32: Q8_0 ggml ${fmt(ggmlErr)}, VNNI ${fmt(q8Err)}; F32 file as i16 ${fmt(i16Err)}`);
        assert.ok(q8Err <= 1.1 * ggmlErr + 1e-4, `Q8_0 VNNI ${fmt(q8Err)} vs ggml's ${fmt(ggmlErr)}`);
        assert.ok(i16Err > 0 && i16Err < 1e-3, `i16 ${fmt(i16Err)}`);
      });

      test('F32 kernel blocking: several frame blocks and input spans, with partial tails, equal ggml\'s F32 to rounding', { skip: skipF32 }, async () => {
        // f32_avx512.cpp blocks frames by 126 and inputs by 1024: 22 s (275 frames: two whole blocks
        // and 23 frames) and an FF of 2080 (two whole spans and 32 inputs) run every branch of the
        // traversal, including the prefetch target at each block, span and panel boundary.
        // The F16 file takes the same traversal with each block widened (partial blocks included).
        const clip = speechSamples(dir, seconds(22));
        for (const weightType of ['f32', 'f16'] as const) {
          const path = join(dir, `wide-ff-${weightType}.gguf`);
          generateModel(path, { preset: 'small', arch: 'ctc', ffDim: 2080, nLayers: 2, seed: 79, weightType });
          const ggml = await encoderOf(path, false, 'f32', clip);
          const ours = await encoderOf(path, true, weightType === 'f32' ? 'f32' : 'auto', clip);
          assert.ok((ours.kernels[`${weightType}_avx512`] ?? 0) > 0, `kernels ${JSON.stringify(ours.kernels)}`);
          assert.ok(ours.n / 128 > 2 * 126, `${ours.n / 128} frames`);
          const rel = relL2(ours.data, ggml.data, ours.n);
          console.log(`  wide FF ${weightType}, 22 s: packed vs ggml's F32 encoder rel L2 ${fmt(rel)}`);
          assert.ok(rel <= 1e-5, `${weightType}: rel L2 ${fmt(rel)} > 1e-5`);
        }
      });
    }

    test(`linear_pos runs on its sin and cos column halves, one combining pass per layer, once for runs of that length; int8 norms write quantized rows (${preset})`, { skip: skipQ8 }, async () => {
      // rel_pos_projection.h: the F32 and per-channel int8 kernels take the positional projection as
      // two half products over positions ≥ 0 plus one combining pass; ggml's path (packedKernels
      // false) multiplies the whole table. That the numbers agree is the F32 test above (packed vs
      // ggml to 1e-5) and the int8 error bound below.
      const path = join(dir, `${preset}-f32.gguf`);
      generateModel(path, { preset, arch: 'hybrid_tdt_ctc', seed: 77 });
      for (const weightType of ['f32', 'int8'] as const) {
        const model = await Model.load(path, { ...ONE_THREAD, weightType });
        try {
          const layers = model.info().nLayers;
          assert.ok(layers > 0);
          // The first run makes the projections kept between runs (position_table.h), in its profile;
          // the next run of the same length reads them.
          const r = await model.transcribe(pcm, { profile: true });
          assert.equal(r.profile?.byOp.rel_pos_combine?.count, layers, `${weightType}: one combine per layer: ${JSON.stringify(Object.keys(r.profile?.byOp ?? {}))}`);
          const again = await model.transcribe(pcm, { profile: true });
          assert.equal(again.profile?.byOp.rel_pos_combine, undefined, `${weightType}: the kept projections: ${JSON.stringify(Object.keys(again.profile?.byOp ?? {}))}`);
          assert.deepEqual(again.tokens, r.tokens);
          // On the int8 kernel each block's input norm (FF1, attention, conv, FF2) is written already
          // quantized, once for q, k and v (layer_norm_op.h); the F32 kernel reads the F32 norm.
          assert.equal(r.profile?.byOp.layer_norm_quantized?.count, weightType === 'int8' ? 4 * layers : undefined, weightType);
        } finally {
          model.dispose();
        }
      }
    });

    test(`Q8_0 on the VNNI kernel has ggml's Q8_0 error; under auto the pointwise convs join it, the subsampling's run as 14-bit blocks (${preset})`, { skip: skipQ8 }, async () => {
      const f32 = join(dir, `${preset}-twin-f32.gguf`);
      const q8 = join(dir, `${preset}-twin-q8_0.gguf`);
      generateModel(f32, { preset, arch: 'hybrid_tdt_ctc', seed: 78 });
      generateModel(q8, { preset, arch: 'hybrid_tdt_ctc', seed: 78, weightType: 'q8_0' });
      const reference = await encoderOf(f32, false);
      // The kernel against ggml's on the same weights: every matmul in Q8_0 (weightType q8_0 on a
      // Q8_0 file keeps its values), then the file as auto runs it against the file as stored.
      const ggmlAll = await encoderOf(q8, false, 'q8_0');
      const oursAll = await encoderOf(q8, true, 'q8_0');
      const ggml = await encoderOf(q8, false);
      const ours = await encoderOf(q8, true);
      // Only the subsampling's two pointwise convs stay F32 weights, run as 14-bit blocks: the
      // conformer's join the VNNI kernel. The transducer's decision path stays F32 on the file's
      // values (decoder-parity.test.ts): joint.enc on the exact F32 kernel, the per-step products
      // host-side F32, never int8 twins under auto.
      assert.ok((ours.kernels[q8AutoKernel] ?? 0) > 0 && ours.kernels.f32_avx512 === 1 && (ours.kernels.i16_vnni ?? 0) <= 2,
        `kernels ${JSON.stringify(ours.kernels)}`);
      assert.ok((oursAll.kernels.q8_0_vnni ?? 0) > 0 && oursAll.kernels.q8_0_amx_bf16 === undefined, `weightType q8_0 keeps the VNNI kernel: ${JSON.stringify(oursAll.kernels)}`);
      assert.ok(ours.kernels.int8_decoder_vnni === undefined, `auto keeps the F32 decoder: ${JSON.stringify(ours.kernels)}`);
      const ggmlAllErr = relL2(ggmlAll.data, reference.data, ggmlAll.n);
      const oursAllErr = relL2(oursAll.data, reference.data, oursAll.n);
      const ggmlErr = relL2(ggml.data, reference.data, ggml.n);
      const oursErr = relL2(ours.data, reference.data, ours.n);
      console.log(`  ${preset} Q8_0 vs its F32 twin: all Q8_0 ggml ${fmt(ggmlAllErr)}, VNNI ${fmt(oursAllErr)}; ` +
        `as stored (ggml) ${fmt(ggmlErr)}, auto (VNNI, pointwise convs in Q8_0, subsampling 14-bit) ${fmt(oursErr)}`);
      assert.ok(oursAllErr <= 1.1 * ggmlAllErr + 1e-4, `VNNI error ${fmt(oursAllErr)} vs ggml's ${fmt(ggmlAllErr)}`);
      assert.ok(oursErr <= 1.25 * ggmlErr + 1e-4, `auto's error ${fmt(oursErr)} vs the file as stored ${fmt(ggmlErr)}`);
    });
  }

  for (const preset of ['tiny', 'small'] as const) {
    test(`weightType i16 (auto for an F32 file) takes an F32 file no further from F32 than its F16 twin, an F16 file within 1.5× its own error (${preset})`, { skip: skipQ8 }, async () => {
      const f32 = join(dir, `${preset}-i16-f32.gguf`);
      const f16 = join(dir, `${preset}-i16-f16.gguf`);
      generateModel(f32, { preset, arch: 'hybrid_tdt_ctc', seed: 86 });
      generateModel(f16, { preset, arch: 'hybrid_tdt_ctc', seed: 86, weightType: 'f16' });
      const reference = await encoderOf(f32, false);
      const f16Exact = await encoderOf(f16, true);  // auto: the file's own values on the F16 kernel
      const f16I16 = await encoderOf(f16, true, 'i16');
      const f32I16 = await encoderOf(f32, true, 'i16');
      // Every packed matmul but the transducer's joint.enc (exact F32: decoder-parity.test.ts).
      for (const [label, r] of [['F16 file', f16I16], ['F32 file', f32I16]] as const) {
        assert.ok((r.kernels.i16_vnni ?? 0) > 0 && r.kernels.f32_avx512 === 1 && r.kernels.f16_avx512 === undefined,
          `${label}: every packed matmul but joint.enc on the 14-bit kernel: ${JSON.stringify(r.kernels)}`);
      }
      assert.ok(f16Exact.kernels.i16_vnni === undefined, `auto keeps an F16 file on its F16 kernel: ${JSON.stringify(f16Exact.kernels)}`);
      // An F32 file under auto: the same 14-bit layout as weightType i16, so the same numbers.
      const f32Auto = await encoderOf(f32, true);
      assert.ok((f32Auto.kernels.i16_vnni ?? 0) > 0 && f32Auto.kernels.f32_avx512 === 1, `auto on the F32 file: ${JSON.stringify(f32Auto.kernels)}`);
      assert.deepEqual(f32Auto.data, f32I16.data);
      assert.deepEqual(f32Auto.tokens, f32I16.tokens);
      const fileErr = relL2(f16Exact.data, reference.data, f16Exact.n);
      const f16I16Err = relL2(f16I16.data, reference.data, f16I16.n);
      const f32I16Err = relL2(f32I16.data, reference.data, f32I16.n);
      console.log(`  ${preset} vs the F32 twin: F16 file as stored ${fmt(fileErr)}, F16 file as i16 ${fmt(f16I16Err)}, F32 file as i16 ${fmt(f32I16Err)}`);
      assert.ok(f32I16Err > 0 && f32I16Err <= fileErr, `i16 on the F32 file ${fmt(f32I16Err)} vs the F16 twin's ${fmt(fileErr)}`);
      assert.ok(f16I16Err > 0 && f16I16Err <= 1.5 * fileErr, `i16 on the F16 file ${fmt(f16I16Err)} vs the file's own ${fmt(fileErr)}`);
    });

    test(`weightType int8 runs per-channel int8 (VNNI, or AMX-INT8 where usable) within its error bound (${preset})`, { skip: skipQ8 }, async () => {
      const f32 = join(dir, `${preset}-i8c-f32.gguf`);
      const q8 = join(dir, `${preset}-i8c-q8_0.gguf`);
      generateModel(f32, { preset, arch: 'hybrid_tdt_ctc', seed: 81 });
      generateModel(q8, { preset, arch: 'hybrid_tdt_ctc', seed: 81, weightType: 'q8_0' });
      const reference = await encoderOf(f32, false);
      const ggmlQ8 = await encoderOf(q8, false);
      const fromF32 = await encoderOf(f32, true, 'int8');
      const fromQ8 = await encoderOf(q8, true, 'int8');
      for (const r of [fromF32, fromQ8]) {
        assert.ok(channelInt8(r.kernels) > 0 && r.kernels.q8_0_vnni === undefined && r.kernels.f32_avx512 === undefined,
          `every matmul on the int8 kernel: ${JSON.stringify(r.kernels)}`);
        // The transducer's per-step products too: each LSTM layer's two matrices (layer 0's input
        // weights stay F32, cached per token) and joint.pred and the joint output layer.
        assert.ok((r.kernels.int8_decoder_vnni ?? 0) >= 3, `the decoder on int8: ${JSON.stringify(r.kernels)}`);
      }
      for (const r of [reference, ggmlQ8]) assert.equal(r.kernels.int8_decoder_vnni, undefined, 'other weight types keep the F32 decoder');
      const q8Err = relL2(ggmlQ8.data, reference.data, ggmlQ8.n);
      const f32Err = relL2(fromF32.data, reference.data, fromF32.n);
      const q8FileErr = relL2(fromQ8.data, reference.data, fromQ8.n);
      console.log(`  ${preset} vs the F32 twin: ggml Q8_0 ${fmt(q8Err)}, int8 from F32 ${fmt(f32Err)}, int8 from Q8_0 ${fmt(q8FileErr)}`);
      assert.ok(f32Err > 0, 'int8 is lossy: an exact result means the kernel did not run');
      assert.ok(f32Err <= 3 * q8Err + 1e-3, `int8 (from F32) error ${fmt(f32Err)} vs ggml Q8_0 ${fmt(q8Err)}`);
      assert.ok(q8FileErr <= 3 * q8Err + 1e-3, `int8 (from Q8_0) error ${fmt(q8FileErr)} vs ggml Q8_0 ${fmt(q8Err)}`);
    });
  }

  for (const type of ['q4_0', 'q4_k', 'q5_k', 'q6_k'] as const) {
    test(`a ${type} file under auto runs its block weights requantized to Q8_0 on this CPU's Q8_0 kernel, within a few per cent of the file's own error`, { skip: skipQ8 }, async () => {
      // model_weights.cpp: the Q8_0 grid (1/127 of a block's range) is much finer than a 4–6 bit one,
      // so requantizing adds a small fraction to the file's own quantization error.
      const f32 = join(dir, `small-requant-${type}-f32.gguf`);
      const file = join(dir, `small-requant-${type}.gguf`);
      generateModel(f32, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 84 });
      generateModel(file, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 84, weightType: type });
      const reference = await encoderOf(f32, false);
      const ggml = await encoderOf(file, false);
      const ours = await encoderOf(file, true);
      assert.ok((ours.kernels[q8AutoKernel] ?? 0) > 0, `kernels ${JSON.stringify(ours.kernels)}`);
      const fileErr = relL2(ggml.data, reference.data, ggml.n);
      const oursErr = relL2(ours.data, reference.data, ours.n);
      console.log(`  ${type} file vs its F32 twin: ggml's ${type} kernels ${fmt(fileErr)}, requantized to Q8_0 on ${q8AutoKernel} ${fmt(oursErr)}`);
      assert.ok(oursErr <= 1.1 * fileErr, `requantized error ${fmt(oursErr)} vs the file's ${fmt(fileErr)}`);
    });
  }

  test('a Q8_0 file under auto on AMX-BF16 tiles: no further from its F32 twin than ggml\'s Q8_0, at every frame count of a tile', { skip: skipAmx }, async () => {
    // q8_amx_bf16.h: weights d·q and activations rounded to BF16 (2⁻⁹ each), F32 sums over the
    // whole row, where Q8_0's own arithmetic quantizes the activations to 8 bits per 32 inputs.
    const f32 = join(dir, 'small-amx-f32.gguf');
    const q8 = join(dir, 'small-amx-q8_0.gguf');
    generateModel(f32, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 88 });
    generateModel(q8, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 88, weightType: 'q8_0' });
    const reference = await encoderOf(f32, false);
    const ggml = await encoderOf(q8, false);
    const vnniAll = await encoderOf(q8, true, 'q8_0');
    const ours = await encoderOf(q8, true);
    assert.ok((ours.kernels.q8_0_amx_bf16 ?? 0) > 0 && ours.kernels.f32_avx512 === undefined, `kernels ${JSON.stringify(ours.kernels)}`);
    const ggmlErr = relL2(ggml.data, reference.data, ggml.n);
    const vnniErr = relL2(vnniAll.data, reference.data, vnniAll.n);
    const oursErr = relL2(ours.data, reference.data, ours.n);
    console.log(`  Q8_0 file vs its F32 twin: ggml as stored ${fmt(ggmlErr)}, every matmul Q8_0 on VNNI ${fmt(vnniErr)}, auto on AMX-BF16 ${fmt(oursErr)}`);
    assert.ok(oursErr > 0 && oursErr <= ggmlErr, `AMX-BF16 error ${fmt(oursErr)} vs ggml's Q8_0 ${fmt(ggmlErr)}`);
    // The kernel's tiles are 16 frames, taken in pairs: clips ending on each side of both, against
    // the VNNI kernel on the same file (every matmul Q8_0): the two approximations stay close.
    const a = await Model.load(q8, { ...ONE_THREAD, weightType: 'q8_0' });
    const b = await Model.load(q8, { ...ONE_THREAD });
    try {
      for (const frames of [1, 2, 15, 16, 17, 31, 32, 33, 47, 49]) {
        const clip = speechSamples(dir, seconds(frames * 0.08 - 0.01));
        const ea = (await a.transcribe(clip, { captureEncoder: true })).encoder!;
        const eb = (await b.transcribe(clip, { captureEncoder: true })).encoder!;
        assert.equal(eb.validFrames, ea.validFrames);
        const rel = relL2(eb.data, ea.data, ea.validFrames * ea.dim);
        assert.ok(rel > 0 && rel < 0.05, `${ea.validFrames} frames: AMX-BF16 vs VNNI Q8_0 rel L2 ${fmt(rel)}`);
      }
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  test('where /proc/cpuinfo lists AMX-BF16 and AVX512-BF16, the engine uses its AMX kernel (unless PARAKEET_AMX=0)', async (t) => {
    let flags = '';
    try {
      flags = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('flags')) ?? '';
    } catch {
      t.skip('no /proc/cpuinfo (not Linux)');
      return;
    }
    const listed = / amx_bf16( |$)/.test(flags) && / avx512_bf16( |$)/.test(flags) && / amx_tile( |$)/.test(flags);
    if (!listed || process.env.PARAKEET_AMX === '0') {
      t.skip(listed ? 'PARAKEET_AMX=0' : 'this CPU does not list AMX-BF16');
      return;
    }
    assert.ok(amx, `cpuinfo lists AMX-BF16 but the engine does not use it: features ${[...features].join(' ')}`);
  });

  test('weightType q4_k runs a Q4_K file\'s own values on the Q4_K VNNI kernel, no worse than ggml\'s Q4_K, for every frame count of a tile', { skip: skipQ8 }, async () => {
    // q4_k_vnni.h: the file's 4-bit quants with their sub-block scales and minimums, against
    // activations quantized per 32 inputs (ggml's Q4_K path: per 256). weightType q4_k keeps a Q4_K
    // file as it is (auto requantizes the small test model to Q8_0, within its memory budget), and
    // converts an F32 file to Q4_K at load. Clips of 7–12 frames leave 1–5 and 0 frames after the
    // 6-frame tiles (one tile of 1–5 frames, block_chunks.h).
    const f32 = join(dir, 'small-q4k-f32.gguf');
    const file = join(dir, 'small-q4k.gguf');
    generateModel(f32, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 85 });
    generateModel(file, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 85, weightType: 'q4_k' });
    const reference = await encoderOf(f32, false);
    const ggml = await encoderOf(file, false);
    const ours = await encoderOf(file, true, 'q4_k');
    const converted = await encoderOf(f32, true, 'q4_k');
    for (const r of [ours, converted]) assert.ok((r.kernels.q4_k_vnni ?? 0) > 0, `kernels ${JSON.stringify(r.kernels)}`);
    const fileErr = relL2(ggml.data, reference.data, ggml.n);
    const oursErr = relL2(ours.data, reference.data, ours.n);
    const convertedErr = relL2(converted.data, reference.data, converted.n);
    console.log(`  q4_k file vs its F32 twin: ggml's Q4_K ${fmt(fileErr)}, Q4_K VNNI ${fmt(oursErr)}, F32 file converted at load ${fmt(convertedErr)}`);
    assert.ok(oursErr > 0 && oursErr <= 1.05 * fileErr, `Q4_K VNNI error ${fmt(oursErr)} vs ggml's ${fmt(fileErr)}`);
    assert.ok(convertedErr <= 1.05 * fileErr, `converted at load ${fmt(convertedErr)} vs the file's ${fmt(fileErr)}`);
    await compareOverTileTails(file, { packedKernels: false }, { weightType: 'q4_k' }, 'Q4_K VNNI vs ggml\'s Q4_K', false);
  });

  test('Q8_0 on the VNNI kernel follows ggml\'s Q8_0 for every frame count of a tile (1–6 trailing frames)', { skip: skipQ8 }, async () => {
    // Every matmul in Q8_0 on both sides (weightType q8_0): the same arithmetic but the summation
    // order and the fp16 rounding of the activations' scales, so the two stay close at every tail.
    const q8 = join(dir, 'small-tails-q8_0.gguf');
    generateModel(q8, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 87, weightType: 'q8_0' });
    await compareOverTileTails(q8, { packedKernels: false, weightType: 'q8_0' }, { weightType: 'q8_0' }, 'Q8_0 VNNI vs ggml\'s Q8_0', false, 2e-2);
  });

  test('weightType i16 handles every frame count of a tile (1–6 trailing frames)', { skip: skipQ8 }, async () => {
    const f32 = join(dir, 'tiny-i16-tails-f32.gguf');
    generateModel(f32, { preset: 'tiny', arch: 'ctc', seed: 87 });
    await compareOverTileTails(f32, { packedKernels: false }, { weightType: 'i16' }, 'i16 vs F32', true, 1e-3);
  });

  test('weightType int8 handles every frame count of a tile (1–6 trailing frames) as its error bound says', { skip: skipQ8 }, async () => {
    const f32 = join(dir, 'tiny-i8c-tails-f32.gguf');
    generateModel(f32, { preset: 'tiny', arch: 'ctc', seed: 82 });
    await compareOverTileTails(f32, { packedKernels: false }, { weightType: 'int8' }, 'int8 vs F32', true);
  });

  test('a load-time Q8_0 conversion of an F32 file also runs on the VNNI kernel', { skip: skipQ8 }, async () => {
    const path = join(dir, 'tiny-convert-f32.gguf');
    generateModel(path, { preset: 'tiny', arch: 'ctc', seed: 79 });
    const model = await Model.load(path, { ...ONE_THREAD, weightType: 'q8_0' });
    try {
      assert.ok((model.info().kernels.q8_0_vnni ?? 0) > 0, `kernels ${JSON.stringify(model.info().kernels)}`);
      const r = await model.transcribe(pcm);
      assert.ok(r.durationSec > 9);
    } finally {
      model.dispose();
    }
  });
});

describe('adaptive thread counts', () => {
  test('all threads first, one thread next to calibrate, and threadsUsed reports each run', async () => {
    const path = join(dir, 'tiny-adaptive.gguf');
    generateModel(path, { preset: 'tiny', arch: 'ctc', seed: 80 });
    const fixed = await Model.load(path, { threads: 2 });
    const adaptive = await Model.load(path, { threads: 2, adaptiveThreads: true });
    try {
      assert.equal((await fixed.transcribe(pcm)).threadsUsed, 2);
      assert.equal((await fixed.transcribe(pcm)).threadsUsed, 2);
      const first = await adaptive.transcribe(pcm);
      const second = await adaptive.transcribe(pcm);
      assert.deepEqual([first.threadsUsed, second.threadsUsed], [2, 1]);
      assert.equal(first.text, second.text, 'the thread count never changes the result');
    } finally {
      fixed.dispose();
      adaptive.dispose();
    }
  });
});
