// Streaming Sortformer diarizer (NeMo SortformerEncLabelModel, diar_streaming_sortformer_4spk-v2) in
// float64: the FastConformer of encoder.ts, encoder_proj, NeMo's post-LN TransformerEncoder and
// SortformerModules.forward_speaker_sigmoids; offline (forward without streaming_mode) and streaming
// (forward_streaming: streaming_feat_loader chunks, speaker cache + FIFO, sortformer-cache.ts).
import { attentionContextOf } from './attention.js';
import { conformerLayer } from './conformer.js';
import { type EncoderWeights, loadEncoder } from './encoder.js';
import { type ParakeetHParams, kvBool, kvNumber, kvString, readFrontendParams } from './hparams.js';
import { layerNorm, linear, sigmoid, tensor } from './linalg.js';
import { type MelWeights, computeMel, loadMelWeights } from './mel.js';
import { relPositionalEncoding } from './posenc.js';
import { type SortformerCacheParams, initialSortformerCache, sortformerStreamingUpdate } from './sortformer-cache.js';
import { runSubsampling } from './subsampling.js';
import type { WeightSource } from './weights.js';

export interface SortformerParams extends SortformerCacheParams {
  nSpeakers: number;
  tfDModel: number;
  tfHeads: number;
  tfLayers: number;
  tfInner: number;
  streamingMode: boolean;
  chunkLen: number;
  chunkLeftContext: number;
  chunkRightContext: number;
}

interface Linear {
  w: Float64Array;
  b: Float64Array;
  inDim: number;
  outDim: number;
}

interface TransformerLayer {
  query: Linear;
  key: Linear;
  value: Linear;
  outProjection: Linear;
  norm1: { gamma: Float64Array; beta: Float64Array };
  denseIn: Linear;
  denseOut: Linear;
  norm2: { gamma: Float64Array; beta: Float64Array };
}

export interface SortformerModel {
  hp: ParakeetHParams;
  sp: SortformerParams;
  mel: MelWeights;
  encoder: EncoderWeights;
  encoderProj: Linear;
  layers: TransformerLayer[];
  hiddenToHidden: Linear;
  hiddenToSpks: Linear;
  learnableSilEmb: Float64Array | null;
}

export interface SortformerResult {
  frameSec: number;
  nSpeakers: number;
  frames: number;
  /** [frames][nSpeakers] */
  activities: Float64Array;
}

function loadLinear(w: WeightSource, prefix: string, inDim: number, outDim: number): Linear {
  return { w: tensor(w, `${prefix}.weight`, [inDim, outDim]), b: tensor(w, `${prefix}.bias`, [outDim]), inDim, outDim };
}

function loadNorm(w: WeightSource, prefix: string, d: number): { gamma: Float64Array; beta: Float64Array } {
  return { gamma: tensor(w, `${prefix}.weight`, [d]), beta: tensor(w, `${prefix}.bias`, [d]) };
}

export function readSortformerParams(w: WeightSource, fcDModel: number): SortformerParams {
  const arch = kvString(w, 'parakeet.arch');
  if (arch !== 'diarization') throw new Error(`reference: parakeet.arch = ${arch ?? '(none)'} is not a diarizer`);
  let tfLayers = 0;
  while (w.has(`transformer_encoder.layers.${tfLayers}.layer_norm_1.weight`)) tfLayers++;
  const num = (key: string, fallback: number): number => kvNumber(w, `parakeet.diar.${key}`) ?? fallback;
  return {
    nSpeakers: num('n_speakers', 4),
    fcDModel,
    tfDModel: num('tf_d_model', 192),
    tfHeads: num('tf_n_heads', 8),
    tfLayers,
    tfInner: w.ne(`transformer_encoder.layers.0.second_sub_layer.dense_in.weight`)[1],
    streamingMode: kvBool(w, 'parakeet.diar.streaming_mode') ?? true,
    chunkLen: num('chunk_len', 188),
    chunkLeftContext: num('chunk_left_context', 1),
    chunkRightContext: num('chunk_right_context', 1),
    spkcacheLen: num('spkcache_len', 188),
    fifoLen: num('fifo_len', 0),
    spkcacheUpdatePeriod: num('spkcache_update_period', 188),
    spkcacheSilFramesPerSpk: num('spkcache_sil_frames_per_spk', 3),
    silThreshold: num('sil_threshold', 0.2),
    predScoreThreshold: num('pred_score_threshold', 0.25),
    scoresBoostLatest: num('scores_boost_latest', 0.05),
    strongBoostRate: num('strong_boost_rate', 0.75),
    weakBoostRate: num('weak_boost_rate', 1.5),
    minPosScoresRate: num('min_pos_scores_rate', 0.5),
    useLearnableSilEmb: kvBool(w, 'parakeet.diar.use_learnable_sil_emb') ?? w.has('sortformer_modules.learnable_sil_emb'),
  };
}

