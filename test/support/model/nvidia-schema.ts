// Converts one of our parakeet.cpp-schema files into NVIDIA NeMo-Speech.cpp's GGUF schema, as that
// project's converter (conversion/asr.py) writes it from the same checkpoint: general.architecture
// "asr", asr.* keys, the LSTM renamed (weight_ih_l0 → ih_l0.weight), pointwise convs squeezed to 2-D,
// the mel filterbank as preprocessor.fb (n_mels × bins), no window tensor, encoder.pos_enc.pe stored,
// the SentencePiece model base64 in asr.tokenizer.spm_model, and its per-tensor storage policy.
// Facts from the converter only; the code is ours.
import { GgmlType } from '../gguf/types.js';
import { type GgufFile, readGguf, readTensorBytes, readTensorF32 } from '../gguf/reader.js';
import { quantize } from '../gguf/quantize.js';
import { gv } from '../gguf/values.js';
import { type GgufKv, type GgufTensorSource, writeGguf } from '../gguf/writer.js';
import { plainValue } from '../gguf/values.js';
import { kvBoolean, kvNumber, kvString } from '../gguf/kv-read.js';

/**
 * 'as-source': every tensor keeps its stored type and bytes (names and shapes change only), for
 * exact comparisons. Otherwise NeMo-Speech.cpp's `--weight-type`: linear weights in that type, conv
 * and embedding weights F16, everything else F32 (conversion/asr.py `_pick_dtype`).
 */
export type NvidiaWeightType = 'as-source' | 'f16' | 'bf16' | 'q8_0';

export interface NvidiaConversion {
  readonly weightType: NvidiaWeightType;
  /** Bytes for asr.tokenizer.spm_model (a real file holds the SentencePiece model proto); absent: key not written. */
  readonly sentencePiece?: Uint8Array;
  /** asr.encoder.q8_layout / qkv_q8_layout value (the converter writes 'block_q8_0' unless asked for the CUDA layout). */
  readonly q8Layout?: string;
  /** Leave preprocessor.fb out, as the converter does when librosa is missing. */
  readonly omitFilterbank?: boolean;
  /** KVs added after the converter's (or replacing one of the same key). */
  readonly extraKv?: readonly GgufKv[];
}

const LINEAR_WEIGHT = [
  /^encoder\.layers\.\d+\.self_attn\.linear_(q|k|v|pos|out)\.weight$/,
  /^encoder\.layers\.\d+\.feed_forward[12]\.linear[12]\.weight$/,
  /^encoder\.pre_encode\.out\.weight$/,
  /^decoder\.prediction\.dec_rnn\.lstm\.(ih|hh)_l\d+\.weight$/,
  /^joint\.(enc|pred)\.weight$/,
  /^joint\.joint_net\.2\.weight$/,
  /^encoder\.layers\.\d+\.conv\.pointwise_conv[12]\.weight$/,
];
const POINTWISE = /^encoder\.layers\.\d+\.conv\.pointwise_conv[12]\.weight$/;
const F16_ALWAYS = [/^encoder\.layers\.\d+\.conv\.depthwise_conv\.weight$/, /^encoder\.pre_encode\.conv\.\d+\.weight$/, /^decoder\.prediction\.embed\.weight$/];
const LSTM = /^(.*\.lstm)\.(weight|bias)_(ih|hh)_l(\d+)$/;

const LINEAR_TYPE: Readonly<Record<Exclude<NvidiaWeightType, 'as-source'>, GgmlType>> = {
  f16: GgmlType.F16,
  bf16: GgmlType.BF16,
  q8_0: GgmlType.Q8_0,
};

/** NeMo-Speech.cpp's name for a tensor of the parakeet.cpp schema (the state_dict name, LSTM renamed). */
export function nvidiaTensorName(name: string): string {
  const m = LSTM.exec(name);
  return m ? `${m[1]}.${m[3]}_l${m[4]}.${m[2]}` : name;
}

