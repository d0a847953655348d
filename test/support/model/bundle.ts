// parakeet.cpp bundle GGUFs (format version 1, parakeet.cpp docs/bundle.md), written from single-model
// files of ours: every key and tensor under "<component>.", per-component licence keys, the source
// file's sha256 and the content digest over the component's tensors. Facts from the format; the code is ours.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { GgmlType, GgufValueType } from '../gguf/types.js';
import { readGguf, readTensorBytes } from '../gguf/reader.js';
import { gv } from '../gguf/values.js';
import { type GgufKv, type GgufTensorSource, writeGguf } from '../gguf/writer.js';

export interface BundleComponentInput {
  readonly name: string;
  /** "asr", "vad", or a kind reserved for later ("diarization", …). */
  readonly kind: string;
  /** A single-model GGUF. */
  readonly file: string;
  readonly license?: string;
  readonly source?: string;
}

export interface BundleOptions {
  /** parakeet.bundle.version (1 unless testing a newer one). */
  readonly version?: number;
}

interface ComponentTensor {
  readonly name: string;
  readonly type: GgmlType;
  readonly ne: readonly number[];
  readonly bytes: () => Uint8Array;
}

/** sha256 over name\0, type (u32 LE), dimension count (u32 LE), dims (u64 LE, GGUF order) and data, in file order. */
export function contentDigest(tensors: readonly ComponentTensor[]): string {
  const hash = createHash('sha256');
  for (const t of tensors) {
    hash.update(Buffer.concat([Buffer.from(t.name, 'utf8'), Buffer.from([0])]));
    const head = Buffer.alloc(8 + 8 * t.ne.length);
    head.writeUInt32LE(t.type, 0);
    head.writeUInt32LE(t.ne.length, 4);
    t.ne.forEach((d, i) => head.writeBigUInt64LE(BigInt(d), 8 + 8 * i));
    hash.update(head);
    hash.update(t.bytes());
  }
  return hash.digest('hex');
}

/** A stand-in Silero VAD GGUF (keys and one tensor of its layout, spec §8); the ASR loader never reads its weights. */
export function writeSileroStandIn(path: string): void {
  writeGguf(
    path,
    [
      { key: 'general.architecture', value: gv.str('silero_vad') },
      { key: 'general.name', value: gv.str('silero-vad') },
      { key: 'silero_vad.sample_rates', value: gv.arr(GgufValueType.INT32, [8000, 16000]) },
    ],
    [{ name: 'vad16k.stft.forward_basis_buffer', ne: [256, 1, 258], type: GgmlType.F32, data: new Uint8Array(256 * 258 * 4).fill(7) }],
  );
}

/** Writes the bundle `dst` named `name` from `components`, in order. */
export function writeBundle(dst: string, name: string, components: readonly BundleComponentInput[], options: BundleOptions = {}): void {
  const kv: GgufKv[] = [
    { key: 'general.architecture', value: gv.str('parakeet-bundle') },
    { key: 'general.name', value: gv.str(name) },
    { key: 'general.license', value: gv.str('other') },
    { key: 'general.license.name', value: gv.str('per-component') },
    { key: 'parakeet.bundle.version', value: gv.u32(options.version ?? 1) },
    { key: 'parakeet.bundle.components', value: gv.arrStr(components.map((c) => c.name)) },
  ];
  const componentKv: GgufKv[] = [];
  const tensors: GgufTensorSource[] = [];
  for (const c of components) {
    const file = readGguf(c.file);
    const own: ComponentTensor[] = [...file.tensors.values()].map((t) => ({
      name: t.name, type: t.type, ne: t.ne, bytes: () => readTensorBytes(file, t.name),
    }));
    const field = (key: string, value: string): void => {
      kv.push({ key: `parakeet.bundle.${c.name}.${key}`, value: gv.str(value) });
    };
    field('kind', c.kind);
    field('license', c.license ?? 'CC-BY-4.0');
    field('license_url', 'https://creativecommons.org/licenses/by/4.0/');
    field('source', c.source ?? `test/${c.name}`);
    field('attribution', `${c.name} by the test suite`);
    field('changes', 'Generated with random weights');
    field('source_sha256', createHash('sha256').update(readFileSync(c.file)).digest('hex'));
    field('content_sha256', contentDigest(own));
    for (const [key, value] of file.kv) {
      if (key !== 'general.alignment') componentKv.push({ key: `${c.name}.${key}`, value });
    }
    for (const t of own) tensors.push({ name: `${c.name}.${t.name}`, ne: t.ne, type: t.type, data: t.bytes });
  }
  writeGguf(dst, [...kv, ...componentKv], tensors);
}

/** Flips one byte of tensor `name`'s data in the file at `path` (a damaged component). */
export function damageTensor(path: string, name: string): void {
  const file = readGguf(path);
  const info = file.tensors.get(name);
  if (!info) throw new Error(`no tensor ${name} in ${path}`);
  const at = file.dataOffset + info.offset + 5;
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, at);
    byte[0] ^= 0x10;
    writeSync(fd, byte, 0, 1, at);
  } finally {
    closeSync(fd);
  }
}
