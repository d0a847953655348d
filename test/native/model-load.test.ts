// Loading: every generated architecture and storage type loads and info()
// reports the right heads, dims and tensor types; loader defaults for omitted
// keys; every deliberately malformed file is rejected with MODEL_INVALID and a
// message naming the problem and the file; loading does not block the event
// loop; a load can be aborted.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { Model, type DecoderName, type ModelInfo } from '../../native/index.js';
import { generateModel, type ModelDescription } from '../support/model/generate.js';
import { MALFORMED_CASES } from '../support/model/malformed.js';
import { ARCHS, type Arch, type ModelOptionsInput, type WeightType } from '../support/model/options.js';
import { rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('load');

const EXPECTED_HEADS: Record<Arch, { decoders: DecoderName[]; hasCtc: boolean; hasTransducer: boolean; isTdt: boolean; defaultDecoder: DecoderName }> = {
  ctc: { decoders: ['ctc'], hasCtc: true, hasTransducer: false, isTdt: false, defaultDecoder: 'ctc' },
  rnnt: { decoders: ['rnnt'], hasCtc: false, hasTransducer: true, isTdt: false, defaultDecoder: 'rnnt' },
  tdt: { decoders: ['tdt'], hasCtc: false, hasTransducer: true, isTdt: true, defaultDecoder: 'tdt' },
  hybrid_tdt_ctc: { decoders: ['tdt', 'ctc'], hasCtc: true, hasTransducer: true, isTdt: true, defaultDecoder: 'tdt' },
  hybrid_rnnt_ctc: { decoders: ['rnnt', 'ctc'], hasCtc: true, hasTransducer: true, isTdt: false, defaultDecoder: 'rnnt' },
};

function countTypes(d: ModelDescription): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of d.tensors) out[t.typeName] = (out[t.typeName] ?? 0) + 1;
  return out;
}

/** Everything info() must say about a generated model. */
function assertInfoMatches(info: ModelInfo, d: ModelDescription, label: string): void {
  const o = d.options;
  const heads = EXPECTED_HEADS[o.arch];
  assert.equal(info.path, d.path, label);
  assert.equal(info.name, o.label, label);
  assert.equal(info.arch, o.archLabel, label);
  assert.deepEqual(
    { decoders: info.decoders, hasCtc: info.hasCtc, hasTransducer: info.hasTransducer, isTdt: info.isTdt, defaultDecoder: info.defaultDecoder },
    heads,
    `${label}: heads`,
  );
  const transducer = heads.hasTransducer;
  assert.deepEqual(
    {
      dModel: info.dModel, nLayers: info.nLayers, nHeads: info.nHeads, ffDim: info.ffDim, convKernel: info.convKernel,
      nMels: info.nMels, vocabSize: info.vocabSize, blankId: info.blankId, subsamplingChannels: info.subsamplingChannels,
      subsamplingFactor: info.subsamplingFactor, useBias: info.useBias, xscaling: info.xscaling, convNormType: info.convNormType,
      sampleRate: info.sampleRate, nFft: info.nFft, winLength: info.winLength, hopLength: info.hopLength, normalize: info.normalize,
      attContextStyle: info.attContextStyle,
    },
    {
      dModel: o.dModel, nLayers: o.nLayers, nHeads: o.nHeads, ffDim: o.ffDim, convKernel: o.convKernel,
      nMels: o.nMels, vocabSize: o.vocabSize, blankId: o.vocabSize, subsamplingChannels: o.subsamplingChannels,
      subsamplingFactor: 8, useBias: o.useBias, xscaling: o.xscaling, convNormType: o.convNormType,
      sampleRate: 16000, nFft: 512, winLength: 400, hopLength: 160, normalize: o.normalize,
      attContextStyle: 'regular',
    },
    `${label}: encoder/preprocessor dims`,
  );
  if (transducer) {
    assert.deepEqual(
      { predHidden: info.predHidden, predLayers: info.predLayers, jointHidden: info.jointHidden, maxSymbols: info.maxSymbols },
      { predHidden: o.predHidden, predLayers: o.predLayers, jointHidden: o.jointHidden, maxSymbols: o.maxSymbols },
      `${label}: transducer dims`,
    );
  }
  assert.deepEqual(info.durations, heads.isTdt ? [...o.durations] : [], `${label}: durations`);
  assert.ok(Math.abs(info.frameSec - 0.08) < 1e-12, `${label}: frameSec ${info.frameSec}`);
  assert.deepEqual(info.tensorTypes, countTypes(d), `${label}: tensorTypes`);
  assert.equal(info.tensorCount, d.tensors.length, `${label}: tensorCount`);
  assert.equal(info.fileBytes, statSync(d.path).size, `${label}: fileBytes`);
  assert.ok(info.weightBytes > 0 && info.weightBytes <= info.fileBytes * 1.5, `${label}: weightBytes ${info.weightBytes}`);
  assert.equal(info.weightType, 'auto');
  assert.equal(info.device.device.name, 'CPU');
  assert.ok(info.threads >= 1);
  assert.ok(info.loadMs >= 0);
}

