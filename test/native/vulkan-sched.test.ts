// The ggml_backend_sched path on a real Vulkan device (Vulkan0; lavapipe in CI, see helpers/vulkan.ts) with
// the CPU fallback really taken. Vulkan has a kernel for every op our GPU graphs use, so the test hook
// PARAKEET_SCHED_CPU_OPS (native/engine/runtime/device_test_hooks.h) pins chosen ops to the CPU the way the
// scheduler places an op the device lacks; the result must be the device's own, and "ran on" must name both.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Model, type TranscribeResult } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { fmt, ids, relL2 } from './helpers/compare.js';
import { scratchDir } from './helpers/tmp.js';
import { VULKAN_DEVICE, vulkanSkip } from './helpers/vulkan.js';

const skip = vulkanSkip();
const dir = scratchDir('vulkan-sched');
const path = join(dir, 'tiny-hybrid.gguf');
/** Ops with no weight input (so the CPU side copies activations, not weights) from the attention and the norms. */
const PINNED = 'SOFT_MAX,NORM';

let direct: Model | undefined;
let scheduled: Model | undefined;
let pinned: Model | undefined;
before(async () => {
  if (skip) return;
  generateModel(path, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 12 });
  const options = { device: VULKAN_DEVICE, threads: 1 } as const;
  direct = await Model.load(path, options);
  scheduled = await Model.load(path, { ...options, alwaysSchedule: true });
  const saved = process.env.PARAKEET_SCHED_CPU_OPS;
  process.env.PARAKEET_SCHED_CPU_OPS = PINNED;
  try {
    pinned = await Model.load(path, options);
  } finally {
    if (saved === undefined) delete process.env.PARAKEET_SCHED_CPU_OPS;
    else process.env.PARAKEET_SCHED_CPU_OPS = saved;
  }
});
after(() => {
  direct?.dispose();
  scheduled?.dispose();
  pinned?.dispose();
});

function assertSameDecode(label: string, a: TranscribeResult, b: TranscribeResult, tolerance: number): void {
  const rel = relL2(a.encoder!.data, b.encoder!.data, a.encoder!.validFrames * a.encoder!.dim);
  console.log(`${label}: encoder rel L2 ${fmt(rel)} against the direct path`);
  assert.ok(rel < tolerance, `${label}: encoder outputs differ (rel L2 ${fmt(rel)})`);
  assert.deepEqual(ids(b.tokens), ids(a.tokens), `${label}: tokens`);
  assert.equal(b.text, a.text, `${label}: text`);
}

describe(`ggml_backend_sched over {${VULKAN_DEVICE}, CPU}`, () => {
  test(`every graph through the scheduler: all of it lands on ${VULKAN_DEVICE}, results as the direct path's`, { skip }, async () => {
    const pcm = speechSamples(dir, seconds(3));
    assert.equal(scheduled!.info().scheduled, true);
    for (const decoder of ['tdt', 'ctc'] as const) {
      const a = await direct!.transcribe(pcm, { decoder, captureEncoder: true });
      const b = await scheduled!.transcribe(pcm, { decoder, captureEncoder: true });
      assert.deepEqual(a.devicesRan, [VULKAN_DEVICE]);
      assert.deepEqual(b.devicesRan, [VULKAN_DEVICE], 'Vulkan runs every op: the scheduler has nothing to give the CPU');
      assertSameDecode(`scheduled ${decoder}`, a, b, 1e-4);  // the same kernels on the same device: rounding only
    }
  });

  test(`${PINNED} pinned to the CPU: the fallback runs, "ran on" names both devices, the decode is unchanged`, { skip }, async () => {
    const pcm = speechSamples(dir, seconds(3));
    for (const decoder of ['tdt', 'ctc'] as const) {
      const a = await direct!.transcribe(pcm, { decoder, captureEncoder: true });
      const b = await pinned!.transcribe(pcm, { decoder, captureEncoder: true });
      assert.deepEqual(b.devicesRan, [VULKAN_DEVICE, 'CPU'], 'the pinned ops ran on the CPU, the rest on the device');
      // The CPU's F32 ops for the pinned ones: ggml's CPU SOFT_MAX/NORM sum and exponentiate in another order than
      // the device's shaders (and per ISA build), so the decode moves by that through the layers: 2.4e-5 on Zen 4
      // with Mesa 25, 1.7e-4 on an AVX2-only Zen 3 (Mesa 22.3.6 and 25.0.7 alike). A misplaced or broken op moves it far more.
      assertSameDecode(`pinned ${decoder}`, a, b, 5e-4);
    }
  });
});
