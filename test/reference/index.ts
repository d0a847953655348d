// Independent float64 reference implementation of Parakeet inference, written from
// /work/shared/spec/parakeet-model.md (§1.2–1.5, §2, §3, §4) with plain loops; Node built-ins only.
//
// Conventions:
// * Layouts: mel [M][T] (time fastest); encoder output [T'][D] (D fastest), all T' spatial frames.
// * Padded attention query rows (i ≥ Tv) output exactly linear_out.bias (NeMo: whole row masked →
//   zero context); keys j ≥ Tv are excluded from the softmax (exactly 0 weight).
// * Decoders read the valid length Tv (NeMo encoded_len); CTC log-probs are computed for all T'.
// * TDT: 'greedy_batch' (NeMo default, label looping) and 'greedy' (GreedyTDTInfer), see tdt.ts.
// * Every greedy decision is recorded with its top-2 margin(s); reliableTokenCount(steps, 1e-3) gives
//   the number of leading tokens that are decided before the first ambiguous decision.
// * Cache-aware streaming (stream.ts): chunk by chunk with per-layer attention/conv caches, the
//   prompt kernel, RNNT state carried and reset after <EOU>/<EOB>; result fields = the CLI contract.
// * Text follows SentencePiece decode_ids: <unk> → " ⁇ " (a leading <unk> keeps its leading space).
export type { WeightSource } from './weights.js';
export * from './hparams.js';
export { FftPlan, dft, fft, fftPlan, isPowerOfTwo } from './fft.js';
export * from './mel.js';
export * from './subsampling.js';
export * from './posenc.js';
export * from './attention.js';
export * from './conformer.js';
export * from './encoder.js';
export * from './decoding.js';
export * from './ctc.js';
export * from './prediction.js';
export * from './joint.js';
export * from './rnnt.js';
export * from './tdt.js';
export * from './detokenize.js';
export * from './words.js';
export * from './transcribe.js';
export * from './stream-params.js';
export * from './prompt.js';
export { MelStream } from './stream-mel.js';
export { type EncoderCaches, initialCaches, streamEncoderStep } from './stream-encoder.js';
export * from './stream.js';
export { layerNorm, linear, sigmoid, silu, top2, trimShape } from './linalg.js';
export type { Top2 } from './linalg.js';
