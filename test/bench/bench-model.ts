// The benchmarks' default model: a 110M-shape hybrid TDT/CTC Q8_0 file with
// random weights (real compute), generated once into .cache/bench.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { appRoot } from '../../app/main/util/app-root.js';
import { generateModel } from '../support/model/generate.js';

export function benchModel(): string {
  const cache = join(appRoot(), '.cache', 'bench');
  mkdirSync(cache, { recursive: true });
  const path = join(cache, 'shape110m-hybrid_tdt_ctc-q8_0.gguf');
  if (!existsSync(path)) {
    process.stderr.write(`generating ${path} (110M shape, Q8_0, random weights)…\n`);
    generateModel(path, { preset: 'shape110m', arch: 'hybrid_tdt_ctc', weightType: 'q8_0', seed: 1 });
  }
  return path;
}
