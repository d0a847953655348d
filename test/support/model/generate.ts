// Random-weight Parakeet model files: plan → KVs + lazily generated tensors →
// streamed GGUF. Each tensor is generated, encoded and written before the next
// one is touched, so the 2.4 GB 0.6B-shape F32 model needs ~20 MB of memory.
import { quantize } from '../gguf/quantize.js';
import { GgmlType, ggmlTypeName } from '../gguf/types.js';
import { type GgufKv, type GgufLayout, type GgufTensorSource, writeGguf } from '../gguf/writer.js';
import { tensorValues } from './init.js';
import { modelKv } from './kv.js';
import { type ModelOptions, type ModelOptionsInput, resolveModelOptions } from './options.js';
import { storageType } from './quant-policy.js';
import { type TensorPlan, tensorPlan } from './schema.js';
import { makeVocabulary } from './vocab.js';

export interface PlannedTensor extends TensorPlan {
  readonly type: GgmlType;
}

export interface ModelSpec {
  readonly options: ModelOptions;
  readonly pieces: readonly string[];
  readonly kv: GgufKv[];
  readonly tensors: PlannedTensor[];
}

export interface ModelDescription {
  readonly path: string;
  readonly options: ModelOptions;
  readonly pieces: readonly string[];
  readonly blankId: number;
  readonly kvKeys: readonly string[];
  readonly tensors: readonly { readonly name: string; readonly ne: readonly number[]; readonly type: GgmlType; readonly typeName: string }[];
  /** Tensors stored in a type other than F32. */
  readonly quantizedCount: number;
  readonly layout: GgufLayout;
}

/** Everything that goes into the file, without generating any weights yet. */
export function buildModelSpec(input: ModelOptionsInput = {}): ModelSpec {
  const options = resolveModelOptions(input);
  const pieces = makeVocabulary(options.vocabSize, options.specialPieces);
  const tensors = tensorPlan(options).map((t) => ({ ...t, type: storageType(t.name, t.ne, options.weightType) }));
  return { options, pieces, kv: modelKv(options, pieces), tensors };
}

/** Lazy tensor sources for the writer (values drawn and encoded on demand). */
export function tensorSources(spec: ModelSpec): GgufTensorSource[] {
  return spec.tensors.map((t) => ({
    name: t.name,
    ne: t.ne,
    type: t.type,
    data: () => quantize(t.type, tensorValues(t, spec.options.seed)),
  }));
}

/** Write a spec (possibly edited by a malformed-file builder) to disk. */
export function writeModelSpec(path: string, spec: ModelSpec): GgufLayout {
  return writeGguf(path, spec.kv, tensorSources(spec));
}

export function generateModel(path: string, input: ModelOptionsInput = {}): ModelDescription {
  const spec = buildModelSpec(input);
  const layout = writeModelSpec(path, spec);
  return {
    path,
    options: spec.options,
    pieces: spec.pieces,
    blankId: spec.options.vocabSize,
    kvKeys: spec.kv.map((e) => e.key),
    tensors: spec.tensors.map((t) => ({ name: t.name, ne: t.ne, type: t.type, typeName: ggmlTypeName(t.type) })),
    quantizedCount: spec.tensors.filter((t) => t.type !== GgmlType.F32).length,
    layout,
  };
}
