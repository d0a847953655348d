// WAV files of any length that cost nothing to make: a real header followed by
// a data chunk that is a hole in the file (reads as zeros, silence), so tests
// can have a 2.2 GiB file or 300 hours of audio without writing it.
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';

export interface SparseWavSpec {
  /** 1 PCM, 3 IEEE float. */
  format: 1 | 3;
  bits: 8 | 16 | 24 | 32 | 64;
  channels: number;
  rate: number;
  /** Bytes of audio in the data chunk (the file is 44 bytes longer). */
  dataBytes: number;
  /** What the data chunk's size field says: the real size (clamped to 32 bits) or 0xFFFFFFFF like streaming recorders. */
  declared?: 'exact' | 'streaming';
}

export const SPARSE_WAV_HEADER_BYTES = 44;

export function writeSparseWav(path: string, spec: SparseWavSpec): void {
  const header = new DataView(new ArrayBuffer(SPARSE_WAV_HEADER_BYTES));
  const tag = (at: number, text: string): void => {
    for (let i = 0; i < 4; i++) header.setUint8(at + i, text.charCodeAt(i));
  };
  const bytesPerSample = spec.bits / 8;
  const clamp = (n: number): number => Math.min(n, 0xffffffff);
  tag(0, 'RIFF');
  header.setUint32(4, clamp(36 + spec.dataBytes), true);
  tag(8, 'WAVE');
  tag(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, spec.format, true);
  header.setUint16(22, spec.channels, true);
  header.setUint32(24, spec.rate, true);
  header.setUint32(28, clamp(spec.rate * spec.channels * bytesPerSample), true);
  header.setUint16(32, spec.channels * bytesPerSample, true);
  header.setUint16(34, spec.bits, true);
  tag(36, 'data');
  header.setUint32(40, spec.declared === 'streaming' ? 0xffffffff : clamp(spec.dataBytes), true);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, new Uint8Array(header.buffer));
    ftruncateSync(fd, SPARSE_WAV_HEADER_BYTES + spec.dataBytes);
  } finally {
    closeSync(fd);
  }
}
