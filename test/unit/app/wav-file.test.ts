// The engine process's WAV reader (files:transcribe): read block by block and
// averaged to mono while decoding, it must give exactly the mono samples the
// engine computes from decodeWav's interleaved floats (float32 samples summed
// in double, divided, rounded once), for every
// supported encoding, odd chunks, cut and streaming-style files, and refuse
// what decodeWav refuses with the same message.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWavMono } from '../../../app/engine-process/wav-file.js';
import { resample } from '../../../app/shared/resample.js';
import { MAX_AUDIO_SECONDS, MAX_WAV_CHUNKS, checkDuration, decodeWav, encodeWav16 } from '../../../app/shared/wav.js';
import { writeSparseWav } from '../../support/audio/sparse-wav.js';
import { prng } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

const dir = scratch('wav');

interface WavSpec {
  format: 1 | 3 | 0xfffe;
  /** For WAVE_FORMAT_EXTENSIBLE: the sub-format (1 PCM, 3 float). */
  subFormat?: 1 | 3;
  bits: 8 | 16 | 24 | 32 | 64;
  channels: number;
  rate: number;
  frames: number;
  /** An odd-sized chunk before "fmt " (padded), as some recorders write. */
  oddChunk?: boolean;
  /** Declared data size: the real one, 0xFFFFFFFF (streaming), or more than there is (a cut file). */
  declared?: 'exact' | 'streaming' | 'more';
}

function build(spec: WavSpec, seed: number): Uint8Array {
  const rnd = prng(seed);
  const bytesPerSample = spec.bits / 8;
  const float = (spec.format === 0xfffe ? spec.subFormat : spec.format) === 3;
  const data = new DataView(new ArrayBuffer(spec.frames * spec.channels * bytesPerSample));
  for (let i = 0, p = 0; i < spec.frames * spec.channels; i++, p += bytesPerSample) {
    const v = (rnd() * 2 - 1) * 0.9;
    if (float) {
      if (spec.bits === 32) data.setFloat32(p, v, true);
      else data.setFloat64(p, v * 1.0000001, true);
    } else if (spec.bits === 8) data.setUint8(p, Math.round(v * 127) + 128);
    else if (spec.bits === 16) data.setInt16(p, Math.round(v * 32767), true);
    else if (spec.bits === 24) {
      const x = Math.round(v * 8388607);
      data.setUint8(p, x & 0xff);
      data.setUint8(p + 1, (x >> 8) & 0xff);
      data.setInt8(p + 2, x >> 16);
    } else data.setInt32(p, Math.round(v * 2147483647), true);
  }
  const fmtSize = spec.format === 0xfffe ? 40 : 16;
  const chunks: Uint8Array[] = [];
  const header = (id: string, size: number): Uint8Array => {
    const h = new Uint8Array(8);
    for (let i = 0; i < 4; i++) h[i] = id.charCodeAt(i);
    new DataView(h.buffer).setUint32(4, size, true);
    return h;
  };
  if (spec.oddChunk) chunks.push(header('LIST', 5), Uint8Array.of(1, 2, 3, 4, 5, 0));
  const fmt = new DataView(new ArrayBuffer(fmtSize));
  fmt.setUint16(0, spec.format, true);
  fmt.setUint16(2, spec.channels, true);
  fmt.setUint32(4, spec.rate, true);
  fmt.setUint32(8, spec.rate * spec.channels * bytesPerSample, true);
  fmt.setUint16(12, spec.channels * bytesPerSample, true);
  fmt.setUint16(14, spec.bits, true);
  if (spec.format === 0xfffe) {
    fmt.setUint16(16, 22, true);
    fmt.setUint16(24, spec.subFormat ?? 1, true);
  }
  chunks.push(header('fmt ', fmtSize), new Uint8Array(fmt.buffer));
  const declared = spec.declared === 'streaming' ? 0xffffffff : spec.declared === 'more' ? data.byteLength + 1000 : data.byteLength;
  chunks.push(header('data', declared), new Uint8Array(data.buffer));
  const body = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(12 + body);
  out.set(header('RIFF', 4 + body));
  out.set([87, 65, 86, 69], 8); // WAVE
  let o = 12;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** The engine's downmix of decodeWav's interleaved float32 samples. */
function engineMono(bytes: Uint8Array): Float32Array {
  const { samples, channels, frames } = decodeWav(bytes);
  const mono = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += samples[i * channels + c]!;
    mono[i] = sum / channels;
  }
  return mono;
}

