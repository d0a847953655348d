// The 256-bit kernels in whole models (issue 42 item 4): under PARAKEET_CPU_CLASS=avx2 and avx_vnni
// a generated F32 model with weightType q8_0, int8, i16 and f32 runs every packed matmul on that class's
// kernel (q8_0_avx2 / q8_0_avx_vnni[_evex], int8_channel_avx2 / int8_channel_avx_vnni[_evex],
// i16_avx2 / i16_avx_vnni[_evex], f32_avx2), beside which only the kernels the layout asks for run:
// int8's decoder twins on int8_decoder_avx2 and its attention products in 14 bits (the class's
// attention_i16 row), i16's exact joint.enc on f32_avx2. Its Q8_0 twin under 'auto' runs as on
// AVX512-VNNI: the Q8_0 weights and the conformer's F32 pointwise convs on the class's Q8_0 kernel,
// the other F32 ones (the subsampling's) on its 14-bit kernel, joint.enc exact, the attention in 14
// bits. The int8, 14-bit and Q8_0 encoders land as far from the float64 encoder as the AVX512-VNNI
// class's (the integer products are the same; float summation order, the epilogue's σ and the ops
// around the matmuls differ), and the F32 one within F32 rounding of it. The class is read
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
const q8ModelPath = join(dir, 'q8_0.gguf');
const clipPath = join(dir, 'clip.f32');
const features = listDevices().find((d) => d.type === 'cpu')?.cpuFeatures ?? [];
const skipNoAvx2 = features.includes('PARAKEET_AVX2') ? false : 'this CPU has no AVX2 + FMA + F16C (or PARAKEET_CPU_CLASS caps it)';
const skipNoVnni512 = features.includes('PARAKEET_AVX512_VNNI') ? false : 'no AVX512-VNNI here to compare the 256-bit classes with';
/** A class the CPU lacks cannot be forced (PARAKEET_CPU_CLASS only caps): avx_vnni needs AVX-VNNI, VEX or EVEX. */
const skipClass = (cpuClass: 'avx2' | 'avx_vnni'): string | false =>
  skipNoAvx2 || (cpuClass === 'avx_vnni' && !features.includes('PARAKEET_AVX_VNNI') ? 'this CPU has no AVX-VNNI (VEX or EVEX): the avx_vnni class cannot run here' : false);

/** The cases: the F32 model under four weight types, and its Q8_0 twin under auto ('q8_0 file'). */
const CASES = ['q8_0', 'int8', 'i16', 'f32', 'q8_0 file'] as const;
type Case = (typeof CASES)[number];
/** How many matrices a kernel runs: 'main' the bulk of them (≥ 20), 'some' at least one, or exactly n. */
type Count = 'main' | 'some' | number;
/** The matmul kernels per case and class (F32: f32_avx2 for both): every packed matrix on one of these. */
const matmulsOf = (c: Case, cpuClass: string): Record<string, Count> => ({
  q8_0: { [`q8_0_${cpuClass}`]: 'main' },
  int8: { [`int8_channel_${cpuClass}`]: 'main' },
  // i16's exact joint.enc (the tensor table's Exact matmul) on f32_avx2.
  i16: { [`i16_${cpuClass}`]: 'main', f32_avx2: 1 },
  f32: { f32_avx2: 'main' },
  // The Q8_0 file under auto: the Q8_0 weights and the conformer's pointwise convs on the Q8_0 kernel,
  // the subsampling's F32 pointwise convs on the 14-bit one, joint.enc exact.
  'q8_0 file': { [`q8_0_${cpuClass}`]: 'main', [`i16_${cpuClass}`]: 'some', f32_avx2: 1 },
} satisfies Record<Case, Record<string, Count>>)[c];
/** The fused ops the AVX2 class runs in this model beside the attention (the registry's op rows of class avx2). */
const CLASS_OPS = ['conv_module_avx2', 'layer_norm_avx2', 'subsampling_avx2'];
/** The attention's op per case: 14-bit products where the matmuls run int8 (the class's attention_i16 row), else F32. */
const attentionOf = (c: Case, cpuClass: string) => (c === 'int8' || c === 'q8_0 file' ? `attention_i16_${cpuClass}` : 'attention_f32_avx2');
/** int8's decoder twins (an op row). */
const besideOps = (c: Case): string[] => (c === 'int8' ? ['int8_decoder_avx2'] : []);
/** The avx_vnni rows run VEX-coded or, on an AVX512-VNNI CPU without AVX-VNNI, as their EVEX build (…_evex): one name. */
const vexName = (id: string) => id.replace(/_avx_vnni_evex$/, '_avx_vnni');

