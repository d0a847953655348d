// Random-weight Parakeet models in the parakeet.cpp GGUF schema, malformed
// variants, and the WeightSource adapter for the float64 reference.
export * from './options.js';
export * from './generate.js';
export { tensorPlan, type TensorPlan, type Init } from './schema.js';
export { QUANT_ALLOWLIST, isAllowlisted, storageType } from './quant-policy.js';
export { makeVocabulary, WORD_START } from './vocab.js';
export { slaneyMelFilterbank, symmetricHann } from './mel.js';
export { tensorValues } from './init.js';
export { Rng } from './rng.js';
export * from './malformed.js';
export { openWeightSource, weightSourceFromFile } from './weights-source.js';
export * from './streaming.js';
export * from './sortformer.js';
