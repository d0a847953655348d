// `.nemo` archives written from one of our parakeet.cpp-schema files, as NeMo's save_to lays them
// out: an uncompressed tar of model_config.yaml (OmegaConf's block YAML), the SentencePiece
// tokenizer model (protobuf) and model_weights.ckpt, a PyTorch zip checkpoint whose data.pkl is the
// state_dict pickled as torch.save does (protocol 2, OrderedDict of _rebuild_tensor_v2 over
// persistent storages) and whose data/<key> entries hold the raw storages. Hostile variants for the
// importer's refusals. Layouts from the formats' specifications; the code is ours.
import { readGguf, readTensorF32 } from '../gguf/reader.js';
import { kvBoolean, kvNumber, kvString } from '../gguf/kv-read.js';
import { plainValue } from '../gguf/values.js';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { GgufFile } from '../gguf/reader.js';

// ---- tar (ustar) ----

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

export function tarHeader(name: string, size: number, type = '0'): Uint8Array {
  const h = new Uint8Array(512);
  const put = (at: number, text: string): void => h.set(new TextEncoder().encode(text), at);
  put(0, name.slice(0, 100));
  put(100, octal(0o644, 8));
  put(108, octal(0, 8));
  put(116, octal(0, 8));
  put(124, octal(size, 12));
  put(136, octal(0, 12));
  put(148, '        ');
  put(156, type);
  put(257, 'ustar\u000000');
  const sum = h.reduce((a, b) => a + b, 0);
  put(148, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

interface TarSource {
  readonly name: string;
  readonly size: number;
  readonly type?: string;
  /** Writes exactly `size` bytes through `write`. */
  readonly write: (write: (b: Uint8Array) => void) => void;
}

function writeTar(members: readonly TarSource[], write: (b: Uint8Array) => void): void {
  for (const m of members) {
    write(tarHeader(m.name, m.size, m.type));
    m.write(write);
    write(new Uint8Array((512 - (m.size % 512)) % 512));
  }
  write(new Uint8Array(1024));
}

const bytesMember = (name: string, data: Uint8Array, type?: string): TarSource => ({ name, size: data.length, type, write: (w) => w(data) });

// ---- zip (stored entries, as torch.save writes them), streamed ----

function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

interface ZipSource {
  readonly name: string;
  readonly size: number;
  readonly data: () => Uint8Array;
}

/** Local headers flag a data descriptor (bit 3), so each entry's CRC is computed as its bytes are written. */
const DESCRIPTOR = 16;

function zipSize(entries: readonly ZipSource[]): number {
  const names = entries.reduce((n, e) => n + Buffer.byteLength(e.name), 0);
  return entries.reduce((n, e) => n + 30 + e.size + DESCRIPTOR + 46, 0) + 2 * names + 22;
}

/** Writes the zip of `entries` through `write`, one entry's bytes in memory at a time. */
function writeZip(entries: readonly ZipSource[], write: (b: Uint8Array) => void): void {
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 6);
    local.writeUInt32LE(e.size, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    write(local);
    write(name);
    const data = e.data();
    if (data.length !== e.size) throw new Error(`zip entry ${e.name}: ${data.length} bytes, declared ${e.size}`);
    write(data);
    const crc = crc32(data);
    const descriptor = Buffer.alloc(DESCRIPTOR);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(e.size, 8);
    descriptor.writeUInt32LE(e.size, 12);
    write(descriptor);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(8, 8);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(e.size, 20);
    dir.writeUInt32LE(e.size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    central.push(dir, name);
    offset += 30 + name.length + e.size + DESCRIPTOR;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  write(dirBytes);
  write(end);
}

// ---- pickle (protocol 2, the opcodes torch.save emits) ----

export class PickleWriter {
  private readonly parts: number[] = [];
  private memo = 0;
  op(...bytes: number[]): this {
    this.parts.push(...bytes);
    return this;
  }
  global(module: string, name: string): this {
    return this.op(0x63, ...Buffer.from(`${module}\n${name}\n`, 'latin1'));
  }
  unicode(s: string): this {
    const b = Buffer.from(s, 'utf8');
    const n = Buffer.alloc(4);
    n.writeUInt32LE(b.length);
    return this.op(0x58, ...n, ...b);
  }
  int(v: number): this {
    if (v < 256) return this.op(0x4b, v);
    if (v < 65536) return this.op(0x4d, v & 0xff, v >> 8);
    if (v > 0x7fffffff) {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(BigInt(v));
      return this.op(0x8a, 8, ...b); // LONG1
    }
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    return this.op(0x4a, ...b);
  }
  tuple(values: readonly number[]): this {
    this.op(0x28);
    values.forEach((v) => this.int(v));
    return this.op(0x74);
  }
  /** BINPUT, or LONG_BINPUT past 255 memo entries (as pickle's own writer: a 0.6B state_dict memoizes ~700). */
  put(): this {
    const index = this.memo++;
    if (index < 256) return this.op(0x71, index);
    const b = Buffer.alloc(4);
    b.writeUInt32LE(index);
    return this.op(0x72, ...b);
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

export interface CheckpointTensor {
  readonly name: string;
  /** PyTorch shape (row-major). */
  readonly shape: readonly number[];
  /** Row-major values, or for `transposed` the values of the transpose as stored; made when written. */
  readonly values: () => Float32Array;
  readonly storageClass?: 'FloatStorage' | 'LongStorage';
  /** Stored as the transpose with swapped strides (a non-contiguous view, 2-D only). */
  readonly transposed?: boolean;
  /** The storage size the pickle declares, when it lies (hostile files). */
  readonly declaredNumel?: number;
}

/** data.pkl of a state_dict whose tensor i lives in storage key String(i). */
export function stateDictPickle(tensors: readonly CheckpointTensor[]): Uint8Array {
  const p = new PickleWriter().op(0x80, 2).global('collections', 'OrderedDict').put().op(0x29, 0x52).put().op(0x28);
  tensors.forEach((t, i) => {
    const numel = t.declaredNumel ?? t.shape.reduce((a, b) => a * b, 1);
    let stride = t.shape.map((_, d) => t.shape.slice(d + 1).reduce((a, b) => a * b, 1));
    if (t.transposed) stride = [1, t.shape[0]];
    p.unicode(t.name).global('torch._utils', '_rebuild_tensor_v2').op(0x28);
    p.op(0x28).unicode('storage').global('torch', t.storageClass ?? 'FloatStorage').unicode(String(i)).unicode('cpu').int(numel).op(0x74, 0x51);
    p.int(0).tuple(t.shape).tuple(stride).op(0x89).op(0x68, 0).op(0x29, 0x52).op(0x74, 0x52).put();
  });
  return p.op(0x75).op(0x7d, 0x62).op(0x2e).bytes();
}

function storageBytes(t: CheckpointTensor): Uint8Array {
  const values = t.values();
  if (t.storageClass === 'LongStorage') {
    const out = Buffer.alloc(8 * values.length);
    values.forEach((v, i) => out.writeBigInt64LE(BigInt(v), 8 * i));
    return out;
  }
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

function storageSize(t: CheckpointTensor): number {
  return (t.storageClass === 'LongStorage' ? 8 : 4) * t.shape.reduce((a, b) => a * b, 1);
}

/** The entries of model_weights.ckpt (torch.save's zip layout), storages produced on demand. */
function checkpointEntries(tensors: readonly CheckpointTensor[], pickle: Uint8Array): ZipSource[] {
  const fixed = (name: string, data: Uint8Array): ZipSource => ({ name, size: data.length, data: () => data });
  return [
    fixed('archive/data.pkl', pickle),
    fixed('archive/byteorder', Buffer.from('little')),
    ...tensors.map((t, i): ZipSource => ({ name: `archive/data/${i}`, size: storageSize(t), data: () => storageBytes(t) })),
    fixed('archive/version', Buffer.from('3\n')),
  ];
}

// ---- SentencePiece ModelProto ----

function varint(v: number): number[] {
  const out: number[] = [];
  for (; v > 0x7f; v = Math.floor(v / 128)) out.push((v & 0x7f) | 0x80);
  out.push(v);
  return out;
}

/**
 * A SentencePiece ModelProto of `pieces` (id order): score −id unless `scores` gives them (a unigram
 * model's log-probabilities, a BPE model's merge ranks), piece 0 the unknown piece, model type BPE
 * unless `modelType` says 'unigram'.
 */
export function sentencePieceModel(
  pieces: readonly string[], options: { scores?: readonly number[]; modelType?: 'unigram' | 'bpe' } = {},
): Uint8Array {
  const out: number[] = [];
  pieces.forEach((piece, i) => {
    const text = [...Buffer.from(piece, 'utf8')];
    const score = Buffer.alloc(4);
    score.writeFloatLE(options.scores?.[i] ?? -i);
    const inner = [0x0a, ...varint(text.length), ...text, 0x15, ...score, 0x18, i === 0 ? 2 : 1];
    out.push(0x0a, ...varint(inner.length), ...inner);
  });
  out.push(0x12, 2, 0x18, options.modelType === 'unigram' ? 1 : 2);  // trainer_spec { model_type (field 3): UNIGRAM 1, BPE 2 }
  return Uint8Array.from(out);
}

// ---- model_config.yaml ----

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export function modelConfigYaml(file: GgufFile, tokenizerName: string): string {
  const arch = kvString(file, 'parakeet.arch', 'ctc');
  const pieces = plainValue(file.kv.get('parakeet.tokenizer.pieces')!) as string[];
  const vocab = pieces.map((p) => `  - ${q(p)}`).join('\n');
  const dModel = kvNumber(file, 'parakeet.encoder.d_model', 0);
  const durations = (file.kv.get('parakeet.tdt.durations') ? (plainValue(file.kv.get('parakeet.tdt.durations')!) as number[]) : []);
  const tdt = arch.includes('tdt');
  const lines = [
    `name: ${kvString(file, 'general.name', 'model')}`,
    `target: nemo.collections.asr.models.${arch === 'ctc' ? 'ctc_bpe_models.EncDecCTCModelBPE' : 'rnnt_bpe_models.EncDecRNNTBPEModel'}`,
    'description: A randomly initialised FastConformer written by the test suite to check that a .nemo converts',
    '  without Python, token for token, into the same GGUF as the converter would write.',
    'sample_rate: 16000',
    'tokenizer:',
    '  dir: null',
    `  model: nemo:${tokenizerName}`,
    '  type: bpe',
    'preprocessor:',
    '  _target_: nemo.collections.asr.modules.AudioToMelSpectrogramPreprocessor',
    '  sample_rate: 16000',
    `  normalize: ${kvString(file, 'parakeet.preprocessor.normalize', 'per_feature')}`,
    '  window_size: 0.025',
    '  window_stride: 0.01',
    '  window: hann',
    `  features: ${kvNumber(file, 'parakeet.preprocessor.n_mels', 80)}`,
    '  n_fft: 512',
    '  log: true',
    `  preemph: ${kvNumber(file, 'parakeet.preprocessor.preemph', 0.97)}`,
    '  dither: 1.0e-05',
    '  pad_to: 0',
    'encoder:',
    '  _target_: nemo.collections.asr.modules.ConformerEncoder',
    `  feat_in: ${kvNumber(file, 'parakeet.encoder.feat_in', 80)}`,
    '  feat_out: -1',
    `  n_layers: ${kvNumber(file, 'parakeet.encoder.n_layers', 0)}`,
    `  d_model: ${dModel}`,
    '  subsampling: dw_striding',
    '  subsampling_factor: 8',
    `  subsampling_conv_channels: ${kvNumber(file, 'parakeet.encoder.subsampling_conv_channels', 256)}`,
    '  causal_downsampling: false',
    `  ff_expansion_factor: ${kvNumber(file, 'parakeet.encoder.ff_dim', 0) / dModel}`,
    '  self_attention_model: rel_pos',
    `  n_heads: ${kvNumber(file, 'parakeet.encoder.n_heads', 8)}`,
    '  att_context_size:',
    '  - -1',
    '  - -1',
    '  att_context_style: regular',
    `  xscaling: ${kvBoolean(file, 'parakeet.encoder.xscaling', true)}`,
    '  untie_biases: true',
    '  pos_emb_max_len: 5000',
    `  conv_kernel_size: ${kvNumber(file, 'parakeet.encoder.conv_kernel', 9)}`,
    `  conv_norm_type: ${kvString(file, 'parakeet.encoder.conv_norm_type', 'batch_norm')}`,
    '  conv_context_size: null',
    `  use_bias: ${kvBoolean(file, 'parakeet.encoder.use_bias', true)}`,
  ];
  if (arch === 'ctc') {
    lines.push('decoder:', '  _target_: nemo.collections.asr.modules.ConvASRDecoder', `  feat_in: ${dModel}`, `  num_classes: ${pieces.length}`, '  vocabulary:', vocab);
  } else {
    lines.push(
      'decoder:',
      '  _target_: nemo.collections.asr.modules.RNNTDecoder',
      '  blank_as_pad: true',
      `  vocab_size: ${pieces.length}`,
      '  prednet:',
      `    pred_hidden: ${kvNumber(file, 'parakeet.decoder.pred_hidden', 640)}`,
      `    pred_rnn_layers: ${kvNumber(file, 'parakeet.decoder.pred_rnn_layers', 1)}`,
      '    t_max: null',
      'joint:',
      '  _target_: nemo.collections.asr.modules.RNNTJoint',
      '  jointnet:',
      `    joint_hidden: ${kvNumber(file, 'parakeet.joint.joint_hidden', 640)}`,
      `    activation: ${kvString(file, 'parakeet.joint.activation', 'relu')}`,
      '    dropout: 0.2',
      `  num_extra_outputs: ${tdt ? durations.length : 0}`,
      `  num_classes: ${pieces.length}`,
      '  vocabulary:',
      vocab,
      'decoding:',
      '  strategy: greedy_batch',
      ...(tdt ? ['  model_type: tdt', '  durations:', ...durations.map((d) => `  - ${d}`)] : []),
      '  greedy:',
      `    max_symbols: ${kvNumber(file, 'parakeet.decoding.max_symbols', 10)}`,
      'loss:',
      `  loss_name: ${tdt ? 'tdt' : 'default'}`,
    );
    if (arch.startsWith('hybrid')) {
      lines.push('aux_ctc:', '  ctc_loss_weight: 0.3', '  decoder:', '    _target_: nemo.collections.asr.modules.ConvASRDecoder', `    num_classes: ${pieces.length}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

// ---- the archive ----

export interface NemoArchiveOptions {
  /** Replace the generated data.pkl (hostile pickles). */
  readonly pickle?: (tensors: readonly CheckpointTensor[]) => Uint8Array;
  /** Extra tar members (e.g. a path-traversal name). */
  readonly extraMembers?: readonly { name: string; data: Uint8Array; type?: string }[];
  /** Replace model_config.yaml. */
  readonly config?: string;
}

/** The checkpoint tensors of a parakeet.cpp-schema file: its tensors in order, plus NeMo's buffers the converter drops. */
export function checkpointTensors(file: GgufFile): CheckpointTensor[] {
  const out: CheckpointTensor[] = [];
  let transposedOne = false;
  for (const t of file.tensors.values()) {
    const shape = [...t.ne].reverse();
    const values = (): Float32Array => readTensorF32(file, t.name);
    if (!transposedOne && shape.length === 2 && t.name.endsWith('linear_q.weight')) {
      // Stored as its transpose with swapped strides: the importer must follow the strides.
      const [rows, cols] = shape;
      const transposed = (): Float32Array => {
        const v = values();
        const out = new Float32Array(v.length);
        for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = v[r * cols + c];
        return out;
      };
      out.push({ name: t.name, shape, values: transposed, transposed: true });
      transposedOne = true;
      continue;
    }
    out.push({ name: t.name, shape, values });
    if (t.name.endsWith('conv.batch_norm.running_var')) {
      out.push({ name: t.name.replace('running_var', 'num_batches_tracked'), shape: [], values: () => Float32Array.of(1234), storageClass: 'LongStorage' });
    }
  }
  const dModel = Number(plainValue(file.kv.get('parakeet.encoder.d_model')!));
  out.push({ name: 'encoder.pos_enc.pe', shape: [1, 9, dModel], values: () => new Float32Array(9 * dModel).fill(0.5) });
  return out;
}

/** Writes `dst`, the .nemo of the parakeet.cpp-schema file `src`, streamed (a tensor in memory at a time). */
export function writeNemoArchive(src: string, dst: string, options: NemoArchiveOptions = {}): void {
  const file = readGguf(src);
  const tokenizerName = '5f2c6697eb_tokenizer.model';
  const tensors = checkpointTensors(file);
  const pickle = options.pickle ? options.pickle(tensors) : stateDictPickle(tensors);
  const pieces = plainValue(file.kv.get('parakeet.tokenizer.pieces')!) as string[];
  const entries = checkpointEntries(tensors, pickle);
  const fd = openSync(dst, 'w');
  try {
    writeTar(
      [
        bytesMember('./model_config.yaml', Buffer.from(options.config ?? modelConfigYaml(file, tokenizerName), 'utf8')),
        bytesMember(`./${tokenizerName}`, sentencePieceModel(pieces)),
        { name: './model_weights.ckpt', size: zipSize(entries), write: (w) => writeZip(entries, w) },
        ...(options.extraMembers ?? []).map((m) => bytesMember(m.name, m.data, m.type)),
      ],
      (b) => {
        for (let done = 0; done < b.length; ) done += writeSync(fd, b, done, b.length - done);
      },
    );
  } finally {
    closeSync(fd);
  }
}