const SPECS: WavSpec[] = [
  { format: 1, bits: 16, channels: 1, rate: 16_000, frames: 1001 },
  { format: 1, bits: 16, channels: 2, rate: 44_100, frames: 1000, oddChunk: true },
  { format: 1, bits: 8, channels: 3, rate: 8_000, frames: 333 },
  { format: 1, bits: 24, channels: 2, rate: 48_000, frames: 777, declared: 'streaming' },
  { format: 1, bits: 32, channels: 5, rate: 22_050, frames: 512, declared: 'more' },
  { format: 3, bits: 32, channels: 2, rate: 16_000, frames: 999 },
  { format: 3, bits: 64, channels: 2, rate: 32_000, frames: 640, oddChunk: true },
  { format: 0xfffe, subFormat: 1, bits: 16, channels: 6, rate: 48_000, frames: 300 },
  { format: 0xfffe, subFormat: 3, bits: 32, channels: 2, rate: 96_000, frames: 1234 },
];

test('mono samples equal the engine\'s downmix of the interleaved decode, for every encoding and any block size', async () => {
  for (const [i, spec] of SPECS.entries()) {
    const bytes = build(spec, 100 + i);
    const file = join(dir, `case-${i}.wav`);
    writeFileSync(file, bytes);
    const reference = decodeWav(bytes);
    const expected = engineMono(bytes);
    for (const blockBytes of [1, 7 * spec.channels * (spec.bits / 8), 1 << 20]) {
      const got = await readWavMono(file, { blockBytes });
      const what = `${JSON.stringify(spec)} in blocks of ${blockBytes} bytes`;
      assert.equal(got.sampleRate, spec.rate, what);
      assert.equal(got.channels, spec.channels, what);
      assert.equal(got.truncated, reference.truncated, what);
      assert.equal(got.samples.length, reference.frames, what);
      assert.deepEqual(got.samples, expected, what);
    }
  }
});

test('with a sample rate the blocks are resampled as they are read: the same samples as resampling the whole mono decode at once', async () => {
  for (const [i, spec] of SPECS.entries()) {
    if (spec.rate === 16_000) continue;
    const bytes = build(spec, 200 + i);
    const file = join(dir, `resampled-${i}.wav`);
    writeFileSync(file, bytes);
    const expected = resample(engineMono(bytes), spec.rate, 16_000);
    for (const blockBytes of [1, 7 * spec.channels * (spec.bits / 8), 1 << 20]) {
      const got = await readWavMono(file, { blockBytes, sampleRate: 16_000 });
      const what = `${JSON.stringify(spec)} in blocks of ${blockBytes} bytes`;
      assert.equal(got.sampleRate, 16_000, what);
      assert.equal(got.fileSampleRate, spec.rate, what);
      assert.equal(got.samples.length, Math.floor((engineMono(bytes).length * 16_000) / spec.rate), what);
      assert.deepEqual(got.samples, expected, what);
    }
  }
});

test('what decodeWav refuses is refused with the same BAD_AUDIO message; a cancelled read stops', async () => {
  const good = build({ format: 1, bits: 16, channels: 1, rate: 16_000, frames: 100 }, 1);
  const broken: Record<string, Uint8Array> = {
    'not-a-wav': new TextEncoder().encode('this is not audio at all'),
    'tiny': Uint8Array.of(82, 73, 70, 70),
    'no-data': good.slice(0, 36),
    'bad-rate': (() => {
      const b = good.slice();
      new DataView(b.buffer).setUint32(24, 10, true);
      return b;
    })(),
    'bad-bits': (() => {
      const b = good.slice();
      new DataView(b.buffer).setUint16(34, 12, true);
      return b;
    })(),
  };
  for (const [name, bytes] of Object.entries(broken)) {
    const file = join(dir, `${name}.wav`);
    writeFileSync(file, bytes);
    let expected: Error | null = null;
    try {
      decodeWav(bytes);
    } catch (e) {
      expected = e as Error;
    }
    assert.ok(expected, `${name}: decodeWav refuses it`);
    await assert.rejects(readWavMono(file), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'BAD_AUDIO', name);
      assert.equal(e.message, expected!.message, name);
      return true;
    });
  }
  const file = join(dir, 'cancelled.wav');
  writeFileSync(file, build({ format: 1, bits: 16, channels: 2, rate: 16_000, frames: 10_000 }, 2));
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(readWavMono(file, { signal: controller.signal }), (e: Error & { code?: string }) => e.code === 'ABORTED');
});