describe('every generated architecture and weight type loads with the right info()', () => {
  const weightTypes: WeightType[] = ['f32', 'f16', 'q8_0', 'q4_0'];
  for (const arch of ARCHS) {
    for (const weightType of weightTypes) {
      test(`${arch} ${weightType}`, async () => {
        const d = generateModel(join(dir, `${arch}-${weightType}.gguf`), { preset: 'tiny', arch, weightType, seed: 21 });
        if (weightType !== 'f32') assert.ok(d.quantizedCount > 0, 'the generator stored some tensors in the requested type');
        const model = await Model.load(d.path, { threads: 1 });
        try {
          const info = model.info();
          assertInfoMatches(info, d, `${arch}/${weightType}`);
          if (weightType !== 'f32') {
            assert.equal(info.tensorTypes[weightType], d.quantizedCount);
            // 'auto' keeps the file's types (repacking is lossless and keeps the type name or a repacked variant).
            assert.ok(Object.keys(info.weightTypes).some((t) => t !== 'f32'), `weightTypes ${JSON.stringify(info.weightTypes)}`);
          } else {
            assert.deepEqual(Object.keys(info.weightTypes), ['f32']);
          }
          // The model is usable with each of its decoders.
          for (const decoder of info.decoders) {
            const r = await model.transcribe(new Float32Array(8000).map((_, i) => 0.2 * Math.sin(i / 9)), { decoder });
            assert.equal(r.decoder, decoder);
          }
        } finally {
          model.dispose();
        }
      });
    }
  }

  test('small preset (2 LSTM layers, hybrid) and a 0.6B-like head layout (tdt labelled hybrid_tdt_ctc, no CTC tensors)', async () => {
    const small = generateModel(join(dir, 'small.gguf'), { preset: 'small', seed: 3 });
    const m1 = await Model.load(small.path, { threads: 1 });
    assertInfoMatches(m1.info(), small, 'small');
    assert.equal(m1.info().predLayers, 2);
    m1.dispose();
    // spec 1.3: 0.6B files may say hybrid_tdt_ctc without CTC tensors; heads come from the tensors.
    const labelled = generateModel(join(dir, 'labelled.gguf'), { preset: 'tiny', arch: 'tdt', archLabel: 'hybrid_tdt_ctc', useBias: false, seed: 3 });
    const m2 = await Model.load(labelled.path);
    const info = m2.info();
    assert.equal(info.arch, 'hybrid_tdt_ctc');
    assert.deepEqual(info.decoders, ['tdt']);
    assert.equal(info.hasCtc, false);
    assert.equal(info.useBias, false);
    m2.dispose();
  });
});

