// Deliberately broken model files for loader tests. Each case names the error
// code and a substring the engine's message must contain. The substrings follow
// the engine's wording in native/engine/io (gguf_file.cpp, model_schema.cpp): a key
// or tensor name where one is at fault, else a phrase such as 'not a GGUF file'.
// Engine messages start with the file path, so write the cases to neutral file
// names (the expectations are chosen not to match such names by accident).
import { openSync, closeSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { ByteWriter } from '../gguf/encode.js';
import { GgufValueType } from '../gguf/types.js';
import { gv } from '../gguf/values.js';
import type { GgufKv, GgufLayout } from '../gguf/writer.js';
import { type ModelSpec, buildModelSpec, writeModelSpec } from './generate.js';
import type { ModelOptionsInput } from './options.js';
import { Rng } from './rng.js';

export interface MalformedCase {
  readonly name: string;
  readonly expectedCode: 'MODEL_INVALID';
  readonly expectedMessageIncludes: string;
  /** What is wrong, for test titles and failure messages. */
  readonly description: string;
  write(path: string): void;
}

/** Small valid base: tiny hybrid TDT+CTC, F32, fixed seed. */
export const MALFORMED_BASE: ModelOptionsInput = { preset: 'tiny', arch: 'hybrid_tdt_ctc', weightType: 'f32', seed: 99, label: 'malformed-base' };

function baseSpec(extra: ModelOptionsInput = {}): ModelSpec {
  return buildModelSpec({ ...MALFORMED_BASE, ...extra });
}

function setKv(spec: ModelSpec, kv: GgufKv): ModelSpec {
  const list = spec.kv.filter((e) => e.key !== kv.key);
  const i = spec.kv.findIndex((e) => e.key === kv.key);
  list.splice(i < 0 ? list.length : i, 0, kv);
  return { ...spec, kv: list };
}

function dropTensors(spec: ModelSpec, pred: (name: string) => boolean): ModelSpec {
  return { ...spec, tensors: spec.tensors.filter((t) => !pred(t.name)) };
}

function reshape(spec: ModelSpec, name: string, ne: number[]): ModelSpec {
  if (!spec.tensors.some((t) => t.name === name)) throw new Error(`malformed: no tensor ${name}`);
  // Values for the wrong shape: the tensor's own init may only fit the right one.
  const init = { kind: 'uniform', lo: -0.1, hi: 0.1 } as const;
  return { ...spec, tensors: spec.tensors.map((t) => (t.name === name ? { ...t, ne, init } : t)) };
}

/** Write a valid base model, then cut the file to `cut(layout)` bytes. */
function writeTruncated(path: string, cut: (l: GgufLayout) => number): void {
  const layout = writeModelSpec(path, baseSpec());
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, cut(layout));
  } finally {
    closeSync(fd);
  }
}

