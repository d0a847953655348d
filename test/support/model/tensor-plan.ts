// One tensor of a random model as the schema plans it (schema.ts) and the initialisers fill it (init.ts,
// joint-output.ts): a leaf, so those can share it without importing each other.

/** How a tensor's values are drawn; see init.ts. */
export type Init =
  | { readonly kind: 'uniform'; readonly lo: number; readonly hi: number }
  | { readonly kind: 'fixed'; readonly values: () => Float64Array }
  /** Uniform, with whole rows (of length rowLen) set to zero: the blank embedding. */
  | { readonly kind: 'zeroRows'; readonly bound: number; readonly rowLen: number; readonly rows: readonly number[] }
  /** Uniform(±bound), then each row (of length rowLen) shifted to zero mean: kernels blind to a constant input. */
  | { readonly kind: 'zeroMeanRows'; readonly bound: number; readonly rowLen: number }
  /** Uniform(±bound) plus fixed offsets at some indices: output biases favouring blank etc. */
  | { readonly kind: 'offsets'; readonly bound: number; readonly offsets: ReadonlyMap<number, number> };

export interface TensorPlan {
  readonly name: string;
  readonly ne: readonly number[];
  /** On the spec 1.7 allowlist (storage type also depends on the shape, see quant-policy.ts). */
  readonly allowlisted: boolean;
  readonly init: Init;
}
