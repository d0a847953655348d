// Files of other projects that users bring labelled "Parakeet", written from their published layouts
// (magic numbers and key names only; no weights): the engine must name each one and say what to use.
// The GGUF ones start from a real random Parakeet model of ours where the dialect is a variant of it
// (diarization, VAD slice, ternary), so only the marker that makes it foreign differs.
import { writeFileSync } from 'node:fs';
import { GgmlType } from '../gguf/types.js';
import { gv } from '../gguf/values.js';
import { type GgufKv, writeGguf } from '../gguf/writer.js';
import { buildModelSpec, writeModelSpec } from './generate.js';

export type ForeignKind =
  | 'whisper-cpp-bin'
  | 'transcribe-cpp-stt'
  | 'crispasr-flat'
  | 'diarization'
  | 'vad-only-slice'
  | 'ternary-redux'
  | 'language-model'
  | 'unknown-architecture';

export const FOREIGN_KINDS: readonly ForeignKind[] = [
  'whisper-cpp-bin', 'transcribe-cpp-stt', 'crispasr-flat', 'diarization', 'vad-only-slice', 'ternary-redux', 'language-model',
  'unknown-architecture',
];

/** A small F32 tensor, so the GGUF has a data section like a real file. */
function smallTensor(name: string): { name: string; ne: number[]; type: GgmlType; data: Uint8Array } {
  return { name, ne: [8], type: GgmlType.F32, data: new Uint8Array(32) };
}

/** whisper.cpp's legacy container: uint32 magic 'ggml' (0x67676d6c, little-endian) and its hparams ints. */
function writeWhisperCppBin(path: string): void {
  const header = new DataView(new ArrayBuffer(4 + 11 * 4));
  header.setUint32(0, 0x67676d6c, true);
  const hparams = [51865, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1]; // n_vocab, n_audio_ctx, … ftype
  hparams.forEach((v, i) => header.setInt32(4 + i * 4, v, true));
  writeFileSync(path, new Uint8Array(header.buffer));
}

function writeGgufWithKv(path: string, kv: GgufKv[]): void {
  writeGguf(path, kv, [smallTensor('encoder.layers.0.norm_out.weight')]);
}

/** Writes a file of `kind` at `path`. */
export function writeForeignModel(path: string, kind: ForeignKind): void {
  switch (kind) {
    case 'whisper-cpp-bin':
      return writeWhisperCppBin(path);
    case 'transcribe-cpp-stt':
      return writeGgufWithKv(path, [
        { key: 'general.architecture', value: gv.str('parakeet') },
        { key: 'stt.model_type', value: gv.str('parakeet-tdt') },
        { key: 'stt.encoder.d_model', value: gv.u32(1024) },
      ]);
    case 'crispasr-flat':
      return writeGgufWithKv(path, [
        { key: 'general.architecture', value: gv.str('parakeet') },
        { key: 'parakeet.d_model', value: gv.u32(1024) },
        { key: 'parakeet.n_layers', value: gv.u32(24) },
        { key: 'parakeet.vocab_size', value: gv.u32(8192) },
      ]);
    case 'diarization':
      return variantOfOurs(path, [{ key: 'parakeet.arch', value: gv.str('diarization') }]);
    case 'vad-only-slice':
      return variantOfOurs(path, [
        { key: 'parakeet.arch', value: gv.str('vad') },
        { key: 'parakeet.vad_only.parent_arch', value: gv.str('hybrid_tdt_ctc') },
      ]);
    case 'ternary-redux':
      return variantOfOurs(path, [
        { key: 'parakeet.ternary.present', value: gv.bool(true) },
        { key: 'parakeet.ternary.group_size', value: gv.u32(128) },
      ]);
    case 'language-model':
      return writeGgufWithKv(path, [{ key: 'general.architecture', value: gv.str('llama') }]);
    case 'unknown-architecture':
      return writeGgufWithKv(path, [{ key: 'general.architecture', value: gv.str('conformer-x') }]);
  }
}

/** A tiny random Parakeet model of ours with `extra` keys added or replacing ours. */
function variantOfOurs(path: string, extra: GgufKv[]): void {
  writeModelSpec(path, buildModelSpec({ preset: 'tiny', arch: 'ctc', extraKv: extra }));
}

/**
 * `plain`: a tiny model of ours; `withHead`: the same model with a Moondream-style VAD head added
 * (parakeet.vad.* keys and vad_head.* tensors, as Ultra/Redux files carry beside the ASR weights).
 */
export function writeAsrWithVadHead(plain: string, withHead: string): void {
  const options = { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 11 } as const;
  writeModelSpec(plain, buildModelSpec(options));
  const spec = buildModelSpec({
    ...options,
    extraKv: [
      { key: 'parakeet.vad.present', value: gv.bool(true) },
      { key: 'parakeet.vad.d_in', value: gv.u32(64) },
      { key: 'parakeet.vad.hidden', value: gv.u32(32) },
      { key: 'parakeet.vad.kernel', value: gv.u32(3) },
      { key: 'parakeet.vad.frame_sec', value: gv.f32(0.08) },
    ],
  });
  const head = [
    { name: 'vad_head.conv.weight', ne: [3, 64, 32], allowlisted: false, init: { kind: 'uniform', lo: -0.1, hi: 0.1 } as const, type: GgmlType.F32 },
    { name: 'vad_head.out.weight', ne: [32, 1], allowlisted: false, init: { kind: 'uniform', lo: -0.1, hi: 0.1 } as const, type: GgmlType.F32 },
  ];
  writeModelSpec(withHead, { ...spec, tensors: [...spec.tensors, ...head] });
}
