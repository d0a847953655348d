// 32-bit float WAV: segment cuts written for files:transcribe must keep the
// exact samples the session decoded (16-bit would re-quantize them).
export function encodeWavFloat32(samples: Float32Array, sampleRate: number): Buffer {
  const data = samples.length * 4;
  const out = Buffer.alloc(44 + data);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + data, 4);
  out.write('WAVE', 8, 'latin1');
  out.write('fmt ', 12, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(3, 20); // IEEE float
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 4, 28);
  out.writeUInt16LE(4, 32);
  out.writeUInt16LE(32, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(data, 40);
  for (let i = 0; i < samples.length; i++) out.writeFloatLE(samples[i], 44 + i * 4);
  return out;
}
