// GGUF v3 test support: types, writer, reader, (de)quantizers.
export * from './types.js';
export { gv, plainValue } from './values.js';
export * from './writer.js';
export * from './reader.js';
export * from './quantize.js';
export { DEQUANTIZABLE_TYPES } from './dequantize.js';
export * from './half.js';
