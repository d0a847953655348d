import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { dequantize } from '../../support/gguf/dequantize.js';
import { quantize } from '../../support/gguf/quantize.js';
import { GgufFormatError, parseGgufBytes, readGguf, readTensorBytes, readTensorF32, readTensorF64 } from '../../support/gguf/reader.js';
import { GgmlType, type GgufValue, GgufValueType, alignUp, ggmlTypeInfo, tensorByteSize } from '../../support/gguf/types.js';
import { gv } from '../../support/gguf/values.js';
import { ByteWriter, type GgufKv, type GgufTensorSource, encodeMetadata, writeGguf, writeKv } from '../../support/gguf/writer.js';
import { Rng } from '../../support/model/rng.js';
import { scratchDir } from './tmp.js';

const dir = scratchDir('gguf-rw');

const ALL_KV: GgufKv[] = [
  { key: 'general.architecture', value: gv.str('parakeet') },
  { key: 'k.u8', value: gv.u8(255) },
  { key: 'k.i8', value: gv.i8(-128) },
  { key: 'k.u16', value: gv.u16(65535) },
  { key: 'k.i16', value: gv.i16(-32768) },
  { key: 'k.u32', value: gv.u32(4294967295) },
  { key: 'k.i32', value: gv.i32(-2147483648) },
  { key: 'k.f32', value: gv.f32(0.97) },
  { key: 'k.bool.t', value: gv.bool(true) },
  { key: 'k.bool.f', value: gv.bool(false) },
  { key: 'k.str', value: gv.str('▁héllo, wörld') },
  { key: 'k.str.empty', value: gv.str('') },
  { key: 'k.u64.small', value: gv.u64(12345) },
  { key: 'k.u64.max', value: gv.u64(2n ** 64n - 1n) },
  { key: 'k.i64.min', value: gv.i64(-(2n ** 63n)) },
  { key: 'k.i64.neg', value: gv.i64(-42) },
  { key: 'k.f64', value: gv.f64(Math.PI) },
  { key: 'a.u8', value: gv.arr(GgufValueType.UINT8, [0, 1, 255]) },
  { key: 'a.i8', value: gv.arr(GgufValueType.INT8, [-128, 0, 127]) },
  { key: 'a.u16', value: gv.arr(GgufValueType.UINT16, [0, 65535]) },
  { key: 'a.i16', value: gv.arr(GgufValueType.INT16, [-32768, 32767]) },
  { key: 'a.u32', value: gv.arr(GgufValueType.UINT32, [0, 4294967295]) },
  { key: 'a.i32', value: gv.arr(GgufValueType.INT32, [0, 1, 2, 3, 4]) },
  { key: 'a.f32', value: gv.arr(GgufValueType.FLOAT32, [0.5, -1.25, 3]) },
  { key: 'a.f64', value: gv.arr(GgufValueType.FLOAT64, [Math.E, -0]) },
  { key: 'a.u64', value: gv.arr64(GgufValueType.UINT64, [1, 2n ** 60n]) },
  { key: 'a.i64', value: gv.arr64(GgufValueType.INT64, [-1, -(2n ** 60n)]) },
  { key: 'a.bool', value: gv.arrBool([true, false, true]) },
  { key: 'a.str', value: gv.arrStr(['<unk>', '▁the', '', "'"]) },
  { key: 'a.empty', value: gv.arr(GgufValueType.INT32, []) },
];

/** What a reader returns for a written value (float32 rounding, 64-bit ints as number when safe). */
function expectedRead(v: GgufValue): unknown {
  const norm = (type: GgufValueType, x: unknown): unknown => {
    if (type === GgufValueType.FLOAT32) return Math.fround(x as number);
    if ((type === GgufValueType.UINT64 || type === GgufValueType.INT64) && typeof x === 'bigint' && x >= -(2n ** 53n) + 1n && x <= 2n ** 53n - 1n) return Number(x);
    return x;
  };
  return v.type === GgufValueType.ARRAY ? v.value.map((x) => norm(v.itemType, x)) : norm(v.type, v.value);
}

function values(n: number, seed: number): Float32Array {
  const x = new Float32Array(n);
  new Rng(seed, 'rw').fillUniform(x, -3, 3);
  return x;
}

