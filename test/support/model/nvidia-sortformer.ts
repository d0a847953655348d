// Converts one of our parakeet.cpp-schema Sortformer diarizers into NVIDIA NeMo-Speech.cpp's diarizer
// schema, as that project's converter (conversion/diarization.py) writes it from the same checkpoint:
// general.architecture "sortformer", sortformer.encoder.* / .preprocessor.* / .transformer.* /
// .scoring.* / .streaming.* keys, sortformer_modules.encoder_proj → encoder_proj, the sigmoid head →
// head.*, transformer_encoder → transformer (out_projection under NeMo's own name), pointwise convs
// squeezed to 2-D, the filterbank as preprocessor.fb, no window, encoder.pos_enc.pe stored. Every tensor
// keeps its stored type (exact comparisons). Facts from the converter only; the code is ours.
import { GgmlType } from '../gguf/types.js';
import { readGguf } from '../gguf/reader.js';
import { gv } from '../gguf/values.js';
import { type GgufKv, type GgufTensorSource, writeGguf } from '../gguf/writer.js';
import { kvBoolean, kvNumber, kvString } from '../gguf/kv-read.js';
import type { GgufFile } from '../gguf/reader.js';
import { nvidiaShape, positionTable, storedAs } from './nvidia-schema.js';

/** NeMo-Speech.cpp's name for a tensor of a parakeet.cpp diarizer (null: the converter leaves it out). */
export function nvidiaSortformerName(name: string): string | null {
  if (name.startsWith('preprocessor.')) return null;
  if (name.startsWith('sortformer_modules.encoder_proj.')) return name.replace('sortformer_modules.', '');
  if (name.startsWith('sortformer_modules.')) return name.replace('sortformer_modules.', 'head.');
  if (name.startsWith('transformer_encoder.')) return name.replace('transformer_encoder.', 'transformer.').replace('.out_proj.', '.out_projection.');
  return name;
}

