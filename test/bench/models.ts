// Random-weight models of the published shapes for the benchmarks, generated once (seed 7, so
// every benchmark and every run uses the same weights) and cached under .cache/bench/models.
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateModel } from '../support/model/generate.js';
import type { ModelOptionsInput } from '../support/model/options.js';

export const benchRoot = resolve(import.meta.dirname, '..', '..');
export const benchCache = process.env.PARAKEET_BENCH_CACHE ?? join(benchRoot, '.cache', 'bench');

export type BenchShape = '110m' | '600m';

export function benchModelFile(shape: string, type: string): string {
  return cachedBenchModel(`random-${shape}-${type}`, { preset: shape === '110m' ? 'shape110m' : 'shape600m', weightType: type as 'f32' });
}

/** `.cache/bench/models/<name>.gguf`, generated once with seed 7 and these options. */
export function cachedBenchModel(name: string, options: ModelOptionsInput): string {
  mkdirSync(join(benchCache, 'models'), { recursive: true });
  const path = join(benchCache, 'models', `${name}.gguf`);
  if (!existsSync(path)) {
    process.stderr.write(`generating ${path} …\n`);
    // Written under a temporary name: an interrupted run never leaves a cut file behind.
    const partial = `${path}.partial`;
    generateModel(partial, { seed: 7, ...options });
    renameSync(partial, path);
  }
  return path;
}
