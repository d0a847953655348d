// A file job's audio, window by window from the file (windowed-wav.ts): the streamed planner cuts where
// the one-pass reference (test/reference/windows.ts) cuts, for any block size; the windows read one by one are the
// very samples readWavMono gives for the whole file (resampled from 44.1 kHz stereo); and what is held at
// any time is one window and a block, not the file (a 3-hour file held ~750 MiB as one array).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { WindowedWav } from '../../../app/engine-process/windowed-wav.js';
import { readWavMono } from '../../../app/engine-process/wav-file.js';
import { WindowPlanner } from '../../../native/windows.js';
import { planWindows } from '../../reference/windows.js';
import { encodeWav16 } from '../../../app/shared/wav.js';
import { prng } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

const dir = scratch('windowed-wav');

/** Speech-like bursts with quiet gaps of varying lengths, so the quietest 200 ms moves around. */
function bursty(samples: number, rate: number, seed: number): Float32Array {
  const rnd = prng(seed);
  const out = new Float32Array(samples);
  let loud = true;
  for (let i = 0; i < samples; ) {
    const run = Math.floor((loud ? 0.5 + rnd() * 3 : 0.05 + rnd() * 0.6) * rate);
    for (let j = 0; j < run && i < samples; j += 1, i += 1) out[i] = (rnd() * 2 - 1) * (loud ? 0.5 : 0.01);
    loud = !loud;
  }
  return out;
}

test('the streamed planner cuts exactly where planWindows does, whatever the block size', () => {
  for (const [seconds, maxSec, block, seed] of [[95.3, 20, 1600, 1], [61, 7, 333, 2], [19.99, 20, 4096, 3], [20.01, 20, 160, 4], [300, 20, 65_536, 5], [3.3, 0.1, 777, 6]] as const) {
    const rate = 16000;
    const pcm = bursty(Math.round(seconds * rate), rate, seed);
    const maxSamples = Math.trunc(maxSec * rate);
    const planner = new WindowPlanner(rate, maxSamples, 1280);
    for (let i = 0; i < pcm.length; i += block) planner.push(pcm.subarray(i, i + block));
    assert.deepEqual(planner.finish(), planWindows(pcm, rate, maxSamples, 1280), `${seconds} s in ${maxSec} s windows, blocks of ${block}`);
  }
});

test('windows read from the file one by one are readWavMono\'s samples, planned alike; memory holds a window and a block', async () => {
  const fileRate = 44100;
  const seconds = 150;
  const left = bursty(fileRate * seconds, fileRate, 7);
  const stereo = new Float32Array(left.length * 2);
  for (let i = 0; i < left.length; i += 1) {
    stereo[2 * i] = left[i]!;
    stereo[2 * i + 1] = left[i]! * 0.5;
  }
  const file = join(dir, 'long.wav');
  writeFileSync(file, encodeWav16(stereo, fileRate, 2));
  const whole = (await readWavMono(file, { sampleRate: 16000 })).samples;

  const maxSamples = 20 * 16000;
  const blockBytes = 64 * 1024;
  const wav = await WindowedWav.open(file, { sampleRate: 16000, maxSamples, align: 1280, blockBytes });
  assert.equal(wav.samples, whole.length);
  assert.deepEqual(wav.windows, planWindows(whole, 16000, maxSamples, 1280));
  assert.ok(wav.windows.length >= 8);
  assert.equal(wav.heldSamples, 0, 'nothing of the audio is kept after planning');
  // One block of the file, resampled to 16 kHz (and the resampler's few samples of latency).
  const blockSamples = Math.ceil(((blockBytes / 4) * 16000) / fileRate) + 64;
  for (let i = 0; i < wav.windows.length; i += 1) {
    const { begin, end } = wav.windows[i]!;
    const samples = await wav.window(i);
    assert.deepEqual(samples, whole.subarray(begin, end), `window ${i}`);
    assert.ok(wav.heldSamples <= blockSamples, `after window ${i}: ${wav.heldSamples} samples held beyond it`);
  }
  // A window again (an engine retry): read from the start again, same samples.
  assert.deepEqual(await wav.window(1), whole.subarray(wav.windows[1]!.begin, wav.windows[1]!.end));
  await wav.close();
});

test('a file changed between planning and reading is refused with what to do', async () => {
  const file = join(dir, 'changing.wav');
  writeFileSync(file, encodeWav16(bursty(16000 * 45, 16000, 9), 16000));
  const wav = await WindowedWav.open(file, { sampleRate: 16000, maxSamples: 20 * 16000, align: 1280 });
  writeFileSync(file, encodeWav16(bursty(16000 * 30, 16000, 10), 16000));
  await assert.rejects(wav.window(0), /changed while it was being transcribed; transcribe it again/);
  await wav.close();
});
