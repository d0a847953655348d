// Short constructors for typed GGUF metadata values, so call sites state the GGUF
// type explicitly (the schema cares: d_model is UINT32, preemph FLOAT32, ...).
import {
  type Gguf64BitType,
  type GgufNumericType,
  type GgufValue,
  GgufValueType,
} from './types.js';

export const gv = {
  u8: (value: number): GgufValue => ({ type: GgufValueType.UINT8, value }),
  i8: (value: number): GgufValue => ({ type: GgufValueType.INT8, value }),
  u16: (value: number): GgufValue => ({ type: GgufValueType.UINT16, value }),
  i16: (value: number): GgufValue => ({ type: GgufValueType.INT16, value }),
  u32: (value: number): GgufValue => ({ type: GgufValueType.UINT32, value }),
  i32: (value: number): GgufValue => ({ type: GgufValueType.INT32, value }),
  f32: (value: number): GgufValue => ({ type: GgufValueType.FLOAT32, value }),
  f64: (value: number): GgufValue => ({ type: GgufValueType.FLOAT64, value }),
  u64: (value: number | bigint): GgufValue => ({ type: GgufValueType.UINT64, value }),
  i64: (value: number | bigint): GgufValue => ({ type: GgufValueType.INT64, value }),
  bool: (value: boolean): GgufValue => ({ type: GgufValueType.BOOL, value }),
  str: (value: string): GgufValue => ({ type: GgufValueType.STRING, value }),
  arr: (itemType: GgufNumericType, value: readonly number[]): GgufValue => ({ type: GgufValueType.ARRAY, itemType, value }),
  arr64: (itemType: Gguf64BitType, value: readonly (number | bigint)[]): GgufValue => ({ type: GgufValueType.ARRAY, itemType, value }),
  arrBool: (value: readonly boolean[]): GgufValue => ({ type: GgufValueType.ARRAY, itemType: GgufValueType.BOOL, value }),
  arrStr: (value: readonly string[]): GgufValue => ({ type: GgufValueType.ARRAY, itemType: GgufValueType.STRING, value }),
} as const;

/** Plain JS view of a value: numbers/bigints/booleans/strings, arrays as arrays. */
export function plainValue(v: GgufValue): unknown {
  return v.type === GgufValueType.ARRAY ? [...v.value] : v.value;
}
