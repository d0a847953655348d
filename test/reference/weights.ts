export interface WeightSource {
  /** GGUF metadata values as parsed (numbers for all numeric scalar types, bigint only for 64-bit ints beyond 2^53, string, boolean, arrays). */
  kv: ReadonlyMap<string, unknown>;
  has(name: string): boolean;
  /** ggml ne order, fastest first. */
  ne(name: string): number[];
  /** Dequantized tensor data in float64, ggml memory order. */
  f64(name: string): Float64Array;
}
