// Whole FastConformer encoder, spec §3 — NeMo ConformerEncoder.forward_internal (offline, one clip):
// pre_encode (dw_striding + masking) → optional xscale → rel-pos table → layers → output [T'][D].
import { type AttentionContext, attentionContextOf } from './attention.js';
import { type ConformerLayerCapture, type ConformerLayerWeights, conformerLayer, loadConformerLayer } from './conformer.js';
import type { EncoderParams, ParakeetHParams } from './hparams.js';
import type { MelResult } from './mel.js';
import { relPositionalEncoding } from './posenc.js';
import { type SubsamplingWeights, loadSubsampling, runSubsampling } from './subsampling.js';
import type { WeightSource } from './weights.js';

export interface EncoderWeights {
  params: EncoderParams;
  subsampling: SubsamplingWeights;
  layers: ConformerLayerWeights[];
}

export interface EncoderStages {
  /** Subsampling output (after xscaling) [T'][D]. */
  subsampling: Float64Array;
  /** Output of layer k (after its norm_out) [T'][D]. */
  layers: Float64Array[];
  /** Relative positional table [2T'−1][D]. */
  posEnc: Float64Array;
  /** Sub-module outputs of each layer (before the residual adds). */
  layerParts: ConformerLayerCapture[];
}

export interface EncoderResult {
  /** [T'][D], D fastest (one row per encoder frame), all T' frames (rows ≥ Tv are padding). */
  out: Float64Array;
  frames: number;
  validFrames: number;
  dModel: number;
  stages?: EncoderStages;
}

export function loadEncoder(w: WeightSource, hp: ParakeetHParams): EncoderWeights {
  const layers: ConformerLayerWeights[] = [];
  for (let i = 0; i < hp.enc.nLayers; i++) layers.push(loadConformerLayer(w, i, hp.enc));
  return { params: hp.enc, subsampling: loadSubsampling(w, hp), layers };
}

export interface EncoderOptions {
  /** Keep per-stage tensors (EncoderResult.stages). */
  capture?: boolean;
  /** Attention context instead of the file's (e.g. another streaming preset). */
  context?: AttentionContext;
}

export function runEncoder(mel: MelResult, ew: EncoderWeights, opts: EncoderOptions = {}): EncoderResult {
  const enc = ew.params;
  if (mel.nMels !== enc.featIn) throw new Error('encoder: mel bins != feat_in');
  const sub = runSubsampling(mel.mel, mel.nMels, mel.nFrames, mel.validFrames, ew.subsampling);
  const T = sub.frames;
  const Tv = sub.validFrames;
  const pe = relPositionalEncoding(T, enc.dModel); // over the full spatial length T'
  const ctx = opts.context ?? attentionContextOf(enc);
  const stages: EncoderStages | undefined = opts.capture
    ? { subsampling: Float64Array.from(sub.out), layers: [], posEnc: pe, layerParts: [] }
    : undefined;
  let x = sub.out;
  for (const lw of ew.layers) {
    const parts: ConformerLayerCapture | undefined = stages ? {} : undefined;
    x = conformerLayer(x, T, Tv, pe, lw, enc, ctx, parts);
    if (stages && parts) {
      stages.layers.push(Float64Array.from(x));
      stages.layerParts.push(parts);
    }
  }
  return { out: x, frames: T, validFrames: Tv, dModel: enc.dModel, stages };
}