export function loadSortformer(w: WeightSource): SortformerModel {
  const { pre, enc } = readFrontendParams(w);
  const hp: ParakeetHParams = { arch: 'diarization', pre, enc, vocabSize: 0, blankId: 0, pieces: [], ctcPrefix: null, transducer: null };
  const sp = readSortformerParams(w, enc.dModel);
  const tf = sp.tfDModel;
  const layers: TransformerLayer[] = [];
  for (let i = 0; i < sp.tfLayers; i++) {
    const p = `transformer_encoder.layers.${i}.`;
    layers.push({
      query: loadLinear(w, `${p}first_sub_layer.query_net`, tf, tf),
      key: loadLinear(w, `${p}first_sub_layer.key_net`, tf, tf),
      value: loadLinear(w, `${p}first_sub_layer.value_net`, tf, tf),
      outProjection: loadLinear(w, `${p}first_sub_layer.out_proj`, tf, tf),
      norm1: loadNorm(w, `${p}layer_norm_1`, tf),
      denseIn: loadLinear(w, `${p}second_sub_layer.dense_in`, tf, sp.tfInner),
      denseOut: loadLinear(w, `${p}second_sub_layer.dense_out`, sp.tfInner, tf),
      norm2: loadNorm(w, `${p}layer_norm_2`, tf),
    });
  }
  return {
    hp,
    sp,
    mel: loadMelWeights(w, hp),
    encoder: loadEncoder(w, hp),
    encoderProj: loadLinear(w, 'sortformer_modules.encoder_proj', enc.dModel, tf),
    layers,
    hiddenToHidden: loadLinear(w, 'sortformer_modules.first_hidden_to_hidden', tf, tf),
    hiddenToSpks: loadLinear(w, 'sortformer_modules.single_hidden_to_spks', tf, sp.nSpeakers),
    learnableSilEmb: sp.useLearnableSilEmb ? tensor(w, 'sortformer_modules.learnable_sil_emb', [enc.dModel]) : null,
  };
}

const apply = (l: Linear, x: Float64Array, n: number): Float64Array => linear(x, n, l.inDim, l.w, l.outDim, l.b);

/** NeMo MultiHeadAttention, every key visible: softmax(q·kᵀ/√d_head)·v per head, then out_projection. */
function selfAttention(l: TransformerLayer, x: Float64Array, T: number, d: number, heads: number): Float64Array {
  const q = apply(l.query, x, T);
  const k = apply(l.key, x, T);
  const v = apply(l.value, x, T);
  const dh = d / heads;
  const context = new Float64Array(T * d);
  const scores = new Float64Array(T);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < T; i++) {
      let best = -Infinity;
      for (let j = 0; j < T; j++) {
        let s = 0;
        for (let e = 0; e < dh; e++) s += q[i * d + h * dh + e] * k[j * d + h * dh + e];
        scores[j] = s / Math.sqrt(dh);
        best = Math.max(best, scores[j]);
      }
      let sum = 0;
      for (let j = 0; j < T; j++) {
        scores[j] = Math.exp(scores[j] - best);
        sum += scores[j];
      }
      for (let j = 0; j < T; j++) {
        const p = scores[j] / sum;
        for (let e = 0; e < dh; e++) context[i * d + h * dh + e] += p * v[j * d + h * dh + e];
      }
    }
  }
  return apply(l.outProjection, context, T);
}

const relu = (x: Float64Array): Float64Array => x.map((v) => Math.max(v, 0));

function addInPlace(x: Float64Array, y: Float64Array): Float64Array {
  for (let i = 0; i < x.length; i++) x[i] += y[i];
  return x;
}

/** The FastConformer layers over pre-encoded rows (NeMo ConformerEncoder with bypass_pre_encode=True), all valid. */
function conformerLayers(model: SortformerModel, rows: Float64Array, T: number): Float64Array {
  const enc = model.hp.enc;
  const pe = relPositionalEncoding(T, enc.dModel);
  const ctx = attentionContextOf(enc);
  let x = rows;
  for (const lw of model.encoder.layers) x = conformerLayer(x, T, T, pe, lw, enc, ctx);
  return x;
}

