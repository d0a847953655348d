// Parity on a real Vulkan device (Vulkan0; lavapipe in CI, see helpers/vulkan.ts): a generated model of every
// architecture decodes the same tokens on the device as on the CPU, under parity.test.ts's near-tie rule: the
// tokens agree at least up to the float64 reference's reliable prefix (decisions with a top-2 margin > 1e-3),
// and the whole sequence and text when every decision is clear. The encoder outputs agree within Vulkan's
// rounding (ggml-vulkan's matmuls may round activations to F16: lavapipe gives ≈ 1.6e-3 on these random tiny
// models, ≈ 2e-4 on the trained digits model).
// Then the known-answer self-test (app/engine-process/self-test-run.ts) on the device against the CPU.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runSelfTest } from '../../app/engine-process/self-test-run.js';
import { Model, type DecoderName } from '../../native/index.js';
import { referenceTranscribe } from '../reference/index.js';
import { generateModel } from '../support/model/generate.js';
import type { Arch } from '../support/model/options.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { noise, seconds, speechSamples } from './helpers/audio.js';
import { commonPrefix, describeTokens, fmt, relL2 } from './helpers/compare.js';
import { scratchDir } from './helpers/tmp.js';
import { VULKAN_DEVICE, vulkanSkip } from './helpers/vulkan.js';

const skip = vulkanSkip();
const dir = scratchDir('vulkan-parity');
const ENC_TOL = 5e-3;

const ARCHS: { arch: Arch; decoders: DecoderName[] }[] = [
  { arch: 'ctc', decoders: ['ctc'] },
  { arch: 'rnnt', decoders: ['rnnt'] },
  { arch: 'tdt', decoders: ['tdt'] },
  { arch: 'hybrid_tdt_ctc', decoders: ['tdt', 'ctc'] },
  { arch: 'hybrid_rnnt_ctc', decoders: ['rnnt', 'ctc'] },
];

const loaded: Model[] = [];
after(() => {
  for (const model of loaded) model.dispose();
});

async function load(path: string, device: string): Promise<Model> {
  const model = await Model.load(path, { device, threads: 1, weightType: 'f32' });
  loaded.push(model);
  return model;
}

describe(`${VULKAN_DEVICE} decodes as the CPU does, every architecture`, () => {
  for (const { arch, decoders } of ARCHS) {
    test(`${arch} · ${decoders.join('+')} · speech and noise, 3 s each`, { skip }, async () => {
      const path = join(dir, `${arch}.gguf`);
      generateModel(path, { preset: 'tiny', arch, seed: 2024 });
      const gpu = await load(path, VULKAN_DEVICE);
      const cpu = await load(path, 'cpu');
      assert.equal(gpu.info().device.device.name, VULKAN_DEVICE);
      const weights = openWeightSource(path);
      for (const [kind, pcm] of [['speech', speechSamples(dir, seconds(3))], ['noise', noise(seconds(3), 0.5, 99)]] as const) {
        for (const decoder of decoders) {
          const label = `${arch}/${decoder} ${kind}`;
          const onGpu = await gpu.transcribe(pcm, { decoder, captureEncoder: true });
          const onCpu = await cpu.transcribe(pcm, { decoder, captureEncoder: true });
          assert.deepEqual(onGpu.devicesRan, [VULKAN_DEVICE]);
          assert.deepEqual(onCpu.devicesRan, ['CPU']);
          const enc = onCpu.encoder!;
          const rel = relL2(enc.data, onGpu.encoder!.data, enc.validFrames * enc.dim);
          const ref = referenceTranscribe(weights, pcm, { decoder });
          const agreeing = commonPrefix(onCpu.tokens, onGpu.tokens);
          const allDecided = ref.steps.every((s) => s.margin > 1e-3);
          console.log(`${label.padEnd(28)} encoder rel L2 ${fmt(rel)}; tokens ${onCpu.tokens.length}, agreeing ${agreeing}, reliable ${ref.reliableTokens}${allDecided ? ' (all decided)' : ''}`);
          assert.ok(rel <= ENC_TOL, `${label}: encoder relative L2 ${fmt(rel)} > ${ENC_TOL}`);
          const detail = `\n  CPU    ${describeTokens(onCpu.tokens)}\n  ${VULKAN_DEVICE} ${describeTokens(onGpu.tokens)}`;
          assert.ok(agreeing >= ref.reliableTokens, `${label}: tokens differ at ${agreeing} < reliable ${ref.reliableTokens}${detail}`);
          if (allDecided) {
            assert.equal(onGpu.tokens.length, onCpu.tokens.length, `${label}: every decision is clear${detail}`);
            assert.equal(onGpu.text, onCpu.text, `${label}: text`);
          }
        }
      }
    });
  }

  test(`the known-answer self-test on ${VULKAN_DEVICE} passes against the CPU`, { skip }, async () => {
    const path = join(dir, 'selftest-tdt.gguf');
    generateModel(path, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 3 });
    const resident = await Model.load(path, { device: VULKAN_DEVICE, threads: 1 });
    loaded.push(resident);
    const result = await runSelfTest({ resident, path, load: (p, options) => Model.load(p, options), trigger: 'manual' });
    console.log(`self-test on ${result.device}: ${result.detail} (${result.durationMs} ms)`);
    assert.equal(result.device, VULKAN_DEVICE);
    assert.equal(result.reference, 'cpu');
    assert.equal(result.passed, true, result.detail);
    assert.ok(result.relL2 !== null && result.relL2 <= result.tolerance, `relative error ${result.relL2} vs tolerance ${result.tolerance}`);
    assert.equal(result.tokensMatch, true);
  });
});