/** The stored type of `name` (an engine/NeMo name) under the converter's policy; `stored` for 'as-source'. */
export function nvidiaStorageType(name: string, weightType: NvidiaWeightType, stored: GgmlType): GgmlType {
  if (weightType === 'as-source') return stored;
  const renamed = nvidiaTensorName(name);
  if (LINEAR_WEIGHT.some((p) => p.test(renamed))) return LINEAR_TYPE[weightType];
  if (F16_ALWAYS.some((p) => p.test(renamed))) return GgmlType.F16;
  return GgmlType.F32;
}

/** Pointwise convs are stored 2-D ([in, out] in ggml order): the converter squeezes their k = 1 axis. */
export function nvidiaShape(name: string, ne: readonly number[]): number[] {
  return POINTWISE.test(name) && ne[0] === 1 ? ne.slice(1) : [...ne];
}

/** The bytes of `name` from `src` stored as `type` (the source's bytes when the type is unchanged). */
export function storedAs(src: GgufFile, name: string, type: GgmlType): Uint8Array {
  const info = src.tensors.get(name);
  if (info?.type === type) return readTensorBytes(src, name);
  return quantize(type, readTensorF32(src, name));
}

/** NeMo RelPositionalEncoding's table as the converter's build_pe writes it: positions max_len−1 … −(max_len−1). */
export function positionTable(dModel: number, maxLen: number): Uint8Array {
  const rows = 2 * maxLen - 1;
  const pe = new Float32Array(rows * dModel);
  for (let r = 0; r < rows; r++) {
    const position = maxLen - 1 - r;
    for (let i = 0; i < dModel; i += 2) {
      const angle = position * Math.exp(i * -(Math.log(10000) / dModel));
      pe[r * dModel + i] = Math.sin(angle);
      pe[r * dModel + i + 1] = Math.cos(angle);
    }
  }
  return new Uint8Array(pe.buffer);
}

