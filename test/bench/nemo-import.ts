// How long a .nemo import takes and how much memory it peaks at (issue 46: a 0.6B-shape .nemo in
// ≤ 60 s on 2 cores, peak ≤ 1.5× the file). Writes a random model of the preset as a .nemo (cached
// under the folder), then imports it in a fresh process and prints
//   import: S s, peak RSS M MiB = R × the .nemo (F bytes)
//   node --import tsx test/bench/nemo-import.ts [--preset shape600m] [--type f32|f16|q8_0] [--dir .cache/bench/nemo]
// The import runs in its own child so the peak RSS is the import's alone.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { importNemo, type NemoWeightType } from '../../app/main/models/nemo/nemo-import.js';
import { generateModel } from '../support/model/generate.js';
import { writeNemoArchive } from '../support/model/nemo-archive.js';
import type { PresetName } from '../support/model/options.js';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const childInput = option('child-import', '');
if (childInput) {
  // The measured part: one import, then this process's peak RSS.
  const started = performance.now();
  await importNemo(childInput, option('out', ''), { weightType: option('type', 'f32') as NemoWeightType });
  process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
} else {
  const preset = option('preset', 'shape600m') as PresetName;
  const dir = resolve(option('dir', join('.cache', 'bench', 'nemo')));
  mkdirSync(dir, { recursive: true });
  const nemo = join(dir, `${preset}.nemo`);
  if (!existsSync(nemo)) {
    const gguf = join(dir, `${preset}.f32.gguf`);
    generateModel(gguf, { preset, arch: 'tdt' });
    writeNemoArchive(gguf, nemo);
    rmSync(gguf);
  }
  const out = join(dir, `${preset}.imported.gguf`);
  const result = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', process.argv[1], '--child-import', nemo, '--out', out, '--type', option('type', 'f32')], { encoding: 'utf8' }),
  ) as { seconds: number; maxRssBytes: number };
  const bytes = statSync(nemo).size;
  rmSync(out, { force: true });
  process.stdout.write(
    `import: ${result.seconds.toFixed(1)} s, peak RSS ${(result.maxRssBytes / 2 ** 20).toFixed(0)} MiB = ` +
      `${(result.maxRssBytes / bytes).toFixed(2)} × the .nemo (${bytes} bytes)\n`,
  );
}