/** Write a valid base model, then overwrite bytes at an absolute offset. */
function writePatched(path: string, spec: ModelSpec, patch: (l: GgufLayout) => { at: number; bytes: Uint8Array }): void {
  const layout = writeModelSpec(path, spec);
  const { at, bytes } = patch(layout);
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

function wavHeader(samples: number): Uint8Array {
  const w = new ByteWriter();
  const data = samples * 2;
  w.bytes(new TextEncoder().encode('RIFF')).u32(36 + data).bytes(new TextEncoder().encode('WAVEfmt '));
  w.u32(16).u16(1).u16(1).u32(16000).u32(32000).u16(2).u16(16);
  w.bytes(new TextEncoder().encode('data')).u32(data);
  for (let i = 0; i < samples; i++) w.i16(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
  return w.finish();
}

const kvCase = (name: string, description: string, kv: GgufKv, expected: string, extra: ModelOptionsInput = {}): MalformedCase => ({
  name,
  description,
  expectedCode: 'MODEL_INVALID',
  expectedMessageIncludes: expected,
  write: (path) => void writeModelSpec(path, setKv(baseSpec(extra), kv)),
});

const specCase = (name: string, description: string, make: () => ModelSpec, expected: string): MalformedCase => ({
  name,
  description,
  expectedCode: 'MODEL_INVALID',
  expectedMessageIncludes: expected,
  write: (path) => void writeModelSpec(path, make()),
});

const rawCase = (name: string, description: string, write: (path: string) => void, expected: string): MalformedCase => ({
  name,
  description,
  expectedCode: 'MODEL_INVALID',
  expectedMessageIncludes: expected,
  write,
});

const lastTensor = (l: GgufLayout) => l.tensors[l.tensors.length - 1];

function tensorAt(l: GgufLayout, name: string): GgufLayout['tensors'][number] {
  const t = l.tensors.find((x) => x.name === name);
  if (!t) throw new Error(`malformed: no tensor ${name}`);
  return t;
}

/** Bytes of a little-endian float32 / raw uint16 (F16 and BF16 bit patterns, Q8_0 block scales). */
const f32Bytes = (v: number) => new Uint8Array(Float32Array.of(v).buffer);
const u16Bytes = (v: number) => new Uint8Array(Uint16Array.of(v).buffer);

/** A valid model whose tensor `name` gets `bytes` at byte `at` of its data (a NaN, an infinity, a broken scale). */
const weightCase = (name: string, description: string, extra: ModelOptionsInput, tensor: string, at: number, bytes: Uint8Array): MalformedCase =>
  rawCase(name, description, (p) => writePatched(p, baseSpec(extra), (l) => ({ at: l.dataOffset + tensorAt(l, tensor).offset + at, bytes })), `'${tensor}'`);

const dropCase = (name: string, tensor: string, extra: ModelOptionsInput = {}): MalformedCase =>
  specCase(name, `${tensor} removed`, () => dropTensors(baseSpec(extra), (n) => n === tensor), `'${tensor}'`);

export const MALFORMED_CASES: readonly MalformedCase[] = [
  // --- not a GGUF file at all
  rawCase('empty-file', '0 bytes', (p) => writeFileSync(p, new Uint8Array(0)), 'empty'),
  rawCase('three-bytes', 'the 3 bytes "GGU"', (p) => writeFileSync(p, new TextEncoder().encode('GGU')), 'not a GGUF file'),
  rawCase('random-bytes', '4096 seeded random bytes', (p) => {
    const rng = new Rng(5, 'random-bytes');
    writeFileSync(p, Uint8Array.from({ length: 4096 }, () => rng.nextU32() & 0xff));
  }, 'not a GGUF file'),
  rawCase('wav-file', 'a 16 kHz PCM WAV file', (p) => writeFileSync(p, wavHeader(1600)), 'not a GGUF file'),
  rawCase('bad-magic', 'valid model whose magic reads "GGUG"', (p) => writePatched(p, baseSpec(), () => ({ at: 3, bytes: new TextEncoder().encode('G') })), 'not a GGUF file'),

  // --- container version / truncation
  rawCase('version-1', 'header version 1', (p) => writePatched(p, baseSpec(), () => ({ at: 4, bytes: new Uint8Array([1, 0, 0, 0]) })), 'GGUF version'),
  rawCase('version-4', 'header version 4', (p) => writePatched(p, baseSpec(), () => ({ at: 4, bytes: new Uint8Array([4, 0, 0, 0]) })), 'GGUF version'),
  rawCase('truncated-in-magic-and-version', 'cut after 6 bytes', (p) => writeTruncated(p, () => 6), 'truncated'),
  rawCase('truncated-in-header', 'cut after 12 bytes, inside the tensor count', (p) => writeTruncated(p, () => 12), 'truncated'),
  rawCase('truncated-in-kv', 'cut inside parakeet.tokenizer.pieces', (p) => writeTruncated(p, (l) => (l.kvPos.get('parakeet.tokenizer.pieces') ?? 0) + 100), 'truncated'),
  rawCase('truncated-in-tensor-infos', 'cut inside the tensor-info table', (p) => writeTruncated(p, (l) => l.tensorInfoStart + 200), 'truncated'),
  rawCase('truncated-at-data-start', 'cut where the tensor data begins', (p) => writeTruncated(p, (l) => l.dataOffset), 'truncated'),
  rawCase('truncated-in-last-tensor', 'cut in the middle of the last tensor\'s data', (p) =>
    writeTruncated(p, (l) => l.dataOffset + lastTensor(l).offset + Math.floor(lastTensor(l).byteSize / 2)), 'truncated'),
  rawCase('tensor-offset-past-eof', 'last tensor\'s data offset patched to 1 TiB', (p) =>
    writePatched(p, baseSpec(), (l) => {
      const w = new ByteWriter().u64(2 ** 40);
      return { at: lastTensor(l).offsetFieldPos, bytes: w.finish() };
    }), 'corrupt'),

  // --- not a Parakeet ASR model
  kvCase('arch-silero-vad', 'general.architecture = silero_vad', { key: 'general.architecture', value: gv.str('silero_vad') }, "'silero_vad'"),
  kvCase('arch-llama', 'general.architecture = llama', { key: 'general.architecture', value: gv.str('llama') }, "'llama'"),
  kvCase('parakeet-arch-diarization', 'parakeet.arch = diarization', { key: 'parakeet.arch', value: gv.str('diarization') }, "'diarization'"),
  kvCase('parakeet-arch-vad', 'parakeet.arch = vad', { key: 'parakeet.arch', value: gv.str('vad') }, "'vad'"),
  kvCase('parakeet-arch-unknown', 'parakeet.arch = whisper', { key: 'parakeet.arch', value: gv.str('whisper') }, "'whisper'"),
  specCase('no-general-architecture', 'general.architecture missing', () => baseSpec({ omitKeys: ['general.architecture'] }), 'general.architecture'),

  // --- wrong or absurd metadata
  kvCase('d-model-as-string', 'parakeet.encoder.d_model stored as STRING "64"', { key: 'parakeet.encoder.d_model', value: gv.str('64') }, 'parakeet.encoder.d_model'),
  kvCase('d-model-2-pow-31', 'parakeet.encoder.d_model = 2^31', { key: 'parakeet.encoder.d_model', value: gv.u32(2 ** 31) }, 'parakeet.encoder.d_model'),
  kvCase('n-layers-100000', 'parakeet.encoder.n_layers = 100000', { key: 'parakeet.encoder.n_layers', value: gv.u32(100000) }, 'parakeet.encoder.n_layers'),
  kvCase('vocab-size-mismatch', 'parakeet.vocab_size = 97 with 96 pieces', { key: 'parakeet.vocab_size', value: gv.u32(97) }, 'parakeet.vocab_size'),
  kvCase('blank-id-wrong', 'parakeet.blank_id = 0', { key: 'parakeet.blank_id', value: gv.u32(0) }, 'parakeet.blank_id'),
  kvCase('n-heads-not-dividing', 'parakeet.encoder.n_heads = 5 with d_model 64', { key: 'parakeet.encoder.n_heads', value: gv.u32(5) }, 'parakeet.encoder.n_heads'),
  kvCase('conv-kernel-even', 'parakeet.encoder.conv_kernel = 8', { key: 'parakeet.encoder.conv_kernel', value: gv.u32(8) }, 'parakeet.encoder.conv_kernel'),
  kvCase('pieces-not-strings', 'parakeet.tokenizer.pieces is an INT32 array', { key: 'parakeet.tokenizer.pieces', value: gv.arr(GgufValueType.INT32, [1, 2, 3]) }, 'parakeet.tokenizer.pieces'),
  kvCase('durations-not-ints', 'parakeet.tdt.durations is a STRING array', { key: 'parakeet.tdt.durations', value: gv.arrStr(['0', '1']) }, 'parakeet.tdt.durations'),

  // --- tensors
  specCase('missing-linear-q', 'encoder.layers.0.self_attn.linear_q.weight removed',
    () => dropTensors(baseSpec(), (n) => n === 'encoder.layers.0.self_attn.linear_q.weight'), 'encoder.layers.0.self_attn.linear_q.weight'),
  specCase('misshaped-linear1', 'encoder.layers.1.feed_forward1.linear1.weight has ne [64, 255] instead of [64, 256]',
    () => reshape(baseSpec(), 'encoder.layers.1.feed_forward1.linear1.weight', [64, 255]), 'encoder.layers.1.feed_forward1.linear1.weight'),
  specCase('misshaped-fb', 'preprocessor.featurizer.fb has ne [256, 80, 1]',
    () => reshape(baseSpec(), 'preprocessor.featurizer.fb', [256, 80, 1]), 'preprocessor.featurizer.fb'),
  specCase('transducer-without-joint', 'tdt model with every joint.* tensor removed',
    () => dropTensors(baseSpec({ arch: 'tdt' }), (n) => n.startsWith('joint.')), 'joint.enc.weight'),
  specCase('joint-output-missing', 'tdt model without joint.joint_net.2.weight',
    () => dropTensors(baseSpec({ arch: 'tdt' }), (n) => n === 'joint.joint_net.2.weight'), 'joint.joint_net.2.weight'),
  specCase('ctc-without-head', 'ctc model without decoder.decoder_layers.0.*',
    () => dropTensors(baseSpec({ arch: 'ctc' }), (n) => n.startsWith('decoder.decoder_layers.')), 'decoder.decoder_layers.0.weight'),

  // --- every tensor the hyper-parameters imply is required (none is taken as zero or a default)
  dropCase('missing-ff-bias', 'encoder.layers.1.feed_forward1.linear1.bias'),
  dropCase('missing-attention-bias', 'encoder.layers.0.self_attn.linear_v.bias'),
  dropCase('missing-depthwise-bias', 'encoder.layers.1.conv.depthwise_conv.bias'),
  dropCase('missing-pointwise-bias', 'encoder.layers.0.conv.pointwise_conv2.bias'),
  dropCase('missing-norm-bias', 'encoder.layers.1.norm_conv.bias'),
  dropCase('missing-pos-bias-v', 'encoder.layers.0.self_attn.pos_bias_v'),
  dropCase('missing-subsampling-bias', 'encoder.pre_encode.conv.2.bias'),
  dropCase('missing-lstm-bias', 'decoder.prediction.dec_rnn.lstm.bias_hh_l0'),
  dropCase('missing-window', 'preprocessor.featurizer.window'),
  kvCase('biases-without-use-bias', 'parakeet.encoder.use_bias = false while the file holds encoder biases',
    { key: 'parakeet.encoder.use_bias', value: gv.bool(false) }, 'use_bias = false'),

  // --- weights that are not finite numbers (each storage type's own encoding)
  weightCase('nan-weight-f32', 'a NaN in encoder.layers.1.feed_forward1.linear1.weight (F32)', {},
    'encoder.layers.1.feed_forward1.linear1.weight', 4 * 5, f32Bytes(Number.NaN)),
  weightCase('inf-weight-f32', '+Inf in decoder.prediction.embed.weight (F32, a host-side decoder weight)', {},
    'decoder.prediction.embed.weight', 4 * 70, f32Bytes(Number.POSITIVE_INFINITY)),
  weightCase('neg-inf-bias-f32', '-Inf in ctc_decoder.decoder_layers.0.bias (F32)', {},
    'ctc_decoder.decoder_layers.0.bias', 0, f32Bytes(Number.NEGATIVE_INFINITY)),
  weightCase('inf-weight-f16', '+Inf (0x7c00) in encoder.layers.0.feed_forward2.linear2.weight (F16)', { weightType: 'f16' },
    'encoder.layers.0.feed_forward2.linear2.weight', 2 * 33, u16Bytes(0x7c00)),
  weightCase('nan-scale-q8_0', 'a NaN block scale in encoder.layers.1.self_attn.linear_q.weight (Q8_0)', { weightType: 'q8_0' },
    'encoder.layers.1.self_attn.linear_q.weight', 34 * 3, u16Bytes(0x7e00)),
  weightCase('nan-scale-q4_k', 'a NaN super-block scale in encoder.layers.0.feed_forward1.linear2.weight (Q4_K)', { weightType: 'q4_k' },
    'encoder.layers.0.feed_forward1.linear2.weight', 0, u16Bytes(0x7e00)),

  // --- a value too long to quote
  kvCase('arch-70000-characters', 'parakeet.arch is a 70,000-character string', { key: 'parakeet.arch', value: gv.str('x'.repeat(70_000)) }, '(70000 bytes)'),
];

export interface CorruptedCopy {
  readonly path: string;
  readonly kind: 'flip' | 'truncate';
  /** e.g. "flip 0x10 at 123, 0x80 at 4567" or "truncate to 999 of 631808 bytes". */
  readonly detail: string;
}

export interface CorruptOptions {
  readonly seed: number;
  readonly count: number;
  /** Byte flips land in the metadata (before the tensor data) with this probability; data flips rarely matter. */
  readonly metadataBias?: number;
  /** End of the metadata region (GgufLayout.dataOffset); flips are uniform over the file without it. */
  readonly dataOffset?: number;
}

/**
 * Seeded byte-flipped and truncated copies of a (small) valid file for a
 * corruption fuzz test: the loader must either load each one or fail with
 * MODEL_INVALID, and never crash. Returns the written files.
 */
export function writeCorruptedCopies(source: Uint8Array, outPath: (i: number) => string, o: CorruptOptions): CorruptedCopy[] {
  const rng = new Rng(o.seed, 'corrupt');
  const meta = o.dataOffset ?? source.length;
  const bias = o.metadataBias ?? 0.8;
  const out: CorruptedCopy[] = [];
  for (let i = 0; i < o.count; i++) {
    const path = outPath(i);
    if (rng.next() < 0.25) {
      const len = rng.int(source.length);
      writeFileSync(path, source.subarray(0, len));
      out.push({ path, kind: 'truncate', detail: `truncate to ${len} of ${source.length} bytes` });
      continue;
    }
    const copy = source.slice();
    const flips: string[] = [];
    const n = 1 + rng.int(3);
    for (let k = 0; k < n; k++) {
      const at = rng.next() < bias ? rng.int(meta) : rng.int(copy.length);
      const mask = 1 + rng.int(255);
      copy[at] ^= mask;
      flips.push(`0x${mask.toString(16)} at ${at}`);
    }
    writeFileSync(path, copy);
    out.push({ path, kind: 'flip', detail: `flip ${flips.join(', ')}` });
  }
  return out;
}