/** The converter's keys for the model in `src`. */
function nvidiaKv(src: GgufFile, conv: NvidiaConversion): GgufKv[] {
  const arch = kvString(src, 'parakeet.arch', 'ctc');
  const head = arch === 'ctc' ? 'ctc' : arch.includes('tdt') ? 'tdt' : 'rnnt';
  const pieces = plainValue(src.kv.get('parakeet.tokenizer.pieces') ?? gv.arrStr([])) as string[];
  const vocab = pieces.length;
  const sampleRate = kvNumber(src, 'parakeet.preprocessor.sample_rate', 16000);
  const fileType: Readonly<Record<NvidiaWeightType, number>> = { 'as-source': 0, f16: 1, bf16: 32, q8_0: 7 };
  const layout = conv.q8Layout ?? 'block_q8_0';
  const kv: GgufKv[] = [
    { key: 'general.architecture', value: gv.str('asr') },
    { key: 'general.name', value: gv.str(kvString(src, 'general.name', 'model')) },
    { key: 'asr.head_type', value: gv.str(head) },
    { key: 'general.file_type', value: gv.u32(fileType[conv.weightType]) },
    { key: 'asr.encoder.d_model', value: gv.u32(kvNumber(src, 'parakeet.encoder.d_model', 0)) },
    { key: 'asr.encoder.n_layers', value: gv.u32(kvNumber(src, 'parakeet.encoder.n_layers', 0)) },
    { key: 'asr.encoder.n_heads', value: gv.u32(kvNumber(src, 'parakeet.encoder.n_heads', 0)) },
    { key: 'asr.encoder.d_ff', value: gv.u32(kvNumber(src, 'parakeet.encoder.ff_dim', 0)) },
    { key: 'asr.encoder.conv_kernel_size', value: gv.u32(kvNumber(src, 'parakeet.encoder.conv_kernel', 9)) },
    { key: 'asr.encoder.subsampling_factor', value: gv.u32(kvNumber(src, 'parakeet.encoder.subsampling_factor', 8)) },
    { key: 'asr.encoder.subsampling_conv_channels', value: gv.u32(kvNumber(src, 'parakeet.encoder.subsampling_conv_channels', 256)) },
    { key: 'asr.encoder.feat_in', value: gv.u32(kvNumber(src, 'parakeet.encoder.feat_in', 80)) },
    { key: 'asr.encoder.xscaling', value: gv.bool(kvBoolean(src, 'parakeet.encoder.xscaling', true)) },
    { key: 'asr.encoder.use_bias', value: gv.bool(kvBoolean(src, 'parakeet.encoder.use_bias', true)) },
    { key: 'asr.encoder.q8_layout', value: gv.str(layout) },
    { key: 'asr.encoder.qkv_q8_layout', value: gv.str(layout) },
    { key: 'asr.encoder.pos_emb_max_len', value: gv.u32(kvNumber(src, 'parakeet.encoder.pos_emb_max_len', 5000)) },
    { key: 'asr.encoder.cache_supported', value: gv.bool(false) },
    { key: 'asr.encoder.train_left_ctx', value: gv.u32(0) },
    { key: 'asr.encoder.train_right_ctx', value: gv.u32(0) },
    { key: 'asr.encoder.offline_left_ctx', value: gv.i32(kvNumber(src, 'parakeet.encoder.att_context_left', -1)) },
    { key: 'asr.encoder.offline_right_ctx', value: gv.i32(kvNumber(src, 'parakeet.encoder.att_context_right', -1)) },
    { key: 'asr.encoder.conv_norm', value: gv.str(kvString(src, 'parakeet.encoder.conv_norm_type', 'batch_norm')) },
    { key: 'asr.encoder.conv_context', value: gv.str(kvBoolean(src, 'parakeet.encoder.conv_causal', false) ? 'causal' : 'symmetric') },
    { key: 'asr.encoder.att_context_style', value: gv.str(kvString(src, 'parakeet.encoder.att_context_style', 'regular')) },
    { key: 'asr.preprocessor.sample_rate', value: gv.u32(sampleRate) },
    { key: 'asr.preprocessor.window_size', value: gv.f32(kvNumber(src, 'parakeet.preprocessor.win_length', 400) / sampleRate) },
    { key: 'asr.preprocessor.window_stride', value: gv.f32(kvNumber(src, 'parakeet.preprocessor.hop_length', 160) / sampleRate) },
    { key: 'asr.preprocessor.n_fft', value: gv.u32(kvNumber(src, 'parakeet.preprocessor.n_fft', 512)) },
    { key: 'asr.preprocessor.features', value: gv.u32(kvNumber(src, 'parakeet.preprocessor.n_mels', 80)) },
    { key: 'asr.preprocessor.normalize', value: gv.str(kvString(src, 'parakeet.preprocessor.normalize', 'per_feature')) },
    { key: 'asr.preprocessor.preemph', value: gv.f32(kvNumber(src, 'parakeet.preprocessor.preemph', 0.97)) },
    { key: 'asr.preprocessor.dither', value: gv.f32(1e-5) },
    { key: 'asr.preprocessor.stft_center_window', value: gv.bool(true) },
    { key: 'asr.preprocessor.hann_periodic', value: gv.bool(false) },
    { key: 'asr.preprocessor.mask_invalid_frames', value: gv.bool(true) },
  ];
  if (head === 'ctc') {
    kv.push({ key: 'asr.ctc.num_classes', value: gv.u32(vocab) }, { key: 'asr.ctc.blank_id', value: gv.u32(vocab) });
  } else {
    const predHidden = kvNumber(src, 'parakeet.decoder.pred_hidden', 640);
    kv.push(
      { key: 'asr.rnnt.vocab_size', value: gv.u32(vocab + 1) },
      { key: 'asr.rnnt.blank_id', value: gv.u32(vocab) },
      { key: 'asr.rnnt.pred_embed_dim', value: gv.u32(predHidden) },
      { key: 'asr.rnnt.pred_hidden', value: gv.u32(predHidden) },
      { key: 'asr.rnnt.pred_num_layers', value: gv.u32(kvNumber(src, 'parakeet.decoder.pred_rnn_layers', 1)) },
      { key: 'asr.rnnt.joint_dim', value: gv.u32(kvNumber(src, 'parakeet.joint.joint_hidden', 640)) },
      { key: 'asr.rnnt.max_symbols_per_step', value: gv.u32(kvNumber(src, 'parakeet.decoding.max_symbols', 10)) },
      { key: 'asr.rnnt.num_prompts', value: gv.u32(0) },
    );
    const durations = src.kv.get('parakeet.tdt.durations');
    if (head === 'tdt' && durations) kv.push({ key: 'asr.tdt.durations', value: durations });
  }
  kv.push({ key: 'asr.tokenizer.type', value: gv.str('sentencepiece_bpe') }, { key: 'asr.tokenizer.vocab', value: gv.arrStr(pieces) });
  if (conv.sentencePiece) kv.push({ key: 'asr.tokenizer.spm_model', value: gv.str(Buffer.from(conv.sentencePiece).toString('base64')) });
  for (const extra of conv.extraKv ?? []) {
    const at = kv.findIndex((e) => e.key === extra.key);
    if (at >= 0) kv[at] = extra;
    else kv.push(extra);
  }
  return kv;
}