describe('GGUF writer → reader', () => {
  test('round-trips every KV type, scalars and arrays, in order', () => {
    const path = join(dir, 'kv.gguf');
    writeGguf(path, ALL_KV, []);
    const f = readGguf(path);
    assert.equal(f.version, 3);
    assert.equal(f.alignment, 32);
    assert.deepEqual([...f.kv.keys()], ALL_KV.map((e) => e.key));
    for (const { key, value } of ALL_KV) {
      const got = f.kv.get(key);
      assert.ok(got, key);
      assert.equal(got.type, value.type, `${key} type`);
      if (value.type === GgufValueType.ARRAY) {
        assert.equal(got.type === GgufValueType.ARRAY && got.itemType, value.itemType, `${key} item type`);
        assert.deepEqual(got.type === GgufValueType.ARRAY ? [...got.value] : undefined, expectedRead(value), key);
      } else {
        assert.deepEqual(got.value, expectedRead(value), key);
      }
    }
    assert.equal(f.kv.get('k.f32')?.value, Math.fround(0.97));
    assert.equal(f.kv.get('k.u64.max')?.value, 2n ** 64n - 1n);
    assert.equal(f.kv.get('k.u64.small')?.value, 12345);
    assert.equal(f.tensors.size, 0);
  });

  test('round-trips every tensor type the quantizer writes, values dequantized', () => {
    const types = [GgmlType.F32, GgmlType.F16, GgmlType.BF16, GgmlType.Q8_0, GgmlType.Q4_0, GgmlType.Q5_0, GgmlType.Q4_K, GgmlType.Q5_K, GgmlType.Q6_K];
    const tensors: GgufTensorSource[] = types.map((type, i) => {
      const x = values(256 * 3, i);
      return { name: `t.${ggmlTypeInfo(type)?.name}`, ne: [256, 3], type, data: () => quantize(type, x) };
    });
    const path = join(dir, 'types.gguf');
    const layout = writeGguf(path, [{ key: 'general.architecture', value: gv.str('test') }], tensors);
    const f = readGguf(path);
    assert.equal(statSync(path).size, layout.fileSize);
    types.forEach((type, i) => {
      const name = `t.${ggmlTypeInfo(type)?.name}`;
      const t = f.tensors.get(name);
      assert.ok(t, name);
      assert.equal(t.type, type);
      assert.deepEqual(t.ne, [256, 3]);
      assert.equal(t.byteSize, tensorByteSize(type, [256, 3]));
      assert.equal(t.offset % 32, 0);
      const stored = quantize(type, values(256 * 3, i));
      assert.deepEqual(readTensorBytes(f, name), stored, `${name} bytes`);
      assert.deepEqual(readTensorF32(f, name), dequantize(type, stored, 768), `${name} values`);
      assert.deepEqual(readTensorF64(f, name), Float64Array.from(dequantize(type, stored, 768)));
    });
  });

  test('reads raw bytes of types it cannot encode (Q4_1, Q5_1, I8..I32, F64)', () => {
    const rng = new Rng(9, 'raw');
    const raw = (type: GgmlType, ne: number[]): GgufTensorSource => {
      const bytes = Uint8Array.from({ length: tensorByteSize(type, ne) }, () => rng.nextU32() & 0xff);
      return { name: `raw.${GgmlType[type]}`, ne, type, data: bytes };
    };
    const tensors = [raw(GgmlType.Q4_1, [64, 2]), raw(GgmlType.Q5_1, [32, 3]), raw(GgmlType.I8, [5]), raw(GgmlType.I16, [3, 2]), raw(GgmlType.I32, [7]), raw(GgmlType.Q2_K, [256])];
    const f64 = new Float64Array([1.5, -2.25, Math.PI]);
    tensors.push({ name: 'raw.F64', ne: [3], type: GgmlType.F64, data: new Uint8Array(f64.buffer) });
    const path = join(dir, 'raw.gguf');
    writeGguf(path, [], tensors);
    const f = readGguf(path);
    for (const t of tensors) assert.deepEqual(readTensorBytes(f, t.name), t.data, t.name);
    assert.deepEqual(readTensorF64(f, 'raw.F64'), f64);
    assert.deepEqual([...readTensorF32(f, 'raw.I8')], [...new Int8Array((tensors[2].data as Uint8Array).buffer)]);
    assert.throws(() => readTensorF32(f, 'raw.Q2_K'), /not supported/);
  });

  test('honours general.alignment for padding and offsets', () => {
    const path = join(dir, 'align.gguf');
    const kv: GgufKv[] = [{ key: 'general.alignment', value: gv.u32(128) }];
    const tensors: GgufTensorSource[] = [
      { name: 'a', ne: [3], type: GgmlType.F32, data: new Uint8Array(12) },
      { name: 'b', ne: [32], type: GgmlType.Q8_0, data: quantize(GgmlType.Q8_0, values(32, 1)) },
      { name: 'c', ne: [5, 2], type: GgmlType.F16, data: quantize(GgmlType.F16, values(10, 2)) },
    ];
    const layout = writeGguf(path, kv, tensors);
    const f = readGguf(path);
    assert.equal(f.alignment, 128);
    assert.equal(f.dataOffset % 128, 0);
    assert.deepEqual([...f.tensors.values()].map((t) => t.offset), [0, 128, 256]);
    assert.equal(layout.fileSize, f.dataOffset + 256 + 128);
    assert.equal(statSync(path).size, layout.fileSize);
  });

  test('byte layout matches GGUF v3 as the Python gguf writer emits it', () => {
    // Hand-assembled expectation: magic, u32 version, u64 n_tensors, u64 n_kv,
    // KV (u64-length key, u32 type, value), tensor info (name, u32 n_dims,
    // u64 ne[], u32 type, u64 offset), zero padding to 32, data, zero padding.
    const kv: GgufKv[] = [{ key: 'a', value: gv.u32(7) }, { key: 's', value: gv.arrStr(['xy']) }, { key: 'b', value: gv.bool(true) }];
    const data = new Float32Array([1, 2, 3]);
    const path = join(dir, 'golden.gguf');
    writeGguf(path, kv, [{ name: 't', ne: [3, 1], type: GgmlType.F32, data: new Uint8Array(data.buffer) }]);
    const hex = (s: string) => s.replace(/\s+/g, '');
    const expected = hex(`
      47475546 03000000 0100000000000000 0300000000000000
      0100000000000000 61 04000000 07000000
      0100000000000000 73 09000000 08000000 0100000000000000 0200000000000000 7879
      0100000000000000 62 07000000 01
      0100000000000000 74 02000000 0300000000000000 0100000000000000 00000000 0000000000000000`);
    const bytes = readFileSync(path);
    const metaLen = expected.length / 2;
    assert.equal(bytes.subarray(0, metaLen).toString('hex'), expected);
    const dataOffset = alignUp(metaLen, 32);
    assert.ok(bytes.subarray(metaLen, dataOffset).every((b) => b === 0), 'metadata padding is zeros');
    assert.deepEqual(new Float32Array(bytes.buffer.slice(bytes.byteOffset + dataOffset, bytes.byteOffset + dataOffset + 12)), data);
    assert.equal(bytes.length, dataOffset + 32);
    assert.ok(bytes.subarray(dataOffset + 12).every((b) => b === 0), 'tensor padding is zeros');
  });

  test('streams tensor data from chunked producers and checks the size', () => {
    const path = join(dir, 'chunks.gguf');
    const x = values(64, 3);
    const bytes = new Uint8Array(x.buffer);
    writeGguf(path, [], [{ name: 'c', ne: [64], type: GgmlType.F32, data: () => [bytes.subarray(0, 100), bytes.subarray(100)] }]);
    assert.deepEqual(readTensorF32(readGguf(path), 'c'), x);
    assert.throws(() => writeGguf(path, [], [{ name: 'c', ne: [65], type: GgmlType.F32, data: bytes }]), /wrote 256 bytes, expected 260/);
  });

  test('writer rejects what gguf.cpp would reject', () => {
    const p = join(dir, 'bad.gguf');
    assert.throws(() => writeGguf(p, [{ key: 'x', value: gv.u8(1) }, { key: 'x', value: gv.u8(2) }], []), /duplicate KV key/);
    assert.throws(() => writeGguf(p, [], [{ name: 'q', ne: [30], type: GgmlType.Q8_0, data: new Uint8Array(0) }]), /multiple of the q8_0 block size/);
    assert.throws(() => writeGguf(p, [], [{ name: 'x'.repeat(64), ne: [1], type: GgmlType.F32, data: new Uint8Array(4) }]), /too long/);
    assert.throws(() => writeGguf(p, [{ key: 'general.alignment', value: gv.u32(48) }], []), /power of two/);
    assert.throws(() => writeGguf(p, [{ key: 'u8', value: gv.u8(256) }], []), RangeError);
    assert.throws(() => writeGguf(p, [{ key: 'i32', value: gv.i32(1.5) }], []), RangeError);
  });

  test('reader validates structure and names the problem', () => {
    const good = encodeMetadata([{ key: 'k', value: gv.str('v') }], []).bytes;
    const bad = (mutate: (b: Uint8Array) => Uint8Array, re: RegExp) => {
      assert.throws(() => parseGgufBytes(mutate(good.slice())), (e: unknown) => e instanceof GgufFormatError && re.test(e.message));
    };
    bad((b) => b.subarray(0, 3), /not a GGUF file/);
    bad((b) => { b[0] = 0x46; return b; }, /bad magic/);
    bad((b) => { b[4] = 1; return b; }, /unsupported GGUF version 1/);
    bad((b) => { b[4] = 4; return b; }, /unsupported GGUF version 4/);
    bad((b) => b.subarray(0, 20), /truncated/);
    bad((b) => b.subarray(0, b.length - 40), /truncated|exceeds/);
    bad((b) => { b[16] = 200; return b; }, /KV count 200/);
    bad((b) => { b[24 + 8 + 1] = 13; return b; }, /invalid GGUF type 13/);
    // Hand-built files the writer refuses to produce.
    const raw = (build: (w: ByteWriter) => void): Uint8Array => {
      const w = new ByteWriter().bytes(new TextEncoder().encode('GGUF')).u32(3).u64(0).u64(1);
      build(w);
      return w.finish();
    };
    assert.throws(() => parseGgufBytes(raw((w) => writeKv(w, 'general.alignment', gv.u64(32)))), /general.alignment must be UINT32/);
    assert.throws(() => parseGgufBytes(raw((w) => writeKv(w, 'general.alignment', gv.u32(48)))), /not a power of 2/);
    assert.throws(() => parseGgufBytes(raw((w) => w.str('k').u32(GgufValueType.STRING).u64(2).u8(0x61).u8(0xff))), /not valid UTF-8/);
    assert.throws(() => parseGgufBytes(raw((w) => w.str('k').u32(GgufValueType.ARRAY).u32(GgufValueType.ARRAY).u64(0))), /invalid array item type 9/);
    assert.throws(() => parseGgufBytes(raw((w) => w.str('k').u32(GgufValueType.ARRAY).u32(GgufValueType.UINT32).u64(1000))), /array of 1000 items cannot fit/);
    assert.throws(() => parseGgufBytes(raw((w) => w.str('k').u32(GgufValueType.STRING).u64(2n ** 40n))), /string length/);
    assert.throws(() => parseGgufBytes(raw((w) => w.str('').u32(GgufValueType.UINT8).u8(1))), /key 0 is empty/);
  });

  test('reader checks tensor offsets and bounds like gguf.cpp', () => {
    const path = join(dir, 'bounds.gguf');
    const layout = writeGguf(path, [], [
      { name: 'a', ne: [8], type: GgmlType.F32, data: new Uint8Array(32) },
      { name: 'b', ne: [8], type: GgmlType.F32, data: new Uint8Array(32) },
    ]);
    const bytes = new Uint8Array(readFileSync(path));
    const patched = bytes.slice();
    new DataView(patched.buffer).setBigUint64(layout.tensors[1].offsetFieldPos, 64n, true);
    assert.throws(() => parseGgufBytes(patched), /tensor 'b' has data offset 64, expected 32/);
    assert.throws(() => parseGgufBytes(bytes.subarray(0, layout.dataOffset + 40)), /tensor 'b' data .* extends past end of file/);
    const badType = bytes.slice();
    new DataView(badType.buffer).setUint32(layout.tensors[0].offsetFieldPos - 4, 4, true);
    assert.throws(() => parseGgufBytes(badType), /invalid ggml type 4/);
    writeFileSync(path, bytes);
    assert.equal(readGguf(path).tensors.size, 2);
  });
});
