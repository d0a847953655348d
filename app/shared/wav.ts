// WAV (RIFF/WAVE) decoding to float PCM. Pure TypeScript (no Node APIs), so
// the CLI, the main process and the renderer share it; the engine process
// reads files block by block with the same pieces (app/engine-process/wav-file.ts).
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
// Neither the CLI nor the app decodes compressed formats: name the conversion that works.
export const NOT_WAV = 'not a WAV file (no RIFF/WAVE header); convert it first, e.g. ffmpeg -i in.m4a -ar 16000 -ac 1 out.wav';

/** The four-character code at `offset`. */
export function chunkTag(view: DataView, offset: number): string {
  return String.fromCharCode(view.getUint8(offset), view.getUint8(offset + 1), view.getUint8(offset + 2), view.getUint8(offset + 3));
}

/** What a "fmt " chunk declares. */
export interface WavFormat {
  format: number;
  channels: number;
  sampleRate: number;
  bits: number;
}

/** A supported sample layout, checked. */
export interface WavEncoding {
  channels: number;
  sampleRate: number;
  bits: number;
  float: boolean;
  bytesPerSample: number;
  frameBytes: number;
}

/** Reads a "fmt " chunk of `size` bytes whose body starts at `body` in `view`; `available` bytes of it exist. */
export function parseFmtChunk(view: DataView, body: number, size: number, available: number): WavFormat {
  if (size < 16 || available < 16) throw new AudioFormatError('WAV "fmt " chunk is too short');
  let format = view.getUint16(body, true);
  const channels = view.getUint16(body + 2, true);
  const sampleRate = view.getUint32(body + 4, true);
  const bits = view.getUint16(body + 14, true);
  if (format === FORMAT_EXTENSIBLE && size >= 40 && available >= 26) {
    format = view.getUint16(body + 24, true);  // first two bytes of the sub-format GUID
  }
  return { format, channels, sampleRate, bits };
}

/** Checks what the header declared; throws the error a user can act on. */
export function wavEncoding(fmt: WavFormat | null, hasData: boolean): WavEncoding {
  if (!fmt) throw new AudioFormatError('WAV file has no "fmt " chunk');
  if (!hasData) throw new AudioFormatError('WAV file has no "data" chunk');
  const { format, channels, sampleRate, bits } = fmt;
  if (channels < 1 || channels > 64) throw new AudioFormatError(`WAV file declares ${channels} channels (1..64 supported)`);
  if (sampleRate < 1000 || sampleRate > 768000) throw new AudioFormatError(`WAV sample rate ${sampleRate} Hz is not supported`);
  const integer = format === FORMAT_PCM && [8, 16, 24, 32].includes(bits);
  const float = format === FORMAT_FLOAT && (bits === 32 || bits === 64);
  if (!integer && !float) {
    throw new AudioFormatError(`WAV encoding (format ${format}, ${bits}-bit) is not supported; use PCM 8/16/24/32-bit or float 32/64-bit`);
  }
  const bytesPerSample = bits / 8;
  return { channels, sampleRate, bits, float, bytesPerSample, frameBytes: bytesPerSample * channels };
}

/** Bytes of the data chunk that can be read (`available` exist after its start), and whether it was cut short. */
export function dataExtent(declared: number, available: number): { usable: number; truncated: boolean } {
  // 0xFFFFFFFF (or a size past the end) is written by streaming recorders: read to the end.
  const truncated = declared !== 0xffffffff && declared > available;
  const usable = Math.min(declared === 0xffffffff ? available : declared, available);
  return { usable, truncated };
}

/**
 * Most chunks walked before the "data" chunk. Recorders write a handful (fmt, LIST, bext, fact, JUNK…); a
 * file with thousands is crafted, and walking 400 000 empty chunks of a file took 12 s.
 */
export const MAX_WAV_CHUNKS = 1024;

/** The error for a walk that reached MAX_WAV_CHUNKS without finding the audio. */
export function tooManyChunks(): AudioFormatError {
  return new AudioFormatError(
    `the WAV file has more than ${MAX_WAV_CHUNKS} chunks before its audio data, which no recorder writes; ` +
      'convert it to a plain WAV first, e.g. ffmpeg -i in.wav -ar 16000 -ac 1 out.wav',
  );
}

/** Longest audio one transcription takes: the engine's limit (kMaxAudioSeconds in native/engine). */
export const MAX_AUDIO_SECONDS = 24 * 3600;

