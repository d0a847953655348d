// What resampling costs a long file: a WAV of `--minutes` (default 60) of
// 44.1 kHz stereo 16-bit speech-like noise, read as files:transcribe reads it
// (app/engine-process/wav-file.ts) once at its own rate and once resampled to
// 16 kHz while reading; the difference is the resampler's share. Also the
// resampler alone over the same minutes in memory, mono.
//
//   npm run bench:resample -- [--minutes 60] [--rate 44100]
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resample } from '../../app/shared/resample.js';
import { readWavMono } from '../../app/engine-process/wav-file.js';
import { prng } from '../support/audio/signals.js';
import { SPARSE_WAV_HEADER_BYTES, writeSparseWav } from '../support/audio/sparse-wav.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '60' }, rate: { type: 'string', default: '44100' } } });
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const frames = Math.round(minutes * 60 * rate);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-resample-bench-'));
  try {
    const file = join(dir, 'long.wav');
    // The header (and the file's length), then the samples written over the hole.
    writeSparseWav(file, { format: 1, bits: 16, channels: 2, rate, dataBytes: frames * 4 });
    const fd = openSync(file, 'r+');
    const next = prng(1);
    const block = Buffer.alloc(rate * 4); // one second
    for (let done = 0; done < frames; done += rate) {
      const n = Math.min(rate, frames - done);
      for (let i = 0; i < n; i++) {
        const t = (done + i) / rate;
        const v = 0.3 * Math.sin(2 * Math.PI * 220 * t) * (0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t)) + 0.05 * (next() - 0.5);
        block.writeInt16LE(Math.round(v * 32767), 4 * i);
        block.writeInt16LE(Math.round(0.8 * v * 32767), 4 * i + 2);
      }
      writeSync(fd, block, 0, n * 4, SPARSE_WAV_HEADER_BYTES + done * 4);
    }
    closeSync(fd);
    const seconds = async (f: () => Promise<unknown> | unknown): Promise<number> => {
      const t = performance.now();
      await f();
      return (performance.now() - t) / 1000;
    };
    let mono: Float32Array = new Float32Array(0);
    const plain = await seconds(async () => {
      mono = (await readWavMono(file)).samples;
    });
    let out = 0;
    const resampled = await seconds(async () => {
      out = (await readWavMono(file, { sampleRate: 16_000 })).samples.length;
    });
    const alone = await seconds(() => resample(mono, rate, 16_000));
    process.stdout.write(
      `${minutes} min of ${rate} Hz stereo 16-bit (${(frames * 4 / 1e6).toFixed(0)} MB) → 16 kHz mono (${out} samples):\n` +
        `  read + downmix ${plain.toFixed(2)} s; read + downmix + resample ${resampled.toFixed(2)} s; resample alone (in memory) ${alone.toFixed(2)} s\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
