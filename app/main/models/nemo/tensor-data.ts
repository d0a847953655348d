// A checkpoint tensor's values as float32 (from its storage's type, offset and strides) and the
// GGUF encodings the importer writes: F32, F16 and Q8_0 as ggml's reference quantizer makes them
// (quantize_row_q8_0_ref: d = amax/127 in float32, q = roundf(x·(1/d)), d stored as F16).
import { NemoFormatError } from './file-range.js';
import type { StorageDtype, TensorRef } from './state-dict-pickle.js';

export const GGML_F32 = 0;
export const GGML_F16 = 1;
export const GGML_Q8_0 = 8;

const ELEMENT_BYTES: Readonly<Record<StorageDtype, number>> = {
  float32: 4, float16: 2, bfloat16: 2, float64: 8, int64: 8, int32: 4, int16: 2, int8: 1, uint8: 1, bool: 1,
};

export function isFloatStorage(dtype: StorageDtype): boolean {
  return dtype === 'float32' || dtype === 'float16' || dtype === 'bfloat16' || dtype === 'float64';
}

export function storageBytes(dtype: StorageDtype, numel: number): number {
  return ELEMENT_BYTES[dtype] * numel;
}

/**
 * The elements [first, end) of its storage a tensor reads, and the tensor re-based onto that span:
 * a view of a large shared storage reads its own bytes only. Throws when it reads past the storage.
 */
export function storageSpan(tensor: TensorRef): { first: number; end: number; rebased: TensorRef } {
  const count = tensor.shape.reduce((a, b) => a * b, 1);
  let last = tensor.offset;
  tensor.shape.forEach((n, d) => {
    if (n > 0) last += (n - 1) * tensor.stride[d];
  });
  const end = count === 0 ? tensor.offset : last + 1;
  if (end > tensor.storage.numel) throw new NemoFormatError(`a tensor reads past its storage (${tensor.storage.key})`);
  return { first: tensor.offset, end, rebased: { ...tensor, offset: 0, storage: { ...tensor.storage, numel: end - tensor.offset } } };
}

const scratch = new DataView(new ArrayBuffer(4));

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** float32 bits → IEEE half bits, round to nearest even (as ggml's FP32_TO_FP16 on x86 F16C). */
function halfFromBits(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 112;
  let fraction = bits & 0x7fffff;
  if (((bits >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (fraction ? 0x200 : 0);
  if (exponent >= 31) return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    fraction |= 0x800000;
    const shift = 14 - exponent;
    const kept = fraction >>> shift;
    const dropped = fraction - kept * 2 ** shift;
    const half = 2 ** (shift - 1);
    return sign | (kept + (dropped > half || (dropped === half && kept & 1) ? 1 : 0));
  }
  const kept = (exponent << 10) | (fraction >>> 13);
  const dropped = fraction & 0x1fff;
  return sign | (kept + (dropped > 0x1000 || (dropped === 0x1000 && kept & 1) ? 1 : 0));
}

/** float32 → IEEE half bits, round to nearest even. */
export function floatToHalf(x: number): number {
  scratch.setFloat32(0, x);
  return halfFromBits(scratch.getUint32(0));
}

/** The tensor's values in row-major (PyTorch) order, read from its storage bytes. */
export function tensorValues(tensor: TensorRef, storage: Uint8Array): Float32Array {
  const { dtype } = tensor.storage;
  if (!isFloatStorage(dtype)) throw new NemoFormatError(`tensor of type ${dtype} where weights are floats`);
  const view = new DataView(storage.buffer, storage.byteOffset, storage.byteLength);
  const read = (i: number): number => {
    switch (dtype) {
      case 'float32': return view.getFloat32(i * 4, true);
      case 'float16': return halfToFloat(view.getUint16(i * 2, true));
      case 'bfloat16': scratch.setUint32(0, view.getUint16(i * 2, true) << 16); return scratch.getFloat32(0);
      default: return Math.fround(view.getFloat64(i * 8, true));
    }
  };
  const count = tensor.shape.reduce((a, b) => a * b, 1);
  const dims = tensor.shape.length;
  let highest = tensor.offset;
  for (let d = 0; d < dims; d++) if (tensor.shape[d] > 0) highest += (tensor.shape[d] - 1) * tensor.stride[d];
  if (count > 0 && highest >= tensor.storage.numel) throw new NemoFormatError(`a tensor reads past its storage (${tensor.storage.key})`);
  const contiguous = tensor.stride.every((s, d) => s === tensor.shape.slice(d + 1).reduce((a, b) => a * b, 1) || tensor.shape[d] === 1);
  if (contiguous && dtype === 'float32' && storage.byteOffset % 4 === 0) {
    // The common case (every NeMo weight): a view of the bytes as read, no copy and no per-element indexing.
    return new Float32Array(storage.buffer, storage.byteOffset + tensor.offset * 4, count);
  }
  const out = new Float32Array(count);
  const index = new Array<number>(dims).fill(0);
  for (let i = 0; i < count; i++) {
    let at = tensor.offset;
    for (let d = 0; d < dims; d++) at += index[d] * tensor.stride[d];
    out[i] = read(at);
    for (let d = dims - 1; d >= 0; d--) {
      if (++index[d] < tensor.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

export function encodeF32(x: Float32Array): Uint8Array {
  return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
}

// The encoders run over every weight of the model (0.6B values): plain indexed loops over typed
// arrays, the float bits read through a Uint32Array view, nothing allocated per element or block.

export function encodeF16(x: Float32Array): Uint8Array {
  const bits = new Uint32Array(x.buffer, x.byteOffset, x.length);
  const out = new Uint16Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = halfFromBits(bits[i]);
  return new Uint8Array(out.buffer);
}

/** Q8_0 blocks of 32 (x.length a multiple of 32). */
export function encodeQ8_0(x: Float32Array): Uint8Array {
  const blocks = x.length / 32;
  const out = new Uint8Array(blocks * 34);
  const quants = new Int8Array(out.buffer);
  for (let b = 0; b < blocks; b++) {
    const base = b * 32;
    let amax = 0;
    for (let j = 0; j < 32; j++) {
      // ggml's MAX(amax, fabsf(v)): a NaN replaces amax and is itself replaced by the next value.
      const a = Math.abs(x[base + j]);
      amax = amax > a ? amax : a;
    }
    const d = Math.fround(amax / 127);
    const inverse = d === 0 ? 0 : Math.fround(1 / d);
    const half = floatToHalf(d);
    const at = b * 34;
    out[at] = half & 0xff;
    out[at + 1] = half >>> 8;
    for (let j = 0; j < 32; j++) {
      // roundf: halves away from zero.
      const scaled = Math.fround(x[base + j] * inverse);
      quants[at + 2 + j] = scaled < 0 ? -Math.round(-scaled) : Math.round(scaled);
    }
  }
  return out;
}
