// The peer benchmark's ONNX exporter (test/bench/peers/encoder-onnx.ts) computes the same encoder as
// our engine: ONNX Runtime on the exported fp32 graph against the engine's F32 encoder on the same
// GGUF, fed the engine's own log-mel. A one-layer model keeps float32 rounding from compounding
// (random deep models amplify it layer by layer: measured 7e-7 at 1 layer, 2e-5 at 17), so the
// 1e-5 bound tests the math, not the depth. The int8 graph (quantize_dynamic's MatMul pattern) is
// checked for its quantized MatMul count and a bounded error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { Model } from '../../native/index.js';
import { exportEncoderOnnx } from '../bench/peers/encoder-onnx.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { fmt, relL2 } from './helpers/compare.js';
import { ONE_THREAD } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('onnx');

test('ONNX Runtime on the exported encoder agrees with the engine (fp32 ≤ 1e-5; int8 quantizes every weight MatMul)', async () => {
  const gguf = join(dir, 'one-layer.gguf');
  generateModel(gguf, { preset: 'small', nLayers: 1, arch: 'ctc', seed: 91 });
  const pcm = speechSamples(dir, seconds(4));
  const model = await Model.load(gguf, { ...ONE_THREAD, weightType: 'f32' });
  const r = await model.transcribe(pcm, { captureMel: true, captureEncoder: true });
  model.dispose();
  const mel = r.mel!;
  const enc = r.encoder!;
  const features = new Float32Array(mel.bins * mel.validFrames);
  for (let m = 0; m < mel.bins; m++) features.set(mel.data.subarray(m * mel.frames, m * mel.frames + mel.validFrames), m * mel.validFrames);
  const feeds = { features: new ort.Tensor('float32', features, [1, mel.bins, mel.validFrames]) };

  const outputs: Record<string, Float32Array> = {};
  for (const precision of ['fp32', 'int8'] as const) {
    const path = join(dir, `one-layer-${precision}.onnx`);
    const info = exportEncoderOnnx(gguf, path, { precision, maxFrames: 200 });
    // Per layer: FFN 2 + 2, q k v out pos, pointwise 1 and 2 = 11; plus pre_encode.out.
    assert.equal(info.quantizedMatMuls, precision === 'int8' ? 12 : 0);
    const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
    const out = (await session.run(feeds)).encoded;
    assert.deepEqual(out.dims, [enc.validFrames, enc.dim]);
    outputs[precision] = out.data as Float32Array;
    await session.release();
  }
  const n = enc.validFrames * enc.dim;
  const fp32 = relL2(enc.data, outputs.fp32, n);
  const int8 = relL2(outputs.fp32, outputs.int8, n);
  console.log(`  ORT fp32 vs engine F32: ${fmt(fp32)}; ORT int8 vs ORT fp32: ${fmt(int8)}`);
  assert.ok(fp32 <= 1e-5, `ORT fp32 differs from the engine by ${fmt(fp32)}`);
  assert.ok(int8 > 0 && int8 < 0.2, `int8 error ${fmt(int8)}`);
});
