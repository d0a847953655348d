// Silero VAD ONNX → the GGUF of the model spec §8 (`general.architecture = "silero_vad"`, both rates,
// tensors `vad16k.*` / `vad8k.*` in PyTorch shapes). F16 stores the conv and LSTM weights as F16 and keeps
// the STFT basis and every bias in F32, as parakeet.cpp's converter does.
import { createHash } from 'node:crypto';
import { encodeGgufBytes, type GgufInMemoryTensor, type GgufOutValue } from '../models/nemo/gguf-out.js';
import { f32ToF16Bits } from '../../shared/half.js';
import {
  readSileroOnnx,
  SILERO_ENCODER_CHANNELS,
  SILERO_ENCODER_STRIDES,
  SILERO_HIDDEN,
  SILERO_KERNEL,
  type SileroRateWeights,
} from './silero-onnx.js';

export type SileroWeightType = 'f32' | 'f16';

/** Official exports we know by hash; anything else converts with version "unknown". */
export const KNOWN_SILERO_ONNX: ReadonlyMap<string, string> = new Map([
  ['1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3', 'v6.2'],
  ['2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f', 'v5.1.2'],
]);

const ratePrefix = (r: SileroRateWeights): string => (r.sampleRate === 16000 ? 'vad16k' : 'vad8k');

function keepsF32(name: string): boolean {
  return name === 'stft.forward_basis_buffer' || name.endsWith('bias') || name.endsWith('bias_ih') || name.endsWith('bias_hh');
}

export interface ConvertedSilero {
  gguf: Uint8Array;
  sourceSha256: string;
  sourceVersion: string;
}

/** Converts an official Silero v5/v6 ONNX file's bytes; throws naming what was found for other files. */
export function convertSileroOnnx(onnx: Uint8Array, weightType: SileroWeightType = 'f32'): ConvertedSilero {
  const sourceSha256 = createHash('sha256').update(onnx).digest('hex');
  const sourceVersion = KNOWN_SILERO_ONNX.get(sourceSha256) ?? 'unknown';
  const gguf = encodeSileroGguf(readSileroOnnx(onnx), { version: sourceVersion, sha256: sourceSha256 }, weightType);
  return { gguf, sourceSha256, sourceVersion };
}

/** The §8 GGUF of both rates' weights (16 kHz and 8 kHz, as readSileroOnnx returns them). */
export function encodeSileroGguf(
  rates: readonly SileroRateWeights[], source: { version: string; sha256: string }, weightType: SileroWeightType,
): Uint8Array {
  const kv = new Map<string, GgufOutValue>([
    ['general.architecture', { type: 'str', value: 'silero_vad' }],
    ['general.name', { type: 'str', value: 'silero-vad' }],
    ['general.license', { type: 'str', value: 'MIT' }],
    ['general.url', { type: 'str', value: 'https://github.com/snakers4/silero-vad' }],
    ['silero_vad.source.version', { type: 'str', value: source.version }],
    ['silero_vad.source.sha256', { type: 'str', value: source.sha256 }],
    ['silero_vad.sample_rates', { type: 'i32[]', value: [8000, 16000] }],
    ['silero_vad.encoder.n_layers', { type: 'u32', value: SILERO_ENCODER_CHANNELS.length }],
    ['silero_vad.encoder.strides', { type: 'i32[]', value: [...SILERO_ENCODER_STRIDES] }],
    ['silero_vad.encoder.channels', { type: 'i32[]', value: [...SILERO_ENCODER_CHANNELS] }],
    ['silero_vad.encoder.kernel', { type: 'u32', value: SILERO_KERNEL }],
    ['silero_vad.lstm.hidden', { type: 'u32', value: SILERO_HIDDEN }],
  ]);
  for (const r of rates) {
    const key = `silero_vad.${r.sampleRate}`;
    kv.set(`${key}.chunk_samples`, { type: 'u32', value: r.chunkSamples });
    kv.set(`${key}.context_samples`, { type: 'u32', value: r.contextSamples });
    kv.set(`${key}.stft.n_fft`, { type: 'u32', value: r.nFft });
    kv.set(`${key}.stft.hop`, { type: 'u32', value: r.hop });
    kv.set(`${key}.stft.right_reflect_pad`, { type: 'u32', value: r.rightReflectPad });
  }
  const tensors: GgufInMemoryTensor[] = [];
  for (const r of rates) {
    for (const [name, t] of r.tensors) {
      const count = t.shape.reduce((a, b) => a * b, 1);
      if (count !== t.values.length) throw new Error(`tensor ${name}: shape [${t.shape.join(', ')}] but ${t.values.length} values`);
      const f16 = weightType === 'f16' && !keepsF32(name);
      const data = f16 ? f16Bytes(t.values) : new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength);
      // PyTorch order (slowest first) reversed: ggml's ne.
      tensors.push({ name: `${ratePrefix(r)}.${name}`, ne: [...t.shape].reverse(), type: f16 ? GGML_TYPE_F16 : GGML_TYPE_F32, byteSize: data.length, data });
    }
  }
  return encodeGgufBytes([...kv], tensors);
}

const GGML_TYPE_F32 = 0;
const GGML_TYPE_F16 = 1;

function f16Bytes(values: Float32Array): Uint8Array {
  const out = new Uint8Array(values.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint16(i * 2, f32ToF16Bits(values[i]!), true);
  return out;
}