/**
 * Refuses, from the header alone, audio longer than the engine will take: decoding it first would
 * hold memory proportional to a length that is refused anyway (1 GiB of 8-bit audio at 1 kHz is 298 h).
 */
export function checkDuration(frames: number, sampleRate: number): void {
  const seconds = frames / sampleRate;
  if (seconds > MAX_AUDIO_SECONDS) {
    throw new AudioFormatError(
      `the audio is ${(seconds / 3600).toFixed(1)} hours long; at most 24 hours can be transcribed in one call; ` +
        'split it first, e.g. ffmpeg -i in.wav -f segment -segment_time 3600 -c copy part%03d.wav',
    );
  }
}

/** One sample at byte `p`, in [-1, 1] for integers (floats as stored, not yet rounded to float32). */
export function readSample(view: DataView, p: number, enc: WavEncoding): number {
  const bits = enc.bits;
  if (enc.float) return bits === 32 ? view.getFloat32(p, true) : view.getFloat64(p, true);
  if (bits === 8) return (view.getUint8(p) - 128) / 128;
  if (bits === 16) return view.getInt16(p, true) / 32768;
  if (bits === 24) return (view.getUint8(p) | (view.getUint8(p + 1) << 8) | (view.getInt8(p + 2) << 16)) / 8388608;
  return view.getInt32(p, true) / 2147483648;
}

/**
 * Averages `frames` interleaved frames starting at byte `byteOffset` into mono samples `out[outOffset…]`,
 * as the engine's former C++ downmix did (so files give the samples they always gave): each sample as
 * float32, summed in double, divided by the channel count, rounded to float32 once. The engine takes
 * mono PCM at its model's rate only: this downmix and app/shared/resample.ts are the app's conversions.
 */
export function downmixInto(view: DataView, byteOffset: number, frames: number, enc: WavEncoding, out: Float32Array, outOffset: number): void {
  const { channels, bytesPerSample } = enc;
  const wide = enc.float && enc.bits === 64;
  let p = byteOffset;
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++, p += bytesPerSample) sum += wide ? narrowed(readSample(view, p, enc)) : Math.fround(readSample(view, p, enc));
    out[outOffset + i] = sum / channels;
  }
}

/** Largest float32 magnitude. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * A float64 sample as float32. One past float32's range is finite in the file but would become infinity,
 * which the engine reports as a broken recording or decoder: it is a file written at the wrong scale (float
 * audio belongs in [-1, 1]), and is said so.
 */
function narrowed(value: number): number {
  const f = Math.fround(value);
  if (Number.isFinite(value) && !Number.isFinite(f)) {
    throw new AudioFormatError(
      `the WAV holds 64-bit float samples too large for audio (${value.toPrecision(3)}; float32, what the engine computes in, ` +
        `ends at ±${FLOAT32_MAX.toPrecision(3)}, and audio belongs in [-1, 1]): the file was written at the wrong scale; ` +
        'rescale it, e.g. sox in.wav -b 16 out.wav gain -n',
    );
  }
  return f;
}

export function decodeWav(bytes: Uint8Array): DecodedAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || chunkTag(view, 0) !== 'RIFF' || chunkTag(view, 8) !== 'WAVE') {
    throw new AudioFormatError(NOT_WAV);
  }
  let fmt: WavFormat | null = null;
  let dataOffset = -1;
  let dataLength = 0;
  let offset = 12;
  for (let chunks = 0; offset + 8 <= bytes.byteLength; chunks += 1) {
    if (chunks === MAX_WAV_CHUNKS) throw tooManyChunks();
    const id = chunkTag(view, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      fmt = parseFmtChunk(view, body, size, bytes.byteLength - body);
    } else if (id === 'data') {
      dataOffset = body;
      dataLength = size;
      break;
    }
    offset = body + size + (size & 1);
  }
  const enc = wavEncoding(fmt, dataOffset >= 0);
  const { usable, truncated } = dataExtent(dataLength, Math.max(0, bytes.byteLength - dataOffset));
  const frames = Math.floor(usable / enc.frameBytes);
  checkDuration(frames, enc.sampleRate);
  const samples = new Float32Array(frames * enc.channels);
  const wide = enc.float && enc.bits === 64;
  for (let i = 0, p = dataOffset; i < samples.length; i++, p += enc.bytesPerSample) samples[i] = wide ? narrowed(readSample(view, p, enc)) : readSample(view, p, enc);
  return { sampleRate: enc.sampleRate, channels: enc.channels, samples, frames, truncated };
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
