// Adapter from the GGUF reader to the float64 reference's WeightSource.
import type { WeightSource } from '../../reference/weights.js';
import { type GgufFile, readGguf, readTensorF64 } from '../gguf/reader.js';
import { plainValue } from '../gguf/values.js';

export function weightSourceFromFile(file: GgufFile): WeightSource {
  const kv = new Map<string, unknown>();
  for (const [k, v] of file.kv) kv.set(k, plainValue(v));
  const info = (name: string) => {
    const t = file.tensors.get(name);
    if (!t) throw new Error(`${file.path}: no tensor '${name}'`);
    return t;
  };
  return {
    kv,
    has: (name) => file.tensors.has(name),
    ne: (name) => [...info(name).ne],
    f64: (name) => {
      info(name);
      return readTensorF64(file, name);
    },
  };
}

/** Parse a GGUF file's metadata; tensors are read (and dequantized) on each f64() call. */
export function openWeightSource(path: string): WeightSource {
  return weightSourceFromFile(readGguf(path));
}
