// WAV (RIFF/WAVE) decoding to float PCM. Pure TypeScript (no Node APIs), so
// the CLI, the main process and the renderer share it.
//
// Supported: PCM integer 8/16/24/32-bit, IEEE float 32/64-bit, mono or any
// channel count, WAVE_FORMAT_EXTENSIBLE. Errors carry code 'BAD_AUDIO'.

export interface DecodedAudio {
  sampleRate: number;
  channels: number;
  /** Interleaved samples in [-1, 1] (floats may exceed it). */
  samples: Float32Array;
  /** Frames per channel. */
  frames: number;
  /** True when the data chunk was shorter than its header said (a cut file). */
  truncated: boolean;
}

export class AudioFormatError extends Error {
  readonly code = 'BAD_AUDIO';
}

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;

function tag(view: DataView, offset: number): string {
  return String.fromCharCode(view.getUint8(offset), view.getUint8(offset + 1), view.getUint8(offset + 2), view.getUint8(offset + 3));
}

export function decodeWav(bytes: Uint8Array): DecodedAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || tag(view, 0) !== 'RIFF' || tag(view, 8) !== 'WAVE') {
    throw new AudioFormatError('not a WAV file (no RIFF/WAVE header); convert it to WAV or use the app, which decodes other formats');
  }
  let format = -1;
  let channels = 0;
  let sampleRate = 0;
  let bits = 0;
  let dataOffset = -1;
  let dataLength = 0;
  let offset = 12;
  while (offset + 8 <= bytes.byteLength) {
    const id = tag(view, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.byteLength) throw new AudioFormatError('WAV "fmt " chunk is too short');
      format = view.getUint16(body, true);
      channels = view.getUint16(body + 2, true);
      sampleRate = view.getUint32(body + 4, true);
      bits = view.getUint16(body + 14, true);
      if (format === FORMAT_EXTENSIBLE && size >= 40 && body + 26 <= bytes.byteLength) {
        format = view.getUint16(body + 24, true);  // first two bytes of the sub-format GUID
      }
    } else if (id === 'data') {
      dataOffset = body;
      // 0xFFFFFFFF (or a size past the end) is written by streaming recorders: read to the end.
      dataLength = size;
      break;
    }
    offset = body + size + (size & 1);
  }
  if (format < 0) throw new AudioFormatError('WAV file has no "fmt " chunk');
  if (dataOffset < 0) throw new AudioFormatError('WAV file has no "data" chunk');
  if (channels < 1 || channels > 64) throw new AudioFormatError(`WAV file declares ${channels} channels (1..64 supported)`);
  if (sampleRate < 1000 || sampleRate > 768000) throw new AudioFormatError(`WAV sample rate ${sampleRate} Hz is not supported`);
  const integer = format === FORMAT_PCM && [8, 16, 24, 32].includes(bits);
  const float = format === FORMAT_FLOAT && (bits === 32 || bits === 64);
  if (!integer && !float) {
    throw new AudioFormatError(`WAV encoding (format ${format}, ${bits}-bit) is not supported; use PCM 8/16/24/32-bit or float 32/64-bit`);
  }
  const bytesPerSample = bits / 8;
  const frameBytes = bytesPerSample * channels;
  const available = Math.max(0, bytes.byteLength - dataOffset);
  const truncated = dataLength !== 0xffffffff && dataLength > available;
  const usable = Math.min(dataLength === 0xffffffff ? available : dataLength, available);
  const frames = Math.floor(usable / frameBytes);
  const samples = new Float32Array(frames * channels);
  let p = dataOffset;
  for (let i = 0; i < samples.length; i++, p += bytesPerSample) {
    if (float) samples[i] = bits === 32 ? view.getFloat32(p, true) : view.getFloat64(p, true);
    else if (bits === 8) samples[i] = (view.getUint8(p) - 128) / 128;
    else if (bits === 16) samples[i] = view.getInt16(p, true) / 32768;
    else if (bits === 24) {
      const v = view.getUint8(p) | (view.getUint8(p + 1) << 8) | (view.getInt8(p + 2) << 16);
      samples[i] = v / 8388608;
    } else samples[i] = view.getInt32(p, true) / 2147483648;
  }
  return { sampleRate, channels, samples, frames, truncated };
}

/** 16-bit PCM WAV bytes of mono or interleaved float samples (clipped to [-1, 1]). */
export function encodeWav16(samples: Float32Array, sampleRate: number, channels = 1): Uint8Array {
  const dataBytes = samples.length * 2;
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const writeTag = (offset: number, text: string) => {
    for (let i = 0; i < 4; i++) view.setUint8(offset + i, text.charCodeAt(i));
  };
  writeTag(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  writeTag(8, 'WAVE');
  writeTag(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, FORMAT_PCM, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  writeTag(36, 'data');
  view.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i]));
    view.setInt16(44 + i * 2, Math.round(v * 32767), true);
  }
  return out;
}
