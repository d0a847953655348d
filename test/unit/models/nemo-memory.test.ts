// A .nemo import's memory is one tensor's, not the model's (issue 46: peak ≤ 1.5× the file for a
// 0.6B .nemo): a mid-size generated checkpoint (~100 MB, 16 layers, ~400 tensors, so the pickle also
// memoizes past BINPUT's 255) is imported in a child process and the child's peak RSS growth over its
// RSS before the import must stay far below the file. An importer that held the checkpoint, the output
// or the model converted to F32 would grow by at least the file's size and fail.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generateModel } from '../../support/model/generate.js';
import { writeNemoArchive } from '../../support/model/nemo-archive.js';
import { measureNemoImport } from '../../support/model/nemo-import-peak.js';

const dir = mkdtempSync(join(tmpdir(), 'nemo-memory-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Allowed growth: a quarter of the file plus a fixed 64 MiB for V8's heap and the ArrayBuffers the
 * collector has not yet freed (measured here: ~32 MiB of buffers, the largest tensor being 1 MiB, and
 * ~7 MiB of heap; ~42 MiB in all). The issue's bound is 1.5× the file for the whole process; this one
 * is far tighter and still fails an importer that holds a whole-file buffer (≥ the file's ~100 MiB).
 */
const allowedGrowth = (fileBytes: number): number => fileBytes / 4 + 64 * 2 ** 20;

describe('a .nemo import streams tensor by tensor', () => {
  const gguf = join(dir, 'mid.gguf');
  generateModel(gguf, { preset: 'small', arch: 'tdt', nLayers: 16, dModel: 256, ffDim: 1024, nHeads: 4, seed: 3 });
  const nemo = join(dir, 'mid.nemo');
  writeNemoArchive(gguf, nemo);
  rmSync(gguf);
  const fileBytes = statSync(nemo).size;

  for (const weightType of ['f32', 'q8_0'] as const) {
    test(`${weightType}: peak RSS grows by far less than the file`, () => {
      const out = join(dir, `mid.${weightType}.gguf`);
      const cost = measureNemoImport(nemo, out, weightType);
      const growth = cost.peakRssBytes - cost.startRssBytes;
      const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;
      assert.ok(statSync(out).size > 0, 'the import wrote its output');
      assert.ok(
        growth <= allowedGrowth(fileBytes),
        `peak RSS ${mib(cost.peakRssBytes)}, ${mib(growth)} over the ${mib(cost.startRssBytes)} before the import, ` +
          `for a ${mib(fileBytes)} .nemo (allowed ${mib(allowedGrowth(fileBytes))})`,
      );
    });
  }
});
