// The 256-bit kernels in whole models (issue 42 item 4): under PARAKEET_CPU_CLASS=avx2 and avx_vnni
// a generated F32 model with weightType q8_0, int8, i16 and f32 runs every packed matmul on that class's
// kernel (q8_0_avx2 / q8_0_avx_vnni[_evex], int8_channel_avx2 / int8_channel_avx_vnni[_evex],
// i16_avx2 / i16_avx_vnni[_evex], f32_avx2), beside which only the kernels the layout asks for run:
// int8's decoder twins on int8_decoder_avx2, i16's exact joint.enc on f32_avx2. The int8 and 14-bit
// encoders land as far from the float64 encoder as the AVX512-VNNI class's (the integer products are
// the same; float summation order, the epilogue's σ and the ops around the matmuls differ), and the
// F32 one within F32 rounding of it. The class is read
// once per process, so each runs in a child (decoder-parity-child.ts prints each case's kernels and
// encoder error). Skipped where the CPU has no AVX2 (the class then runs no kernel of ours).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { listDevices } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { describeExit, runTsx } from './helpers/child.js';
import type { DecoderParityCase } from './helpers/decoder-parity-child.js';
import { scratchDir } from './helpers/tmp.js';
import { matmulKernels, opKernels } from './helpers/kernels.js';

const dir = scratchDir('class-kernels');
const modelPath = join(dir, 'f32.gguf');
const clipPath = join(dir, 'clip.f32');
const features = listDevices().find((d) => d.type === 'cpu')?.cpuFeatures ?? [];
const skipNoAvx2 = features.includes('PARAKEET_AVX2') ? false : 'this CPU has no AVX2 + FMA + F16C (or PARAKEET_CPU_CLASS caps it)';
const skipNoVnni512 = features.includes('PARAKEET_AVX512_VNNI') ? false : 'no AVX512-VNNI here to compare the 256-bit classes with';

/** The layouts whose matmuls all run on one packed kernel, and that kernel's name per class (F32: AVX2 for both). */
const LAYOUTS = { q8_0: 'q8_0', int8: 'int8_channel', i16: 'i16', f32: 'f32' } as const;
const kernelOf = (layout: Layout, cpuClass: string) => `${LAYOUTS[layout]}_${layout === 'f32' ? 'avx2' : cpuClass}`;
type Layout = keyof typeof LAYOUTS;
/** The fused ops the AVX2 class runs in this model (the registry's op rows of class avx2). */
const CLASS_OPS = ['attention_f32_avx2', 'conv_module_avx2', 'layer_norm_avx2', 'subsampling_avx2'];
/** What runs beside the matmul kernel, per layout: i16's exact joint.enc (the tensor table's Exact matmul) and int8's decoder twins (an op row). */
const BESIDE_MATMULS: Record<Layout, Record<string, number>> = { q8_0: {}, int8: {}, i16: { f32_avx2: 1 }, f32: {} };
const BESIDE_OPS: Record<Layout, string[]> = { q8_0: [], int8: ['int8_decoder_avx2'], i16: [], f32: [] };

function runClass(cpuClass: string): Map<Layout, DecoderParityCase> {
  const r = runTsx('test/native/helpers/decoder-parity-child.ts', [clipPath, `${modelPath}:${Object.keys(LAYOUTS).join(',')}`], {
    env: { ...process.env, PARAKEET_CPU_CLASS: cpuClass }, timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, describeExit(r));
  const rows = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as DecoderParityCase);
  return new Map(rows.map((row) => [row.layout as Layout, row]));
}

before(() => {
  generateModel(modelPath, { preset: 'small', arch: 'hybrid_tdt_ctc', nHeads: 8, nMels: 128, vocabSize: 256, weightType: 'f32', seed: 3 });
  const clip = speechSamples(dir, seconds(4.9));
  writeFileSync(clipPath, Buffer.from(clip.buffer, clip.byteOffset, clip.byteLength));
});

describe('the 256-bit kernels run whole models under a forced class', () => {
  let wide: Map<Layout, DecoderParityCase> | undefined;
  for (const cpuClass of ['avx2', 'avx_vnni'] as const) {
    test(`PARAKEET_CPU_CLASS=${cpuClass}: weightType q8_0, int8, i16 and f32 on the ${cpuClass} kernels, as near float64 as AVX512-VNNI`, { skip: skipNoAvx2 }, async (t) => {
      const rows = runClass(cpuClass);
      for (const layout of Object.keys(LAYOUTS) as Layout[]) {
        const row = rows.get(layout);
        assert.ok(row !== undefined, `no ${layout} case in the child's output`);
        // The avx_vnni rows run VEX-coded (q8_0_avx_vnni) or, on an AVX512-VNNI CPU without AVX-VNNI, as their EVEX build (…_evex).
        const names = [kernelOf(layout, cpuClass), `${kernelOf(layout, cpuClass)}_evex`];
        const kernel = Object.keys(row.kernels).find((k) => names.includes(k)) ?? names[0];
        // Every packed matmul on this class's kernel: nothing of another width, and beside it only what the layout
        // asks for; the fused ops on the class's 256-bit rows (the LSTM cell, the decoder's GEMV and the log-mel
        // have AVX-512 rows only: their plain C++ runs here).
        const { [kernel]: matrices, ...beside } = matmulKernels(row.kernels);
        assert.deepEqual(beside, BESIDE_MATMULS[layout], `${cpuClass} ${layout}: kernels ${JSON.stringify(row.kernels)}`);
        assert.deepEqual(Object.keys(opKernels(row.kernels)).sort(), [...CLASS_OPS, ...BESIDE_OPS[layout]].sort(), `${cpuClass} ${layout}: fused ops ${JSON.stringify(row.kernels)}`);
        assert.ok((matrices ?? 0) >= 20, `${cpuClass} ${layout}: ${matrices} matrices on ${kernel}`);
        if (layout === 'f32') {
          assert.ok(row.encoderRelL2 < 1e-5, `${cpuClass} f32: encoder rel L2 ${row.encoderRelL2} (exact F32 arithmetic)`);
        } else if (layout === 'i16') {
          assert.ok(row.encoderRelL2 > 1e-7 && row.encoderRelL2 < 1e-3, `${cpuClass} i16: encoder rel L2 ${row.encoderRelL2} (14-bit: lossy, near F16)`);
        } else {
          assert.ok(row.encoderRelL2 > 1e-4 && row.encoderRelL2 < 0.05, `${cpuClass} ${layout}: encoder rel L2 ${row.encoderRelL2} (int8 is lossy, and bounded)`);
        }
      }
      // The comparison needs the AVX512-VNNI kernels: a subtest, so a CPU without them reports it skipped.
      await t.test(`${cpuClass}: the encoder's error within 2 % of the AVX512-VNNI kernels'`, { skip: skipNoVnni512 }, () => {
        wide ??= runClass('avx512_vnni');
        for (const layout of Object.keys(LAYOUTS) as Layout[]) {
          const ours = rows.get(layout)!.encoderRelL2, theirs = wide.get(layout)!.encoderRelL2;
          console.log(`${cpuClass} ${layout}: encoder rel L2 ${ours.toExponential(3)} vs avx512_vnni ${theirs.toExponential(3)}`);
          if (layout !== 'f32') assert.ok(Math.abs(ours - theirs) <= 0.02 * theirs, `${cpuClass} ${layout}: ${ours} against the AVX512-VNNI kernels' ${theirs}`);
        }
      });
    });
  }
});
