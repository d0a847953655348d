// End-to-end reference: mel → encoder → greedy decoder → text, words.
// NeMo equivalent: ASRModel.transcribe(..., timestamps=True) with greedy decoding (default greedy_batch).
import { type CtcWeights, ctcGreedy, ctcLogProbs, loadCtc } from './ctc.js';
import { type DecisionStep, type DecodeResult, reliableTokenCount } from './decoding.js';
import { detokenize } from './detokenize.js';
import { type EncoderResult, type EncoderWeights, loadEncoder, runEncoder } from './encoder.js';
import { type ParakeetHParams, frameSeconds, readHParams } from './hparams.js';
import { type JointWeights, loadJoint, projectEncoder, transducerModel } from './joint.js';
import { type MelResult, type MelWeights, computeMel, loadMelWeights } from './mel.js';
import { type PredictionWeights, loadPrediction } from './prediction.js';
import { rnntGreedy } from './rnnt.js';
import { type TdtRule, tdtGreedy } from './tdt.js';
import type { WeightSource } from './weights.js';
import { type WordTiming, groupWords } from './words.js';

export type DecoderKind = 'ctc' | 'rnnt' | 'tdt';

export interface ReferenceOptions {
  /** Default: transducer (TDT if durations non-empty, else RNNT) when the joint exists, else CTC. */
  decoder?: DecoderKind;
  /** TDT greedy variant, default 'greedy_batch' (NeMo's default strategy). */
  tdtRule?: TdtRule;
  /** Override parakeet.decoding.max_symbols. */
  maxSymbols?: number;
  /** Keep per-stage encoder tensors (EncoderResult.stages). */
  capture?: boolean;
}

export interface ReferenceToken {
  id: number;
  frame: number;
  duration: number;
  confidence: number;
  margin: number;
}

export interface ReferenceResult {
  hparams: ParakeetHParams;
  decoder: DecoderKind;
  mel: MelResult;
  encoder: EncoderResult;
  tokens: ReferenceToken[];
  /** Every greedy decision with its top-2 margins (CTC: one per valid frame). */
  steps: DecisionStep[];
  /** Emitted tokens decided before the first decision with margin ≤ 1e-3 (see reliableTokenCount). */
  reliableTokens: number;
  text: string;
  words: WordTiming[];
  /** Seconds per encoder frame. */
  frameSec: number;
  /** CTC only: log-probs [T'][V+1] over all T' frames (the decoder reads the first Tv). */
  logits?: Float64Array;
}

export interface ReferenceModel {
  hparams: ParakeetHParams;
  melWeights: MelWeights;
  encoder: EncoderWeights;
  ctc: CtcWeights | null;
  prediction: PredictionWeights | null;
  joint: JointWeights | null;
}

const modelCache = new WeakMap<WeightSource, ReferenceModel>();

/** Read hparams and every tensor once (cached per WeightSource object). */
export function loadReferenceModel(weights: WeightSource): ReferenceModel {
  const cached = modelCache.get(weights);
  if (cached) return cached;
  const hp = readHParams(weights);
  const model: ReferenceModel = {
    hparams: hp,
    melWeights: loadMelWeights(weights, hp),
    encoder: loadEncoder(weights, hp),
    ctc: hp.ctcPrefix !== null ? loadCtc(weights, hp) : null,
    prediction: hp.transducer !== null ? loadPrediction(weights, hp) : null,
    joint: hp.transducer !== null ? loadJoint(weights, hp) : null,
  };
  modelCache.set(weights, model);
  return model;
}

export function defaultDecoder(hp: ParakeetHParams): DecoderKind {
  if (hp.transducer !== null) return hp.transducer.isTdt ? 'tdt' : 'rnnt';
  if (hp.ctcPrefix !== null) return 'ctc';
  throw new Error('reference: model has neither a transducer nor a CTC head');
}

export function referenceTranscribe(
  weights: WeightSource,
  pcm: Float32Array | Float64Array,
  opts: ReferenceOptions = {},
): ReferenceResult {
  const model = loadReferenceModel(weights);
  const hp = model.hparams;
  const decoder = opts.decoder ?? defaultDecoder(hp);
  const mel = computeMel(pcm, hp.pre, model.melWeights);
  const encoder = runEncoder(mel, model.encoder, { capture: opts.capture });
  const Tv = encoder.validFrames; // NeMo decoders read encoded_len frames
  let decoded: DecodeResult;
  let logits: Float64Array | undefined;
  if (decoder === 'ctc') {
    if (model.ctc === null) throw new Error('reference: model has no CTC head');
    logits = ctcLogProbs(encoder.out, encoder.frames, model.ctc);
    decoded = ctcGreedy(logits, Tv, model.ctc.nClasses);
  } else {
    const tr = hp.transducer;
    if (tr === null || model.prediction === null || model.joint === null) throw new Error('reference: model has no transducer head');
    if (decoder === 'tdt' && !tr.isTdt) throw new Error('reference: decoder tdt requested but the model has no durations');
    if (decoder === 'rnnt' && tr.isTdt) throw new Error('reference: decoder rnnt requested but the model is TDT');
    const encProj = projectEncoder(model.joint, encoder.out, encoder.frames);
    const tm = transducerModel(model.prediction, model.joint, encProj, hp.blankId);
    const maxSymbols = opts.maxSymbols ?? tr.maxSymbols;
    decoded =
      decoder === 'tdt'
        ? tdtGreedy(tm, Tv, tr.durations, maxSymbols, opts.tdtRule ?? 'greedy_batch')
        : rnntGreedy(tm, Tv, maxSymbols);
  }
  const ids = decoded.tokens.map((t) => t.id);
  const frameSec = frameSeconds(hp);
  return {
    hparams: hp,
    decoder,
    mel,
    encoder,
    tokens: decoded.tokens,
    steps: decoded.steps,
    reliableTokens: reliableTokenCount(decoded.steps),
    text: detokenize(hp.pieces, ids),
    words: groupWords(hp.pieces, decoded.tokens, frameSec),
    frameSec,
    logits,
  };
}
