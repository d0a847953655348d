// GGUF v3 / ggml enums and the plain data types shared by the writer, reader and
// quantizers. Numeric values and block layouts follow ggml.h / ggml-common.h of the
// pinned llama.cpp tree (.cache/llama.cpp-*/ggml): they are part of the file format.

/** ggml tensor element types (ggml.h `enum ggml_type`). Gaps are removed types. */
export enum GgmlType {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
  NVFP4 = 40,
  Q1_0 = 41,
  Q2_0 = 42,
}

/** One past the largest ggml type id known to the pinned ggml (GGML_TYPE_COUNT). */
export const GGML_TYPE_COUNT = 43;

export interface GgmlTypeInfo {
  readonly name: string;
  /** Elements per block (1 for plain types). */
  readonly blockSize: number;
  /** Bytes per block. */
  readonly typeSize: number;
}

const QK_K = 256;

// Sizes are sizeof(block_*) from ggml-common.h (checked there by static_asserts).
const TYPE_INFO: ReadonlyMap<GgmlType, GgmlTypeInfo> = new Map<GgmlType, GgmlTypeInfo>([
  [GgmlType.F32, { name: 'f32', blockSize: 1, typeSize: 4 }],
  [GgmlType.F16, { name: 'f16', blockSize: 1, typeSize: 2 }],
  [GgmlType.Q4_0, { name: 'q4_0', blockSize: 32, typeSize: 2 + 16 }],
  [GgmlType.Q4_1, { name: 'q4_1', blockSize: 32, typeSize: 4 + 16 }],
  [GgmlType.Q5_0, { name: 'q5_0', blockSize: 32, typeSize: 2 + 4 + 16 }],
  [GgmlType.Q5_1, { name: 'q5_1', blockSize: 32, typeSize: 4 + 4 + 16 }],
  [GgmlType.Q8_0, { name: 'q8_0', blockSize: 32, typeSize: 2 + 32 }],
  [GgmlType.Q8_1, { name: 'q8_1', blockSize: 32, typeSize: 4 + 32 }],
  [GgmlType.Q2_K, { name: 'q2_K', blockSize: QK_K, typeSize: 4 + QK_K / 16 + QK_K / 4 }],
  [GgmlType.Q3_K, { name: 'q3_K', blockSize: QK_K, typeSize: 2 + QK_K / 4 + QK_K / 8 + 12 }],
  [GgmlType.Q4_K, { name: 'q4_K', blockSize: QK_K, typeSize: 4 + 12 + QK_K / 2 }],
  [GgmlType.Q5_K, { name: 'q5_K', blockSize: QK_K, typeSize: 4 + 12 + QK_K / 2 + QK_K / 8 }],
  [GgmlType.Q6_K, { name: 'q6_K', blockSize: QK_K, typeSize: 2 + QK_K / 16 + (3 * QK_K) / 4 }],
  [GgmlType.Q8_K, { name: 'q8_K', blockSize: QK_K, typeSize: 4 + QK_K + (QK_K / 16) * 2 }],
  [GgmlType.IQ2_XXS, { name: 'iq2_xxs', blockSize: QK_K, typeSize: 2 + (QK_K / 8) * 2 }],
  [GgmlType.IQ2_XS, { name: 'iq2_xs', blockSize: QK_K, typeSize: 2 + (QK_K / 8) * 2 + QK_K / 32 }],
  [GgmlType.IQ3_XXS, { name: 'iq3_xxs', blockSize: QK_K, typeSize: 2 + 3 * (QK_K / 8) }],
  [GgmlType.IQ1_S, { name: 'iq1_s', blockSize: QK_K, typeSize: 2 + QK_K / 8 + QK_K / 16 }],
  [GgmlType.IQ4_NL, { name: 'iq4_nl', blockSize: 32, typeSize: 2 + 16 }],
  [GgmlType.IQ3_S, { name: 'iq3_s', blockSize: QK_K, typeSize: 2 + 13 * (QK_K / 32) + QK_K / 64 }],
  [GgmlType.IQ2_S, { name: 'iq2_s', blockSize: QK_K, typeSize: 2 + QK_K / 4 + QK_K / 16 }],
  [GgmlType.IQ4_XS, { name: 'iq4_xs', blockSize: QK_K, typeSize: 2 + 2 + QK_K / 64 + QK_K / 2 }],
  [GgmlType.I8, { name: 'i8', blockSize: 1, typeSize: 1 }],
  [GgmlType.I16, { name: 'i16', blockSize: 1, typeSize: 2 }],
  [GgmlType.I32, { name: 'i32', blockSize: 1, typeSize: 4 }],
  [GgmlType.I64, { name: 'i64', blockSize: 1, typeSize: 8 }],
  [GgmlType.F64, { name: 'f64', blockSize: 1, typeSize: 8 }],
  [GgmlType.IQ1_M, { name: 'iq1_m', blockSize: QK_K, typeSize: QK_K / 8 + QK_K / 16 + QK_K / 32 }],
  [GgmlType.BF16, { name: 'bf16', blockSize: 1, typeSize: 2 }],
  [GgmlType.TQ1_0, { name: 'tq1_0', blockSize: QK_K, typeSize: 2 + QK_K / 64 + (QK_K - (4 * QK_K) / 64) / 5 }],
  [GgmlType.TQ2_0, { name: 'tq2_0', blockSize: QK_K, typeSize: 2 + QK_K / 4 }],
  [GgmlType.MXFP4, { name: 'mxfp4', blockSize: 32, typeSize: 1 + 16 }],
  [GgmlType.NVFP4, { name: 'nvfp4', blockSize: 64, typeSize: 4 + 32 }],
  [GgmlType.Q1_0, { name: 'q1_0', blockSize: 128, typeSize: 2 + 16 }],
  [GgmlType.Q2_0, { name: 'q2_0', blockSize: 64, typeSize: 2 + 16 }],
]);

