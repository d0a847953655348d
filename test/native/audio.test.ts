// Audio input: other rates and channel counts are resampled/downmixed inside
// transcribe() exactly as resample() does; resample() keeps in-band tones (frequency,
// level) and suppresses what would alias.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Model, resample, type TranscribeResult } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';
import { generateModel } from '../support/model/generate.js';
import { noise, rms, speech, tone } from './helpers/audio.js';
import { ONE_THREAD, rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('audio');
const modelPath = join(dir, 'hybrid.gguf');
generateModel(modelPath, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 314 });
let model: Model | undefined;
async function engine(): Promise<Model> {
  model ??= await Model.load(modelPath, ONE_THREAD);
  return model;
}
after(() => model?.dispose());

/** The espeak-ng clip converted by sox to `rate` Hz mono float. */
function speechAt(rate: number): Float32Array {
  const clip = speech(dir);
  const out = join(dir, `speech-${rate}.wav`);
  execFileSync('sox', [clip.rawWav, '-r', String(rate), '-e', 'floating-point', '-b', '32', out]);
  const d = decodeWav(new Uint8Array(readFileSync(out)));
  assert.equal(d.sampleRate, rate);
  return d.samples;
}

function zeroCrossingFrequency(x: Float32Array, rate: number, from: number, to: number): number {
  let first = -1;
  let last = -1;
  let count = 0;
  for (let i = from + 1; i < to; i++) {
    if (x[i - 1] < 0 && x[i] >= 0) {
      // rising zero crossing, linearly interpolated
      const at = i - 1 + x[i - 1] / (x[i - 1] - x[i]);
      if (first < 0) first = at;
      else count++;
      last = at;
    }
  }
  return (count * rate) / (last - first);
}

function sameTranscript(a: TranscribeResult, b: TranscribeResult, label: string): void {
  assert.equal(a.text, b.text, `${label}: text`);
  assert.deepEqual(a.tokens.map((t) => [t.id, t.frame, t.duration]), b.tokens.map((t) => [t.id, t.frame, t.duration]), `${label}: tokens`);
}

describe('transcribe() with other sample rates and channel counts', () => {
  test('44.1 kHz stereo gives the same transcript as resample() to 16 kHz mono first', async () => {
    const m = await engine();
    const mono = speechAt(44100).subarray(0, 44100 * 6);
    const hiss = noise(mono.length, 0.02, 8);
    const stereo = new Float32Array(mono.length * 2);
    for (let i = 0; i < mono.length; i++) {
      stereo[2 * i] = mono[i];
      stereo[2 * i + 1] = 0.5 * mono[i] + hiss[i];
    }
    const direct = await m.transcribe(stereo, { sampleRate: 44100, channels: 2, captureMel: true });
    const pre = await resample(stereo, 2, 44100, 16000);
    assert.equal(pre.length, Math.floor((mono.length * 16000) / 44100));
    const viaResample = await m.transcribe(pre, { captureMel: true });
    assert.ok(Math.abs(direct.durationSec - mono.length / 44100) < 1e-6, `durationSec ${direct.durationSec}`);
    assert.ok(direct.tokens.length > 5, 'the clip produced tokens');
    sameTranscript(direct, viaResample, '44.1 kHz stereo');
    assert.deepEqual(direct.mel?.data, viaResample.mel?.data, 'identical features');
    for (const decoder of ['ctc'] as const) {
      sameTranscript(
        await m.transcribe(stereo, { sampleRate: 44100, channels: 2, decoder }),
        await m.transcribe(pre, { decoder }),
        `44.1 kHz stereo, ${decoder}`,
      );
    }
    // Against sox's resampler (a different filter): report only.
    const sox16 = speechAt(16000).subarray(0, pre.length);
    const mixSox = new Float32Array(sox16.length);
    const hiss16 = await resample(hiss, 1, 44100, 16000);
    for (let i = 0; i < sox16.length; i++) mixSox[i] = 0.75 * sox16[i] + 0.5 * hiss16[i];
    const soxResult = await m.transcribe(mixSox);
    console.log(`44.1k stereo: ${direct.tokens.length} tokens; sox-resampled input agrees on text: ${soxResult.text === direct.text}`);
  });

  test('8 kHz mono gives the same transcript as resample() to 16 kHz first', async () => {
    const m = await engine();
    const pcm8 = speechAt(8000).subarray(0, 8000 * 5);
    const direct = await m.transcribe(pcm8, { sampleRate: 8000 });
    const pre = await resample(pcm8, 1, 8000, 16000);
    assert.equal(pre.length, pcm8.length * 2);
    const viaResample = await m.transcribe(pre);
    assert.ok(Math.abs(direct.durationSec - 5) < 1e-9);
    assert.ok(direct.tokens.length > 5);
    sameTranscript(direct, viaResample, '8 kHz mono');
    // Timestamps are in seconds of the input.
    for (const w of direct.words) assert.ok(w.end <= 5 + 0.4, `word ${w.text} ends at ${w.end}`);
  });

  test('channels are averaged: L = x, R = −x is silence; L = R = x is x', async () => {
    const x = tone(16000, 440, 0.5);
    const opposite = new Float32Array(32000);
    const same = new Float32Array(32000);
    for (let i = 0; i < 16000; i++) {
      opposite[2 * i] = x[i];
      opposite[2 * i + 1] = -x[i];
      same[2 * i] = x[i];
      same[2 * i + 1] = x[i];
    }
    assert.ok((await resample(opposite, 2, 16000, 16000)).every((v) => v === 0));
    assert.deepEqual(await resample(same, 2, 16000, 16000), x);
    assert.deepEqual(await resample(x, 1, 16000, 16000), x, 'same rate, mono: unchanged');
  });
});

