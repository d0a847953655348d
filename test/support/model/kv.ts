// Metadata of a random model: the spec 1.2 keys with their exact GGUF types.
import { GgufValueType } from '../gguf/types.js';
import { gv } from '../gguf/values.js';
import type { GgufKv } from '../gguf/writer.js';
import { type ModelOptions, isTdt, isTransducer } from './options.js';
import { streamingKeyValues } from './streaming.js';

export const LOG_ZERO_GUARD = 2 ** -24;

export function modelKv(o: ModelOptions, pieces: readonly string[]): GgufKv[] {
  const kv: GgufKv[] = [
    { key: 'general.architecture', value: gv.str('parakeet') },
    { key: 'general.name', value: gv.str(o.label) },
  ];
  if (o.alignment !== undefined) kv.push({ key: 'general.alignment', value: gv.u32(o.alignment) });
  const add = (key: string, value: GgufKv['value']): void => {
    kv.push({ key: `parakeet.${key}`, value });
  };
  add('arch', gv.str(o.archLabel));
  add('encoder.feat_in', gv.u32(o.nMels));
  add('encoder.d_model', gv.u32(o.dModel));
  add('encoder.n_layers', gv.u32(o.nLayers));
  add('encoder.n_heads', gv.u32(o.nHeads));
  add('encoder.ff_dim', gv.u32(o.ffDim));
  add('encoder.conv_kernel', gv.u32(o.convKernel));
  add('encoder.conv_norm_type', gv.str(o.convNormType));
  add('encoder.subsampling_factor', gv.u32(8));
  add('encoder.subsampling_conv_channels', gv.u32(o.subsamplingChannels));
  add('encoder.xscaling', gv.bool(o.xscaling));
  add('encoder.pos_emb_max_len', gv.u32(5000));
  add('encoder.use_bias', gv.bool(o.useBias));
  add('preprocessor.sample_rate', gv.u32(16000));
  add('preprocessor.n_mels', gv.u32(o.nMels));
  add('preprocessor.n_fft', gv.u32(512));
  add('preprocessor.win_length', gv.u32(400));
  add('preprocessor.hop_length', gv.u32(160));
  add('preprocessor.preemph', gv.f32(o.preemph));
  add('preprocessor.mag_power', gv.f32(2));
  add('preprocessor.normalize', gv.str(o.normalize));
  add('preprocessor.log_zero_guard', gv.f32(LOG_ZERO_GUARD));
  add('vocab_size', gv.u32(o.vocabSize));
  add('blank_id', gv.u32(o.vocabSize));
  add('tokenizer.pieces', gv.arrStr(pieces));
  if (isTransducer(o.arch)) {
    add('decoder.pred_hidden', gv.u32(o.predHidden));
    add('decoder.pred_rnn_layers', gv.u32(o.predLayers));
    add('joint.joint_hidden', gv.u32(o.jointHidden));
    add('joint.activation', gv.str('relu'));
    add('decoding.max_symbols', gv.u32(o.maxSymbols));
  }
  if (isTdt(o.arch)) add('tdt.durations', gv.arr(GgufValueType.INT32, o.durations));
  kv.push(...streamingKv(o), ...promptKv(o));

  const omitted = new Set(o.omitKeys);
  const result = kv.filter((e) => !omitted.has(e.key));
  for (const extra of o.extraKv) {
    const i = result.findIndex((e) => e.key === extra.key);
    if (i >= 0) result[i] = extra;
    else result.push(extra);
  }
  return result;
}

const i32s = (v: readonly number[]): GgufKv['value'] => gv.arr(GgufValueType.INT32, v);

/**
 * Spec §1.2 "keys only for cache-aware streaming models", as parakeet.cpp's converter writes them: the
 * attention context and `parakeet.streaming.*` of the default (first) preset, the presets list
 * when there are several.
 */
function streamingKv(o: ModelOptions): GgufKv[] {
  const causal: GgufKv[] = [];
  if (o.causalDownsampling) causal.push({ key: 'parakeet.encoder.causal_downsampling', value: gv.bool(true) });
  if (o.convCausal) causal.push({ key: 'parakeet.encoder.conv_causal', value: gv.bool(true) });
  if (o.attContextStyle === 'regular') return causal;
  const [left, right] = o.attContextPresets[0];
  const s = streamingKeyValues([left, right]);
  const kv: GgufKv[] = [
    { key: 'parakeet.encoder.att_context_left', value: gv.i32(left) },
    { key: 'parakeet.encoder.att_context_right', value: gv.i32(right) },
    { key: 'parakeet.encoder.att_context_style', value: gv.str(o.attContextStyle) },
    { key: 'parakeet.encoder.causal_downsampling', value: gv.bool(o.causalDownsampling) },
    { key: 'parakeet.encoder.conv_causal', value: gv.bool(o.convCausal) },
  ];
  if (o.attContextPresets.length > 1) {
    kv.push({ key: 'parakeet.encoder.att_context_presets', value: i32s(o.attContextPresets.flat()) });
  }
  kv.push(
    { key: 'parakeet.streaming.chunk_size', value: i32s(s.chunkSize) },
    { key: 'parakeet.streaming.shift_size', value: i32s(s.shiftSize) },
    { key: 'parakeet.streaming.cache_drop_size', value: gv.i32(s.cacheDropSize) },
    { key: 'parakeet.streaming.last_channel_cache_size', value: gv.i32(s.lastChannelCacheSize) },
    { key: 'parakeet.streaming.valid_out_len', value: gv.i32(s.validOutLen) },
    { key: 'parakeet.streaming.pre_encode_cache_size', value: i32s(s.preEncodeCacheSize) },
    { key: 'parakeet.streaming.drop_extra_pre_encoded', value: gv.i32(s.dropExtraPreEncoded) },
  );
  return kv;
}

/** Prompt-conditioned model keys (spec §1.2, Corrections 6). */
function promptKv(o: ModelOptions): GgufKv[] {
  const p = o.prompt;
  if (p === null) return [];
  return [
    { key: 'parakeet.prompt.present', value: gv.bool(true) },
    { key: 'parakeet.prompt.num_prompts', value: gv.u32(p.numPrompts) },
    { key: 'parakeet.prompt.default_lang', value: gv.str(p.defaultLang) },
    { key: 'parakeet.prompt.dictionary.keys', value: gv.arrStr(p.dictionary.map(([k]) => k)) },
    { key: 'parakeet.prompt.dictionary.values', value: i32s(p.dictionary.map(([, i]) => i)) },
  ];
}