describe('loader defaults for omitted keys', () => {
  const DIM_KEYS = [
    'parakeet.encoder.feat_in', 'parakeet.encoder.d_model', 'parakeet.encoder.n_layers', 'parakeet.encoder.n_heads',
    'parakeet.encoder.ff_dim', 'parakeet.encoder.conv_kernel', 'parakeet.encoder.subsampling_factor',
    'parakeet.encoder.subsampling_conv_channels', 'parakeet.encoder.conv_norm_type', 'parakeet.encoder.pos_emb_max_len',
    'parakeet.encoder.use_bias', 'parakeet.preprocessor.sample_rate', 'parakeet.preprocessor.n_mels',
    'parakeet.preprocessor.n_fft', 'parakeet.preprocessor.win_length', 'parakeet.preprocessor.hop_length',
    'parakeet.preprocessor.preemph', 'parakeet.preprocessor.mag_power', 'parakeet.preprocessor.normalize',
    'parakeet.preprocessor.log_zero_guard', 'parakeet.vocab_size', 'parakeet.blank_id', 'parakeet.decoder.pred_hidden',
    'parakeet.decoder.pred_rnn_layers', 'parakeet.joint.joint_hidden', 'parakeet.joint.activation', 'parakeet.decoding.max_symbols',
  ];

  const cases: { label: string; input: ModelOptionsInput }[] = [
    { label: 'tiny hybrid_tdt_ctc', input: { preset: 'tiny', arch: 'hybrid_tdt_ctc' } },
    { label: 'small rnnt (2 LSTM layers)', input: { preset: 'small', arch: 'rnnt' } },
    { label: 'tiny ctc without encoder biases', input: { preset: 'tiny', arch: 'ctc', useBias: false } },
  ];
  for (const { label, input } of cases) {
    test(`${label}: every dimension key omitted → dims inferred from the tensors`, async () => {
      const full = generateModel(join(dir, 'omit-full.gguf'), { ...input, seed: 5 });
      const d = generateModel(join(dir, 'omit.gguf'), { ...input, seed: 5, omitKeys: DIM_KEYS });
      for (const k of DIM_KEYS) assert.ok(!d.kvKeys.includes(k), `generator left ${k} in`);
      const model = await Model.load(d.path, { threads: 1 });
      const info = model.info();
      // Same expectations as the complete file (label differs only in the path).
      assertInfoMatches(info, { ...d, options: full.options }, `${label} (omitted keys)`);
      // And the same numbers: the defaults (preemph 0.97, per_feature, …) equal what the generator writes.
      const reference = await Model.load(full.path, { threads: 1 });
      const pcm = new Float32Array(12000).map((_, i) => 0.3 * Math.sin(i / 7) * Math.sin(i / 1300));
      const a = await model.transcribe(pcm, { captureMel: true });
      const b = await reference.transcribe(pcm, { captureMel: true });
      assert.deepEqual(a.mel?.data, b.mel?.data, 'mel with defaulted preprocessor keys');
      assert.deepEqual(a.tokens.map((t) => t.id), b.tokens.map((t) => t.id));
      model.dispose();
      reference.dispose();
    });
  }

  test('xscaling omitted → defaults to true (spec 1.2)', async () => {
    const d = generateModel(join(dir, 'omit-xscaling.gguf'), { preset: 'tiny', arch: 'ctc', omitKeys: ['parakeet.encoder.xscaling'] });
    const model = await Model.load(d.path);
    assert.equal(model.info().xscaling, true);
    model.dispose();
  });

  test('durations omitted on a TDT file → MODEL_INVALID naming parakeet.tdt.durations', async () => {
    const d = generateModel(join(dir, 'omit-durations.gguf'), { preset: 'tiny', arch: 'tdt', omitKeys: ['parakeet.tdt.durations'] });
    await rejectsWithCode(Model.load(d.path), 'MODEL_INVALID', 'parakeet.tdt.durations');
  });
});

describe('malformed files are rejected with MODEL_INVALID naming the problem and the file', () => {
  assert.ok(MALFORMED_CASES.length >= 20, 'the malformed catalogue is there');
  for (const c of MALFORMED_CASES) {
    test(`${c.name}: ${c.description}`, async () => {
      const path = join(dir, `bad-${c.name}.gguf`);
      c.write(path);
      const error = await rejectsWithCode(Model.load(path), c.expectedCode, c.expectedMessageIncludes);
      assert.ok(error.message.includes(path), `the message must include the file path: ${error.message}`);
    });
  }

  test('a missing file and a directory are MODEL_INVALID with the path', async () => {
    const missing = join(dir, 'does-not-exist.gguf');
    const e1 = await rejectsWithCode(Model.load(missing), 'MODEL_INVALID');
    assert.ok(e1.message.includes(missing), e1.message);
    const e2 = await rejectsWithCode(Model.load(dir), 'MODEL_INVALID');
    assert.ok(e2.message.includes(dir), e2.message);
  });
});