/** NeMo forward_infer after frontend_encoder: encoder_proj, the transformer (post-LN), forward_speaker_sigmoids. */
export function sortformerActivitiesOfEncoded(model: SortformerModel, encoded: Float64Array, T: number): Float64Array {
  const d = model.sp.tfDModel;
  let x = apply(model.encoderProj, encoded, T);
  for (const l of model.layers) {
    const attended = layerNorm(addInPlace(selfAttention(l, x, T, d, model.sp.tfHeads), x), T, d, l.norm1.gamma, l.norm1.beta);
    const ff = apply(l.denseOut, relu(apply(l.denseIn, attended, T)), T);
    x = layerNorm(addInPlace(ff, attended), T, d, l.norm2.gamma, l.norm2.beta);
  }
  const logits = apply(model.hiddenToSpks, relu(apply(model.hiddenToHidden, relu(x), T)), T);
  return logits.map(sigmoid);
}

/** Mel frames [first, first + count) of a [M][T] mel as a clip of its own (all valid). */
function melSlice(mel: Float64Array, nMels: number, nFrames: number, first: number, count: number): Float64Array {
  const out = new Float64Array(nMels * count);
  for (let m = 0; m < nMels; m++) out.set(mel.subarray(m * nFrames + first, m * nFrames + first + count), m * count);
  return out;
}

/** Pre-encoded rows (subsampling + √d xscale) of mel frames [first, first + count). */
function preEncode(model: SortformerModel, mel: Float64Array, nFrames: number, first: number, count: number): { rows: Float64Array; T: number } {
  const nMels = model.hp.pre.nMels;
  const sub = runSubsampling(melSlice(mel, nMels, nFrames, first, count), nMels, count, count, model.encoder.subsampling);
  return { rows: sub.out, T: sub.frames };
}

/** NeMo forward with streaming_mode off: the clip scaled by 1/(max + 1e-3), one pass over its valid mel frames. */
export function sortformerOffline(pcm: Float32Array, model: SortformerModel): SortformerResult {
  let peak = -Infinity;
  for (const s of pcm) peak = Math.max(peak, s);
  const scaled = Float64Array.from(pcm, (s) => s * (1 / (peak + 1e-3)));
  const mel = computeMel(scaled, model.hp.pre, model.mel);
  const frameSec = (model.hp.pre.hopLength * model.hp.enc.subsamplingFactor) / model.hp.pre.sampleRate;
  if (mel.validFrames === 0) return { frameSec, nSpeakers: model.sp.nSpeakers, frames: 0, activities: new Float64Array(0) };
  const { rows, T } = preEncode(model, mel.mel, mel.nFrames, 0, mel.validFrames);
  const activities = sortformerActivitiesOfEncoded(model, conformerLayers(model, rows, T), T);
  return { frameSec, nSpeakers: model.sp.nSpeakers, frames: T, activities };
}

/** NeMo forward_streaming: streaming_feat_loader's chunks through forward_streaming_step and streaming_update. */
export function sortformerStreaming(pcm: Float32Array, model: SortformerModel): SortformerResult {
  const { sp } = model;
  const factor = model.hp.enc.subsamplingFactor;
  const mel = computeMel(pcm, model.hp.pre, model.mel);
  const featLen = mel.validFrames;
  const D = model.hp.enc.dModel;
  const cache = initialSortformerCache(D, sp.nSpeakers);
  const out: number[] = [];
  let stt = 0;
  let end = 0;
  while (end < featLen) {
    const left = Math.min(sp.chunkLeftContext * factor, stt);
    end = Math.min(stt + sp.chunkLen * factor, featLen);
    const right = Math.min(sp.chunkRightContext * factor, featLen - end);
    const chunk = preEncode(model, mel.mel, mel.nFrames, stt - left, left + (end - stt) + right);
    const prefixFrames = cache.spkcacheFrames + cache.fifoFrames;
    const input = new Float64Array((prefixFrames + chunk.T) * D);
    input.set(cache.spkcache.subarray(0, cache.spkcacheFrames * D), 0);
    input.set(cache.fifo.subarray(0, cache.fifoFrames * D), cache.spkcacheFrames * D);
    input.set(chunk.rows, prefixFrames * D);
    const T = prefixFrames + chunk.T;
    const preds = sortformerActivitiesOfEncoded(model, conformerLayers(model, input, T), T);
    const chunkPreds = sortformerStreamingUpdate(sp, model.learnableSilEmb, cache, chunk.rows, chunk.T, Math.round(left / factor), Math.ceil(right / factor), preds);
    for (const v of chunkPreds) out.push(v);
    stt = end;
  }
  const frameSec = (model.hp.pre.hopLength * factor) / model.hp.pre.sampleRate;
  return { frameSec, nSpeakers: sp.nSpeakers, frames: out.length / sp.nSpeakers, activities: Float64Array.from(out) };
}