test('audio over 24 hours is refused from the header at once, before any sample is decoded or allocated', async () => {
  // 256 MiB of 8-bit mono at 1 kHz is 74.6 hours; 4 GiB at 1 kHz is 1193 hours (streaming size field).
  const cases = [
    { name: 'long-8bit.wav', spec: { format: 1, bits: 8, channels: 1, rate: 1000, dataBytes: 256 * 1024 ** 2 } as const, hours: '74.6' },
    { name: 'long-streaming.wav', spec: { format: 1, bits: 8, channels: 1, rate: 1000, dataBytes: 4 * 1024 ** 3, declared: 'streaming' } as const, hours: '1193.0' },
  ];
  for (const { name, spec, hours } of cases) {
    const file = join(dir, name);
    writeSparseWav(file, spec);
    const before = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    await assert.rejects(readWavMono(file), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'BAD_AUDIO', name);
      assert.match(e.message, new RegExp(`the audio is ${hours.replace('.', '\\.')} hours long; at most 24 hours`));
      return true;
    });
    assert.ok(performance.now() - started < 1000, `${name}: refused at once (${(performance.now() - started).toFixed(0)} ms)`);
    assert.ok(process.memoryUsage().arrayBuffers - before < 64 * 1024 ** 2, `${name}: nothing proportional to its length was allocated`);
  }
  // Exactly 24 hours is accepted by the check; one frame more is not.
  assert.doesNotThrow(() => checkDuration(MAX_AUDIO_SECONDS * 16_000, 16_000));
  assert.throws(() => checkDuration(MAX_AUDIO_SECONDS * 16_000 + 1, 16_000), { code: 'BAD_AUDIO' });
});

test('a WAV with 400 000 empty chunks before its audio is refused by both readers after MAX_WAV_CHUNKS, with what to do', async () => {
  const junk = Buffer.alloc(8 * 400_000);
  for (let i = 0; i < 400_000; i += 1) junk.write('JUNK', i * 8, 'latin1'); // each a chunk of size 0
  const plain = Buffer.from(encodeWav16(new Float32Array(1600).fill(0.1), 16000));
  // RIFF/WAVE, the empty chunks, then fmt and data as the encoder wrote them.
  const bytes = Buffer.concat([plain.subarray(0, 12), junk, plain.subarray(12)]);
  bytes.writeUInt32LE(bytes.length - 8, 4);
  const file = join(dir, 'chunky.wav');
  writeFileSync(file, bytes);
  const message = new RegExp(`more than ${MAX_WAV_CHUNKS} chunks before its audio data.*convert it to a plain WAV first`);
  await assert.rejects(readWavMono(file), message);
  assert.throws(() => decodeWav(bytes), message);
  // A file with a few chunks more than usual still opens.
  const few = Buffer.concat([plain.subarray(0, 12), junk.subarray(0, 8 * 100), plain.subarray(12)]);
  few.writeUInt32LE(few.length - 8, 4);
  writeFileSync(file, few);
  assert.equal((await readWavMono(file)).samples.length, 1600);
});

test('a float64 WAV holding ±1e300 is a file at the wrong scale (finite, past float32), not "non-finite samples"', async () => {
  const frames = 1600;
  const data = Buffer.alloc(frames * 8);
  for (let i = 0; i < frames; i += 1) data.writeDoubleLE(i === 800 ? 1e300 : i === 900 ? -1e300 : 0.01, i * 8);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(3, 20); // IEEE float
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16000, 24);
  header.writeUInt32LE(16000 * 8, 28);
  header.writeUInt16LE(8, 32);
  header.writeUInt16LE(64, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  const bytes = Buffer.concat([header, data]);
  const file = join(dir, 'huge-f64.wav');
  writeFileSync(file, bytes);
  const message = /64-bit float samples too large for audio \(1\.00e\+300; float32.*wrong scale; rescale it/;
  await assert.rejects(readWavMono(file), message);
  await assert.rejects(readWavMono(file, { sampleRate: 8000 }), message);
  assert.throws(() => decodeWav(bytes), message);
  // NaN stays what it is: non-finite in the file itself (the engine's own message applies).
  data.writeDoubleLE(Number.NaN, 800 * 8);
  data.writeDoubleLE(0, 900 * 8);
  writeFileSync(file, Buffer.concat([header, data]));
  assert.ok(Number.isNaN((await readWavMono(file)).samples[800]));
});
