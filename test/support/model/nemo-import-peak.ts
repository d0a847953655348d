// One .nemo import in a fresh child process, and what it cost: wall time, the process's peak RSS
// (getrusage's ru_maxrss, which the kernel keeps as VmHWM) and its RSS just before the import (the
// runtime and the importer's code: what any import pays). A child, so the peak is the import's alone
// and not a test runner's or a generator's. Used by test/bench/nemo-import.ts and
// test/unit/models/nemo-memory.test.ts.
//   node --import tsx test/support/model/nemo-import-peak.ts IN.nemo OUT.gguf f32|f16|q8_0   (prints the JSON)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { importNemo, NEMO_WEIGHT_TYPES, type NemoWeightType } from '../../../app/main/models/nemo/nemo-import.js';

export interface NemoImportCost {
  readonly seconds: number;
  /** Peak resident set of the importing process, bytes. */
  readonly peakRssBytes: number;
  /** Resident set just before the import started, bytes (node, tsx and the importer loaded). */
  readonly startRssBytes: number;
}

const self = fileURLToPath(import.meta.url);

/** Imports `input` to `output` in a child process and returns what it cost. */
export function measureNemoImport(input: string, output: string, weightType: NemoWeightType): NemoImportCost {
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', self, input, output, weightType], { encoding: 'utf8' });
  return JSON.parse(stdout) as NemoImportCost;
}

if (process.argv[1] === self) {
  const [input, output, weightType] = process.argv.slice(2);
  if (!input || !output || !NEMO_WEIGHT_TYPES.includes(weightType as NemoWeightType)) {
    throw new Error(`usage: nemo-import-peak.ts IN.nemo OUT.gguf ${NEMO_WEIGHT_TYPES.join('|')}`);
  }
  const startRssBytes = process.memoryUsage.rss();
  const started = performance.now();
  await importNemo(input, output, { weightType: weightType as NemoWeightType });
  const seconds = (performance.now() - started) / 1000;
  // ru_maxrss is in KiB on Linux.
  const cost: NemoImportCost = { seconds, peakRssBytes: process.resourceUsage().maxRSS * 1024, startRssBytes };
  process.stdout.write(JSON.stringify(cost));
}
