// How long a .nemo import takes and how much memory it peaks at (issue 46: a 0.6B-shape .nemo in
// ≤ 60 s on 2 cores, peak ≤ 1.5× the file). Writes a random model of the preset as a .nemo (a real
// PyTorch zip + pickle checkpoint, cached under the folder), then imports it in a fresh process
// (test/support/model/nemo-import-peak.ts) and prints
//   import (TYPE): S s, peak RSS M MiB = R × the .nemo (F bytes); before the import N MiB
//   node --import tsx test/bench/nemo-import.ts [--preset shape600m] [--type f32|f16|q8_0] [--dir .cache/bench/nemo]
// Memory is meaningful on a shared machine; the time only on a quiet one.
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NemoWeightType } from '../../app/main/models/nemo/nemo-import.js';
import { generateModel } from '../support/model/generate.js';
import { writeNemoArchive } from '../support/model/nemo-archive.js';
import { measureNemoImport } from '../support/model/nemo-import-peak.js';
import type { PresetName } from '../support/model/options.js';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const preset = option('preset', 'shape600m') as PresetName;
const weightType = option('type', 'f32') as NemoWeightType;
const dir = resolve(option('dir', join('.cache', 'bench', 'nemo')));
mkdirSync(dir, { recursive: true });
const nemo = join(dir, `${preset}.nemo`);
if (!existsSync(nemo)) {
  const gguf = join(dir, `${preset}.f32.gguf`);
  generateModel(gguf, { preset, arch: 'tdt' });
  writeNemoArchive(gguf, `${nemo}.partial`);
  rmSync(gguf);
  // Only a complete archive is cached: an interrupted write is not reused.
  renameSync(`${nemo}.partial`, nemo);
}
const out = join(dir, `${preset}.imported.gguf`);
const cost = measureNemoImport(nemo, out, weightType);
const bytes = statSync(nemo).size;
rmSync(out, { force: true });
const mib = (b: number): string => (b / 2 ** 20).toFixed(0);
process.stdout.write(
  `import (${weightType}): ${cost.seconds.toFixed(1)} s, peak RSS ${mib(cost.peakRssBytes)} MiB = ` +
    `${(cost.peakRssBytes / bytes).toFixed(2)} × the .nemo (${bytes} bytes); before the import ${mib(cost.startRssBytes)} MiB\n`,
);
