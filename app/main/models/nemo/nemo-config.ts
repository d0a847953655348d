// NeMo's model_config.yaml → the parakeet.cpp GGUF keys, as parakeet.cpp's converter maps them (spec
// §1.2–1.3): preprocessor (window seconds → samples), encoder (ff_expansion_factor · d_model,
// subsampling_conv_channels −1 → d_model), heads (aux_ctc + ctc_decoder tensors → hybrid; joint →
// tdt when decoding.durations or joint.num_extra_outputs, else rnnt; else ctc). Models the engine
// cannot run — diarization, other encoders, other subsampling or attention — are refused by name.
import type { GgufOutValue } from './gguf-out.js';
import { NemoFormatError } from './file-range.js';
import type { YamlValue } from './config-yaml.js';

type Section = { readonly [key: string]: YamlValue };

function section(value: YamlValue | undefined): Section {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new NemoFormatError('model_config.yaml: a section is not a mapping');
  const params = (value as Section).params;
  return params && typeof params === 'object' && !Array.isArray(params) ? (params as Section) : (value as Section);
}

function num(s: Section, key: string, fallback: number): number {
  const v = s[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new NemoFormatError(`model_config.yaml: ${key} = ${JSON.stringify(v)} is not a number`);
  return v;
}

function text(s: Section, key: string, fallback: string): string {
  const v = s[key];
  return v === undefined || v === null ? fallback : String(v);
}

function flag(s: Section, key: string, fallback: boolean): boolean {
  const v = s[key];
  return typeof v === 'boolean' ? v : fallback;
}

function target(s: Section): string {
  return text(s, '_target_', text(s, 'target', ''));
}

export interface NemoModelPlan {
  readonly kv: [string, GgufOutValue][];
  readonly arch: string;
  /** The SentencePiece model's member name inside the .nemo (config tokenizer.model without "nemo:"). */
  readonly tokenizerModel: string;
}

const u32 = (value: number): GgufOutValue => ({ type: 'u32', value });
const str = (value: string): GgufOutValue => ({ type: 'str', value });

/** Refuses what the engine does not run, naming it. */
function refuseUnsupported(cfg: Section, encoder: Section): void {
  const all = [target(cfg), target(encoder), text(cfg, 'name', '')].join(' ');
  const what = target(cfg) || text(cfg, 'name', '?');
  if (/sortformer|diar/i.test(all)) {
    throw new NemoFormatError(
      `this .nemo is a speaker-diarization model (${what}): it says who speaks when, not what is said, and this importer converts ` +
        "speech-recognition checkpoints only; convert it with parakeet.cpp's converter, which writes Sortformer checkpoints as a diarization GGUF",
    );
  }
  if (/speaker|label/i.test(all)) {
    throw new NemoFormatError(`this .nemo is a speaker or classification model (${what}), not speech recognition; import a Parakeet ASR checkpoint`);
  }
  if (!/ConformerEncoder$/.test(target(encoder))) {
    throw new NemoFormatError(`the encoder is ${JSON.stringify(target(encoder) || 'unnamed')}, not NeMo's ConformerEncoder: only FastConformer (Parakeet) models can be imported`);
  }
  const subsampling = text(encoder, 'subsampling', 'dw_striding');
  if (subsampling !== 'dw_striding') throw new NemoFormatError(`encoder.subsampling = ${subsampling}: only FastConformer's dw_striding subsampling is supported`);
  const attention = text(encoder, 'self_attention_model', 'rel_pos');
  if (attention !== 'rel_pos') throw new NemoFormatError(`encoder.self_attention_model = ${attention}: only rel_pos attention is supported`);
  if (section(cfg.model_defaults).num_prompts) throw new NemoFormatError('a prompt-conditioned model (model_defaults.num_prompts): not supported yet');
}

/** The engine's parakeet.arch from the config and which head tensors the checkpoint has. */
function archOf(cfg: Section, hasCtcDecoder: boolean, durations: readonly number[]): string {
  const decoding = section(cfg.decoding);
  const tdt = durations.length > 0 || num(section(cfg.joint), 'num_extra_outputs', 0) > 0 || text(section(cfg.loss), 'loss_name', '') === 'tdt';
  if (cfg.aux_ctc !== undefined && hasCtcDecoder) return tdt ? 'hybrid_tdt_ctc' : 'hybrid_rnnt_ctc';
  if (cfg.joint !== undefined) return tdt || (Array.isArray(decoding.durations) && decoding.durations.length > 0) ? 'tdt' : 'rnnt';
  return 'ctc';
}

export function planNemoModel(config: YamlValue, pieces: readonly string[], tensorNames: ReadonlySet<string>): NemoModelPlan {
  const cfg = section(config);
  const encoder = section(cfg.encoder);
  refuseUnsupported(cfg, encoder);
  const pre = section(cfg.preprocessor);
  const decoding = section(cfg.decoding);
  const durationsRaw = Array.isArray(decoding.durations) ? decoding.durations : section(cfg.model_defaults).tdt_durations;
  const durations = Array.isArray(durationsRaw) ? durationsRaw.map((d) => Number(d)) : [];
  const arch = archOf(cfg, tensorNames.has('ctc_decoder.decoder_layers.0.weight'), durations);
  const dModel = num(encoder, 'd_model', 0);
  const sampleRate = num(pre, 'sample_rate', 16000);
  const channels = num(encoder, 'subsampling_conv_channels', -1);
  const context = Array.isArray(encoder.att_context_size) ? encoder.att_context_size : [-1, -1];
  const first = Array.isArray(context[0]) ? (context[0] as YamlValue[]) : context;
  const style = text(encoder, 'att_context_style', 'regular');
  const kv: [string, GgufOutValue][] = [
    ['general.architecture', str('parakeet')],
    ['general.name', str(text(cfg, 'name', 'imported'))],
    ['parakeet.arch', str(arch)],
    ['parakeet.encoder.feat_in', u32(num(encoder, 'feat_in', 80))],
    ['parakeet.encoder.d_model', u32(dModel)],
    ['parakeet.encoder.n_layers', u32(num(encoder, 'n_layers', 0))],
    ['parakeet.encoder.n_heads', u32(num(encoder, 'n_heads', 8))],
    ['parakeet.encoder.ff_dim', u32(dModel * num(encoder, 'ff_expansion_factor', 4))],
    ['parakeet.encoder.conv_kernel', u32(num(encoder, 'conv_kernel_size', 31))],
    ['parakeet.encoder.conv_norm_type', str(text(encoder, 'conv_norm_type', 'batch_norm'))],
    ['parakeet.encoder.subsampling_factor', u32(num(encoder, 'subsampling_factor', 4))],
    ['parakeet.encoder.subsampling_conv_channels', u32(channels === -1 ? dModel : channels)],
    ['parakeet.encoder.xscaling', { type: 'bool', value: flag(encoder, 'xscaling', true) }],
    ['parakeet.encoder.pos_emb_max_len', u32(num(encoder, 'pos_emb_max_len', 5000))],
    ['parakeet.encoder.use_bias', { type: 'bool', value: flag(encoder, 'use_bias', true) }],
    ['parakeet.preprocessor.sample_rate', u32(sampleRate)],
    ['parakeet.preprocessor.n_mels', u32(num(pre, 'features', 64))],
    ['parakeet.preprocessor.n_fft', u32(num(pre, 'n_fft', 512))],
    ['parakeet.preprocessor.win_length', u32(Math.round(num(pre, 'window_size', 0.02) * sampleRate))],
    ['parakeet.preprocessor.hop_length', u32(Math.round(num(pre, 'window_stride', 0.01) * sampleRate))],
    ['parakeet.preprocessor.preemph', { type: 'f32', value: num(pre, 'preemph', 0.97) }],
    ['parakeet.preprocessor.mag_power', { type: 'f32', value: num(pre, 'mag_power', 2) }],
    ['parakeet.preprocessor.normalize', str(text(pre, 'normalize', 'per_feature'))],
    ['parakeet.preprocessor.log_zero_guard', { type: 'f32', value: num(pre, 'log_zero_guard_value', 2 ** -24) }],
    ['parakeet.vocab_size', u32(pieces.length)],
    ['parakeet.blank_id', u32(pieces.length)],
    ['parakeet.tokenizer.pieces', { type: 'str[]', value: pieces }],
  ];
  if (style !== 'regular') {
    kv.push(
      ['parakeet.encoder.att_context_left', { type: 'i32', value: Number(first[0]) }],
      ['parakeet.encoder.att_context_right', { type: 'i32', value: Number(first[1]) }],
      ['parakeet.encoder.att_context_style', str(style)],
      ['parakeet.encoder.causal_downsampling', { type: 'bool', value: flag(encoder, 'causal_downsampling', false) }],
      ['parakeet.encoder.conv_causal', { type: 'bool', value: text(encoder, 'conv_context_size', '') === 'causal' }],
    );
  }
  if (arch !== 'ctc') {
    const prednet = section(section(cfg.decoder).prednet);
    const jointnet = section(section(cfg.joint).jointnet);
    kv.push(
      ['parakeet.decoder.pred_hidden', u32(num(prednet, 'pred_hidden', 640))],
      ['parakeet.decoder.pred_rnn_layers', u32(num(prednet, 'pred_rnn_layers', 1))],
      ['parakeet.joint.joint_hidden', u32(num(jointnet, 'joint_hidden', 640))],
      ['parakeet.joint.activation', str(text(jointnet, 'activation', 'relu'))],
      ['parakeet.decoding.max_symbols', u32(num(section(decoding.greedy), 'max_symbols', 10))],
    );
    if (arch.includes('tdt')) kv.push(['parakeet.tdt.durations', { type: 'i32[]', value: durations }]);
  }
  const tokenizer = section(cfg.tokenizer);
  const model = text(tokenizer, 'model', '').replace(/^nemo:/, '');
  return { kv, arch, tokenizerModel: model.split('/').pop() ?? '' };
}