describe('resample()', () => {
  const SEC = 2;
  for (const inRate of [48000, 44100, 22050, 8000]) {
    test(`1 kHz sine ${inRate} Hz → 16 kHz keeps its frequency and RMS (±1%)`, async () => {
      const x = tone(inRate * SEC, 1000, 0.5, inRate);
      const y = await resample(x, 1, inRate, 16000);
      assert.equal(y.length, Math.floor((x.length * 16000) / inRate));
      const edge = 1600; // skip the filter's edge effects
      const f = zeroCrossingFrequency(y, 16000, edge, y.length - edge);
      const level = rms(y, edge, y.length - edge) / rms(x);
      console.log(`1 kHz at ${inRate} → 16000: ${f.toFixed(3)} Hz, RMS ratio ${level.toFixed(5)}`);
      assert.ok(Math.abs(f - 1000) < 1, `frequency ${f}`);
      assert.ok(Math.abs(level - 1) <= 0.01, `RMS ratio ${level}`);
    });
  }

  test('16 kHz → 48 kHz upsampling keeps a 1 kHz sine', async () => {
    const x = tone(32000, 1000, 0.5);
    const y = await resample(x, 1, 16000, 48000);
    assert.equal(y.length, 96000);
    const f = zeroCrossingFrequency(y, 48000, 4800, y.length - 4800);
    assert.ok(Math.abs(f - 1000) < 1, `${f}`);
    assert.ok(Math.abs(rms(y, 4800, y.length - 4800) / rms(x) - 1) <= 0.01);
  });

  const attenuation = async (freq: number, inRate = 48000): Promise<number> => {
    const x = tone(inRate * SEC, freq, 0.5, inRate);
    const y = await resample(x, 1, inRate, 16000);
    return 20 * Math.log10(rms(y, 1600, y.length - 1600) / rms(x));
  };

  test('a 7.9 kHz tone at 48 kHz → 16 kHz is attenuated by ≥ 40 dB (anti-aliasing margin below Nyquist)', async () => {
    const db = await attenuation(7900);
    console.log(`7.9 kHz 48k→16k: ${db.toFixed(1)} dB`);
    assert.ok(db <= -40, `7.9 kHz attenuated by only ${(-db).toFixed(1)} dB`);
  });

  test('tones above the new Nyquist (8.2, 9, 12, 20 kHz) do not alias into the output (≥ 40 dB down)', async () => {
    const measured: string[] = [];
    const failures: string[] = [];
    for (const f of [8200, 9000, 12000, 20000]) {
      const db = await attenuation(f);
      measured.push(`${f} Hz ${db.toFixed(1)} dB`);
      if (!(db <= -40)) failures.push(`${f} Hz aliases at ${db.toFixed(1)} dB`);
    }
    console.log(`aliasing 48k→16k: ${measured.join(', ')}`);
    assert.deepEqual(failures, []);
  });

  test('in-band tones (3 kHz, 6 kHz) pass within 0.1 dB', async () => {
    for (const f of [3000, 6000]) {
      const db = await attenuation(f);
      assert.ok(Math.abs(db) < 0.1, `${f} Hz: ${db.toFixed(2)} dB`);
    }
  });

  test('bad input → BAD_AUDIO: empty, NaN, input rate 0, channel mismatch', async () => {
    const x = tone(1600, 440);
    // (Called through a function: the channel check throws synchronously, the others reject.)
    await rejectsWithCode(() => resample(new Float32Array(0), 1, 16000, 16000), 'BAD_AUDIO', /empty/);
    await rejectsWithCode(() => resample(new Float32Array(10).fill(Number.NaN), 1, 16000, 16000), 'BAD_AUDIO', /non-finite/);
    await rejectsWithCode(() => resample(x, 1, 0, 16000), 'BAD_AUDIO', /sample rate/);
    await rejectsWithCode(() => resample(x.subarray(0, 11), 2, 16000, 16000), 'BAD_AUDIO', /channel/);
  });

  test('an unusable output rate (0, negative, non-integer) is refused with BAD_AUDIO or BAD_ARGUMENT', async () => {
    const x = tone(1600, 440);
    const outcomes: string[] = [];
    for (const outRate of [0, -5, 1.5]) {
      try {
        const y = await resample(x, 1, 16000, outRate);
        outcomes.push(`outRate ${outRate}: resolved with ${y.length} samples`);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code !== 'BAD_AUDIO' && code !== 'BAD_ARGUMENT') outcomes.push(`outRate ${outRate}: ${code} ${(error as Error).message}`);
      }
    }
    assert.deepEqual(outcomes, []);
  });
});
