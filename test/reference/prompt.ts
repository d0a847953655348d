// Language prompt of prompt-conditioned streaming models (Nemotron-3.5), spec §1.2 prompt keys and
// Corrections 6 — NeMo's prompt conditioning (_apply_prompt_to_encoded): every encoder frame gets a
// one-hot of width num_prompts appended, then prompt_kernel = Linear(D+P → 2D) → ReLU →
// Linear(2D → D), whose output replaces the encoder frame fed to the RNNT joint.
import { kvBool, kvNumber, kvNumberArray, kvString, kvStringArray } from './hparams.js';
import { linear, tensor } from './linalg.js';
import type { WeightSource } from './weights.js';

export interface PromptParams {
  numPrompts: number;
  defaultLang: string;
  /** Locale key → prompt index, in file order. */
  dictionary: Map<string, number>;
}

export interface PromptKernelWeights {
  w1: Float64Array; b1: Float64Array; // [2D][D+P]
  w2: Float64Array; b2: Float64Array; // [D][2D]
  dModel: number;
  numPrompts: number;
}

function fail(message: string): never {
  throw new Error(`reference prompt: ${message}`);
}

/** The prompt keys, or null for a model without a prompt (parakeet.prompt.present absent or false). */
export function readPromptParams(w: WeightSource): PromptParams | null {
  if (!(kvBool(w, 'parakeet.prompt.present') ?? false)) return null;
  const numPrompts = kvNumber(w, 'parakeet.prompt.num_prompts');
  const keys = kvStringArray(w, 'parakeet.prompt.dictionary.keys');
  const values = kvNumberArray(w, 'parakeet.prompt.dictionary.values');
  if (numPrompts === undefined || keys === undefined || values === undefined) {
    fail('parakeet.prompt.present is true but num_prompts or dictionary.keys/values is missing');
  }
  if (keys.length !== values.length) fail(`dictionary has ${keys.length} keys but ${values.length} values`);
  const dictionary = new Map<string, number>();
  keys.forEach((k, i) => {
    if (!Number.isInteger(values[i]) || values[i] < 0 || values[i] >= numPrompts) fail(`${k} → prompt ${values[i]} is outside [0, ${numPrompts})`);
    dictionary.set(k, values[i]);
  });
  return { numPrompts, defaultLang: kvString(w, 'parakeet.prompt.default_lang') ?? 'auto', dictionary };
}

export function loadPromptKernel(w: WeightSource, dModel: number, p: PromptParams): PromptKernelWeights {
  const D = dModel;
  const inDim = D + p.numPrompts;
  return {
    w1: tensor(w, 'prompt_kernel.0.weight', [inDim, 2 * D]),
    b1: tensor(w, 'prompt_kernel.0.bias', [2 * D]),
    w2: tensor(w, 'prompt_kernel.2.weight', [2 * D, D]),
    b2: tensor(w, 'prompt_kernel.2.bias', [D]),
    dModel: D,
    numPrompts: p.numPrompts,
  };
}

/**
 * Prompt index of a language: a dictionary key, or `auto`, which is the dictionary's own `auto`
 * entry where there is one (the language-agnostic prompt) and else the entry of `default_lang`.
 * Anything else is an error naming the locales.
 */
export function resolvePromptIndex(p: PromptParams, language = 'auto'): number {
  const key = language === 'auto' && !p.dictionary.has('auto') ? p.defaultLang : language;
  const index = p.dictionary.get(key);
  if (index === undefined) {
    const locales = [...p.dictionary.keys()].filter((k) => k !== 'auto');
    fail(`language ${JSON.stringify(language)} is not one of the model's locales (auto, ${locales.join(', ')})`);
  }
  return index;
}

/** Token ids of language tags: pieces `<K>` for every dictionary key K except `auto`. */
export function languageTagIds(pieces: readonly string[], p: PromptParams | null): Set<number> {
  const tags = new Set<string>();
  if (p !== null) for (const k of p.dictionary.keys()) if (k !== 'auto') tags.add(`<${k}>`);
  const ids = new Set<number>();
  pieces.forEach((piece, id) => {
    if (tags.has(piece)) ids.add(id);
  });
  return ids;
}

/** x'[t] = Linear2(ReLU(Linear1([enc[t] | onehot(index)]))) for T frames: [T][D]. */
export function applyPromptKernel(enc: Float64Array, T: number, kw: PromptKernelWeights, index: number): Float64Array {
  const D = kw.dModel;
  const inDim = D + kw.numPrompts;
  const x = new Float64Array(T * inDim);
  for (let t = 0; t < T; t++) {
    x.set(enc.subarray(t * D, (t + 1) * D), t * inDim);
    x[t * inDim + D + index] = 1;
  }
  const h = linear(x, T, inDim, kw.w1, 2 * D, kw.b1);
  for (let i = 0; i < h.length; i++) if (h[i] < 0) h[i] = 0;
  return linear(h, T, 2 * D, kw.w2, D, kw.b2);
}