function runClass(cpuClass: string): Map<Case, DecoderParityCase> {
  const floats = CASES.filter((c) => c !== 'q8_0 file');
  const r = runTsx('test/native/helpers/decoder-parity-child.ts', [clipPath, `${modelPath}:${floats.join(',')}`, `${q8ModelPath}:auto`], {
    env: { ...process.env, PARAKEET_CPU_CLASS: cpuClass }, timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, describeExit(r));
  const rows = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as DecoderParityCase);
  return new Map(rows.map((row) => [row.model === q8ModelPath ? 'q8_0 file' : row.layout as Case, row]));
}

before(() => {
  for (const [path, weightType] of [[modelPath, 'f32'], [q8ModelPath, 'q8_0']] as const) {
    generateModel(path, { preset: 'small', arch: 'hybrid_tdt_ctc', nHeads: 8, nMels: 128, vocabSize: 256, weightType, seed: 3 });
  }
  const clip = speechSamples(dir, seconds(4.9));
  writeFileSync(clipPath, Buffer.from(clip.buffer, clip.byteOffset, clip.byteLength));
});

describe('the 256-bit kernels run whole models under a forced class', () => {
  let wide: Map<Case, DecoderParityCase> | undefined;
  for (const cpuClass of ['avx2', 'avx_vnni'] as const) {
    test(`PARAKEET_CPU_CLASS=${cpuClass}: weightType q8_0, int8, i16, f32 and a Q8_0 file under auto on the ${cpuClass} kernels, as near float64 as AVX512-VNNI`, { skip: skipClass(cpuClass) }, async (t) => {
      const rows = runClass(cpuClass);
      for (const c of CASES) {
        const row = rows.get(c);
        assert.ok(row !== undefined, `no ${c} case in the child's output`);
        const label = `${cpuClass} ${c}: kernels ${JSON.stringify(row.kernels)}`;
        // Every packed matmul on this class's kernels for the case, nothing of another width; the fused ops on the
        // class's 256-bit rows (the LSTM cell, the decoder's GEMV and the log-mel have AVX-512 rows only: their
        // plain C++ runs here).
        const ran = Object.fromEntries(Object.entries(matmulKernels(row.kernels)).map(([id, n]) => [vexName(id), n]));
        const wanted = matmulsOf(c, cpuClass);
        assert.deepEqual(Object.keys(ran).sort(), Object.keys(wanted).sort(), label);
        for (const [id, n] of Object.entries(wanted)) {
          const count = ran[id] ?? 0;
          if (n === 'main') assert.ok(count >= 20, `${label}: ${count} matrices on ${id}`);
          else if (n === 'some') assert.ok(count >= 1, `${label}: no matrix on ${id}`);
          else assert.equal(count, n, `${label}: ${id}`);
        }
        const ops = Object.keys(opKernels(row.kernels)).map(vexName).sort();
        assert.deepEqual(ops, [...CLASS_OPS, attentionOf(c, cpuClass), ...besideOps(c)].sort(), `${label}: fused ops`);
        if (c === 'f32') {
          assert.ok(row.encoderRelL2 < 1e-5, `${cpuClass} f32: encoder rel L2 ${row.encoderRelL2} (exact F32 arithmetic)`);
        } else if (c === 'i16') {
          assert.ok(row.encoderRelL2 > 1e-7 && row.encoderRelL2 < 1e-3, `${cpuClass} i16: encoder rel L2 ${row.encoderRelL2} (14-bit: lossy, near F16)`);
        } else {
          assert.ok(row.encoderRelL2 > 1e-4 && row.encoderRelL2 < 0.05, `${cpuClass} ${c}: encoder rel L2 ${row.encoderRelL2} (int8 is lossy, and bounded)`);
        }
      }
      // The comparison needs the AVX512-VNNI kernels: a subtest, so a CPU without them reports it skipped.
      await t.test(`${cpuClass}: the encoder's error within 2 % of the AVX512-VNNI kernels'`, { skip: skipNoVnni512 }, () => {
        wide ??= runClass('avx512_vnni');
        for (const c of CASES) {
          const ours = rows.get(c)!.encoderRelL2, theirs = wide.get(c)!.encoderRelL2;
          console.log(`${cpuClass} ${c}: encoder rel L2 ${ours.toExponential(3)} vs avx512_vnni ${theirs.toExponential(3)}`);
          if (c !== 'f32') assert.ok(Math.abs(ours - theirs) <= 0.02 * theirs, `${cpuClass} ${c}: ${ours} against the AVX512-VNNI kernels' ${theirs}`);
        }
      });
    });
  }
});