function sortformerKv(src: GgufFile, extra: readonly GgufKv[]): GgufKv[] {
  const n = (key: string, fallback: number): number => kvNumber(src, key, fallback);
  const sampleRate = n('parakeet.preprocessor.sample_rate', 16000);
  let tfLayers = 0;
  while (src.tensors.has(`transformer_encoder.layers.${tfLayers}.layer_norm_1.weight`)) tfLayers++;
  const inner = src.tensors.get('transformer_encoder.layers.0.second_sub_layer.dense_in.weight')?.ne[1] ?? 0;
  const kv: GgufKv[] = [
    { key: 'general.architecture', value: gv.str('sortformer') },
    { key: 'general.name', value: gv.str(kvString(src, 'general.name', 'sortformer')) },
    { key: 'general.file_type', value: gv.u32(0) },
    { key: 'sortformer.encoder.d_model', value: gv.u32(n('parakeet.encoder.d_model', 0)) },
    { key: 'sortformer.encoder.n_layers', value: gv.u32(n('parakeet.encoder.n_layers', 0)) },
    { key: 'sortformer.encoder.n_heads', value: gv.u32(n('parakeet.encoder.n_heads', 0)) },
    { key: 'sortformer.encoder.d_ff', value: gv.u32(n('parakeet.encoder.ff_dim', 0)) },
    { key: 'sortformer.encoder.conv_kernel_size', value: gv.u32(n('parakeet.encoder.conv_kernel', 9)) },
    { key: 'sortformer.encoder.subsampling_factor', value: gv.u32(n('parakeet.encoder.subsampling_factor', 8)) },
    { key: 'sortformer.encoder.subsampling_conv_channels', value: gv.u32(n('parakeet.encoder.subsampling_conv_channels', 256)) },
    { key: 'sortformer.encoder.feat_in', value: gv.u32(n('parakeet.encoder.feat_in', 80)) },
    { key: 'sortformer.encoder.xscaling', value: gv.bool(kvBoolean(src, 'parakeet.encoder.xscaling', true)) },
    { key: 'sortformer.encoder.use_bias', value: gv.bool(kvBoolean(src, 'parakeet.encoder.use_bias', true)) },
    { key: 'sortformer.encoder.pos_emb_max_len', value: gv.u32(n('parakeet.encoder.pos_emb_max_len', 5000)) },
    { key: 'sortformer.encoder.conv_norm', value: gv.str(kvString(src, 'parakeet.encoder.conv_norm_type', 'batch_norm')) },
    { key: 'sortformer.encoder.conv_context', value: gv.str('symmetric') },
    { key: 'sortformer.encoder.att_context_style', value: gv.str(kvString(src, 'parakeet.encoder.att_context_style', 'regular')) },
    { key: 'sortformer.transformer.n_layers', value: gv.u32(tfLayers) },
    { key: 'sortformer.transformer.hidden_size', value: gv.u32(n('parakeet.diar.tf_d_model', 192)) },
    { key: 'sortformer.transformer.inner_size', value: gv.u32(inner) },
    { key: 'sortformer.transformer.n_heads', value: gv.u32(n('parakeet.diar.tf_n_heads', 8)) },
    { key: 'sortformer.transformer.pre_ln', value: gv.bool(false) },
    { key: 'sortformer.num_speakers', value: gv.u32(n('parakeet.diar.n_speakers', 4)) },
    { key: 'sortformer.preprocessor.sample_rate', value: gv.u32(sampleRate) },
    { key: 'sortformer.preprocessor.window_size', value: gv.f32(n('parakeet.preprocessor.win_length', 400) / sampleRate) },
    { key: 'sortformer.preprocessor.window_stride', value: gv.f32(n('parakeet.preprocessor.hop_length', 160) / sampleRate) },
    { key: 'sortformer.preprocessor.n_fft', value: gv.u32(n('parakeet.preprocessor.n_fft', 512)) },
    { key: 'sortformer.preprocessor.features', value: gv.u32(n('parakeet.preprocessor.n_mels', 80)) },
    { key: 'sortformer.preprocessor.normalize', value: gv.str(kvString(src, 'parakeet.preprocessor.normalize', 'NA')) },
    { key: 'sortformer.preprocessor.preemph', value: gv.f32(n('parakeet.preprocessor.preemph', 0.97)) },
    { key: 'sortformer.preprocessor.dither', value: gv.f32(1e-5) },
    { key: 'sortformer.preprocessor.log_zero_guard', value: gv.f32(2 ** -24) },
    { key: 'sortformer.scoring.spkcache_sil_frames_per_spk', value: gv.u32(n('parakeet.diar.spkcache_sil_frames_per_spk', 3)) },
  ];
  for (const key of ['pred_score_threshold', 'scores_boost_latest', 'sil_threshold', 'strong_boost_rate', 'weak_boost_rate', 'min_pos_scores_rate']) {
    kv.push({ key: `sortformer.scoring.${key}`, value: gv.f32(n(`parakeet.diar.${key}`, 0)) });
  }
  for (const key of ['spkcache_len', 'fifo_len', 'chunk_len', 'spkcache_update_period', 'chunk_left_context', 'chunk_right_context']) {
    kv.push({ key: `sortformer.streaming.${key}`, value: gv.u32(n(`parakeet.diar.${key}`, 0)) });
  }
  for (const e of extra) {
    const at = kv.findIndex((k) => k.key === e.key);
    if (at >= 0) kv[at] = e;
    else kv.push(e);
  }
  return kv;
}

/** Writes `dst`: the diarizer of the parakeet.cpp-schema file `srcPath` in NeMo-Speech.cpp's schema (`extraKv` replace or add keys). */
export function writeNvidiaSortformer(srcPath: string, dst: string, extraKv: readonly GgufKv[] = []): void {
  const src = readGguf(srcPath);
  const dModel = kvNumber(src, 'parakeet.encoder.d_model', 0);
  const maxLen = kvNumber(src, 'parakeet.encoder.pos_emb_max_len', 5000);
  const tensors: GgufTensorSource[] = [{ name: 'encoder.pos_enc.pe', ne: [dModel, 2 * maxLen - 1], type: GgmlType.F32, data: () => positionTable(dModel, maxLen) }];
  const fb = src.tensors.get('preprocessor.featurizer.fb');
  if (fb) tensors.push({ name: 'preprocessor.fb', ne: fb.ne.slice(0, 2), type: GgmlType.F32, data: () => storedAs(src, fb.name, GgmlType.F32) });
  for (const t of src.tensors.values()) {
    const name = nvidiaSortformerName(t.name);
    if (name === null) continue;
    tensors.push({ name, ne: nvidiaShape(t.name, t.ne), type: t.type, data: () => storedAs(src, t.name, t.type) });
  }
  writeGguf(dst, sortformerKv(src, extraKv), tensors);
}
