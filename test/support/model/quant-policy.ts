// Which tensors may be stored quantized (spec 1.7): only weights consumed
// directly by ggml_mul_mat, and only when the shape suits the block size.
import { GgmlType, ggmlTypeInfo } from '../gguf/types.js';
import type { WeightType } from './options.js';

export const QUANT_ALLOWLIST: readonly RegExp[] = [
  /^encoder\.layers\.\d+\.feed_forward[12]\.linear[12]\.weight$/,
  /^encoder\.layers\.\d+\.self_attn\.linear_(q|k|v|out|pos)\.weight$/,
  /^encoder\.pre_encode\.out\.weight$/,
  /^joint\.enc\.weight$/,
  /^joint\.pred\.weight$/,
];

export const WEIGHT_GGML_TYPE: Readonly<Record<WeightType, GgmlType>> = {
  f32: GgmlType.F32,
  f16: GgmlType.F16,
  bf16: GgmlType.BF16,
  q8_0: GgmlType.Q8_0,
  q4_0: GgmlType.Q4_0,
  q5_0: GgmlType.Q5_0,
  q4_k: GgmlType.Q4_K,
  q5_k: GgmlType.Q5_K,
  q6_k: GgmlType.Q6_K,
};

export function isAllowlisted(name: string): boolean {
  return QUANT_ALLOWLIST.some((re) => re.test(name));
}

/**
 * Storage type of a tensor in a file of the given weight type: the weight type
 * for allowlisted tensors that are >= 2-D with ne0 >= 32, ne1 >= 32 and ne0 a
 * multiple of the block size; F32 for everything else.
 */
export function storageType(name: string, ne: readonly number[], weightType: WeightType): GgmlType {
  const target = WEIGHT_GGML_TYPE[weightType];
  if (target === GgmlType.F32 || !isAllowlisted(name)) return GgmlType.F32;
  const block = ggmlTypeInfo(target)?.blockSize ?? 1;
  const ok = ne.length >= 2 && ne[0] >= 32 && ne[1] >= 32 && ne[0] % block === 0;
  return ok ? target : GgmlType.F32;
}