/** The converter's tensors for the model in `src`: pe, fb, then the state_dict in order. */
function nvidiaTensors(src: GgufFile, conv: NvidiaConversion): GgufTensorSource[] {
  const dModel = kvNumber(src, 'parakeet.encoder.d_model', 0);
  const maxLen = kvNumber(src, 'parakeet.encoder.pos_emb_max_len', 5000);
  const out: GgufTensorSource[] = [{ name: 'encoder.pos_enc.pe', ne: [dModel, 2 * maxLen - 1], type: GgmlType.F32, data: () => positionTable(dModel, maxLen) }];
  const fb = src.tensors.get('preprocessor.featurizer.fb');
  if (fb && !conv.omitFilterbank) {
    out.push({ name: 'preprocessor.fb', ne: fb.ne.slice(0, 2), type: GgmlType.F32, data: () => storedAs(src, fb.name, GgmlType.F32) });
  }
  for (const t of src.tensors.values()) {
    if (t.name.startsWith('preprocessor.')) continue;
    const type = nvidiaStorageType(t.name, conv.weightType, t.type);
    out.push({ name: nvidiaTensorName(t.name), ne: nvidiaShape(t.name, t.ne), type, data: () => storedAs(src, t.name, type) });
  }
  return out;
}

/** Writes `dst`: the model of the parakeet.cpp-schema file `srcPath` in NeMo-Speech.cpp's schema. */
export function writeNvidiaSchema(srcPath: string, dst: string, conv: NvidiaConversion): void {
  const src = readGguf(srcPath);
  writeGguf(dst, nvidiaKv(src, conv), nvidiaTensors(src, conv));
}

/**
 * Writes `dst`: the same parakeet.cpp-schema file with each tensor stored as NeMo-Speech.cpp's
 * converter would store it for `weightType` (pointwise convs 2-D) — the parakeet.cpp twin of
 * writeNvidiaSchema(src, …, { weightType }), holding the same bytes under the other schema's names.
 */
export function writeWithNvidiaStorage(srcPath: string, dst: string, weightType: NvidiaWeightType): void {
  const src = readGguf(srcPath);
  const kv: GgufKv[] = [...src.kv.entries()].map(([key, value]) => ({ key, value }));
  const tensors: GgufTensorSource[] = [...src.tensors.values()].map((t) => {
    const type = t.name.startsWith('preprocessor.') ? t.type : nvidiaStorageType(t.name, weightType, t.type);
    return { name: t.name, ne: nvidiaShape(t.name, t.ne), type, data: () => storedAs(src, t.name, type) };
  });
  writeGguf(dst, kv, tensors);
}