/** Block layout of a ggml type, or undefined for ids ggml does not define (e.g. 4, 5, 31). */
export function ggmlTypeInfo(type: number): GgmlTypeInfo | undefined {
  return TYPE_INFO.get(type as GgmlType);
}

export function ggmlTypeName(type: number): string {
  return ggmlTypeInfo(type)?.name ?? `unknown(${type})`;
}

export function elementCount(ne: readonly number[]): number {
  let n = 1;
  for (const d of ne) n *= d;
  return n;
}

/** Bytes occupied by a tensor of this type and shape (ggml_nbytes for a contiguous tensor). */
export function tensorByteSize(type: GgmlType, ne: readonly number[]): number {
  const info = ggmlTypeInfo(type);
  if (!info) throw new Error(`unknown ggml type ${type}`);
  const ne0 = ne.length > 0 ? ne[0] : 1;
  if (ne0 % info.blockSize !== 0) {
    throw new Error(`ne0 = ${ne0} is not a multiple of the ${info.name} block size ${info.blockSize}`);
  }
  return (elementCount(ne) / info.blockSize) * info.typeSize;
}

export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/** GGUF metadata value types (gguf.h `enum gguf_type`). */
export enum GgufValueType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

export type GgufNumericType =
  | GgufValueType.UINT8
  | GgufValueType.INT8
  | GgufValueType.UINT16
  | GgufValueType.INT16
  | GgufValueType.UINT32
  | GgufValueType.INT32
  | GgufValueType.FLOAT32
  | GgufValueType.FLOAT64;

export type Gguf64BitType = GgufValueType.UINT64 | GgufValueType.INT64;

/** Any element type an array may hold (gguf.cpp rejects arrays of arrays). */
export type GgufScalarType = GgufNumericType | Gguf64BitType | GgufValueType.BOOL | GgufValueType.STRING;

/**
 * A typed metadata value. 64-bit integers are plain numbers when they are safe
 * integers and bigint otherwise (the reader follows the same rule).
 */
export type GgufValue =
  | { readonly type: GgufNumericType; readonly value: number }
  | { readonly type: Gguf64BitType; readonly value: number | bigint }
  | { readonly type: GgufValueType.BOOL; readonly value: boolean }
  | { readonly type: GgufValueType.STRING; readonly value: string }
  | { readonly type: GgufValueType.ARRAY; readonly itemType: GgufNumericType; readonly value: readonly number[] }
  | { readonly type: GgufValueType.ARRAY; readonly itemType: Gguf64BitType; readonly value: readonly (number | bigint)[] }
  | { readonly type: GgufValueType.ARRAY; readonly itemType: GgufValueType.BOOL; readonly value: readonly boolean[] }
  | { readonly type: GgufValueType.ARRAY; readonly itemType: GgufValueType.STRING; readonly value: readonly string[] };

/** Byte width of fixed-size scalar value types; undefined for STRING and ARRAY. */
export function ggufScalarSize(type: GgufValueType): number | undefined {
  switch (type) {
    case GgufValueType.UINT8:
    case GgufValueType.INT8:
    case GgufValueType.BOOL:
      return 1;
    case GgufValueType.UINT16:
    case GgufValueType.INT16:
      return 2;
    case GgufValueType.UINT32:
    case GgufValueType.INT32:
    case GgufValueType.FLOAT32:
      return 4;
    case GgufValueType.UINT64:
    case GgufValueType.INT64:
    case GgufValueType.FLOAT64:
      return 8;
    default:
      return undefined;
  }
}

/** A tensor as described by the tensor-info table of a GGUF file. */
export interface GgufTensorInfo {
  readonly name: string;
  /** ggml ne order: fastest-varying dimension first. */
  readonly ne: readonly number[];
  readonly type: GgmlType;
  /** Offset from the start of the tensor-data section. */
  readonly offset: number;
  readonly byteSize: number;
}

export const GGUF_MAGIC = 'GGUF';
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;
export const GGUF_KEY_ALIGNMENT = 'general.alignment';
/** ggml limits a tensor name to GGML_MAX_NAME - 1 = 63 bytes. */
export const GGML_MAX_NAME = 64;
export const GGML_MAX_DIMS = 4;