describe('load options', () => {
  const d = generateModel(join(dir, 'opts.gguf'), { preset: 'tiny', arch: 'tdt', seed: 8 });

  test('mmap true/false and threads are reported and give identical results', async () => {
    const a = await Model.load(d.path, { mmap: true, threads: 1 });
    const b = await Model.load(d.path, { mmap: false, threads: 2 });
    assert.equal(a.info().mmap, true);
    assert.equal(b.info().mmap, false);
    assert.equal(a.info().threads, 1);
    assert.equal(b.info().threads, 2);
    const pcm = new Float32Array(16000).map((_, i) => 0.3 * Math.sin(i / 5));
    const ra = await a.transcribe(pcm, { captureEncoder: true });
    const rb = await b.transcribe(pcm, { captureEncoder: true });
    assert.deepEqual(ra.tokens.map((t) => t.id), rb.tokens.map((t) => t.id));
    a.dispose();
    b.dispose();
  });

  test('an unknown weightType is BAD_ARGUMENT', async () => {
    await rejectsWithCode(Model.load(d.path, { weightType: 'q3_x' as unknown as 'auto' }), 'BAD_ARGUMENT', 'q3_x');
  });

  test('onProgress reports fractions in [0, 1], non-decreasing, ending at 1', async () => {
    const seen: number[] = [];
    const model = await Model.load(d.path, { onProgress: (f) => seen.push(f) });
    await new Promise((r) => setTimeout(r, 20)); // callbacks are delivered through the event loop
    model.dispose();
    assert.ok(seen.length > 0, 'no progress reported');
    for (let i = 0; i < seen.length; i++) {
      assert.ok(seen[i] >= 0 && seen[i] <= 1, `fraction ${seen[i]}`);
      if (i > 0) assert.ok(seen[i] >= seen[i - 1], `progress went back: ${seen.join(', ')}`);
    }
    assert.equal(seen[seen.length - 1], 1);
  });
});

describe('loading runs off the JS thread', () => {
  // A model whose load takes long enough to matter: Q8_0 file dequantized to F32 and read without mmap.
  const slow = generateModel(join(dir, 'medium-q8_0.gguf'), {
    preset: 'small', dModel: 384, nLayers: 20, ffDim: 1536, subsamplingChannels: 64, nHeads: 4, weightType: 'q8_0', seed: 2,
  });
  const slowOptions = { weightType: 'f32', mmap: false } as const;

  test('the event loop keeps running while a > 100 ms load runs', async () => {
    // Warm-up: first use of the addon and page cache.
    (await Model.load(slow.path, slowOptions)).dispose();
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    let maxGap = 0;
    let ticks = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 5);
    histogram.enable();
    const t0 = performance.now();
    const model = await Model.load(slow.path, slowOptions);
    const loadMs = performance.now() - t0;
    histogram.disable();
    clearInterval(probe);
    const maxDelayMs = histogram.max / 1e6;
    console.log(
      `event loop during load: load ${loadMs.toFixed(0)} ms (engine ${model.info().loadMs.toFixed(0)} ms), ` +
        `max delay ${maxDelayMs.toFixed(1)} ms (monitorEventLoopDelay, 10 ms resolution), p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms, ` +
        `max setInterval(5 ms) gap ${maxGap.toFixed(1)} ms over ${ticks} ticks`,
    );
    assert.equal(model.info().weightTypes.q8_0, undefined, 'the F32 conversion took place');
    model.dispose();
    assert.ok(loadMs > 100, `the load must take long enough to matter (${loadMs.toFixed(0)} ms)`);
    assert.ok(ticks >= 5, `timers kept firing during the load (${ticks})`);
    // A load on the JS thread would stall the loop for about the whole load. On a
    // busy 2-core machine the OS alone can delay a timer by tens of ms, so the
    // bound is 100 ms or half the load, whichever is larger.
    const bound = Math.max(100, loadMs / 2);
    assert.ok(maxDelayMs < bound, `event loop blocked for ${maxDelayMs.toFixed(1)} ms during a ${loadMs.toFixed(0)} ms load`);
    assert.ok(maxGap < bound, `setInterval gap ${maxGap.toFixed(1)} ms during a ${loadMs.toFixed(0)} ms load`);
  });

  test('a load aborted through its signal mid-way rejects with ABORTED', async () => {
    const controller = new AbortController();
    let progressCalls = 0;
    const t0 = performance.now();
    const pending = Model.load(slow.path, {
      ...slowOptions,
      signal: controller.signal,
      onProgress: () => {
        progressCalls++;
        controller.abort();
      },
    });
    setTimeout(() => controller.abort(), 30);
    await rejectsWithCode(pending, 'ABORTED');
    console.log(`load abort: rejected after ${(performance.now() - t0).toFixed(0)} ms (progress calls before abort: ${progressCalls})`);
  });

  test('an already-aborted signal rejects the load at once', async () => {
    const controller = new AbortController();
    controller.abort();
    await rejectsWithCode(Model.load(slow.path, { signal: controller.signal }), 'ABORTED');
  });
});
