// A file job's Silero pass (vad-file-pass.ts) runs over the blocks the window planner reads: the file is
// opened once to plan, the pass holds probabilities and hop energies (never the samples), and what it finds
// is what one pass over the whole clip in memory finds — the same segments, the same windows in the
// whole file's timeline. Then through the engine process's handler (EngineCore, the real addon): fileOpen
// with the VAD opens the file once to plan and returns those windows.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { VadModel } from '../../native/index.js';
import { hopEnergiesOf } from '../../app/engine-process/hop-energies.js';
import { planSpeechWindows } from '../../app/engine-process/speech-windows.js';
import { VadFilePass } from '../../app/engine-process/vad-file-pass.js';
import { WindowedWav } from '../../app/engine-process/windowed-wav.js';
import { bundledVadModel } from '../../app/main/vad/bundled-silero.js';
import { speechSegments, type VadSegmentOptions } from '../../app/shared/vad-segments.js';
import { REPO_ROOT, readWav16, writeWav16 } from '../support/audio/digits.js';
import { gappedDigits } from '../support/audio/gapped-digits.js';
import { EngineCoreClient } from '../support/engine-core-client.js';
import { scratchDir } from './helpers/tmp.js';

const RATE = 16000;
const dir = scratchDir('silero-file-pass');
const OPTIONS: VadSegmentOptions = { threshold: 0.5, minSpeechMs: 250, minSilenceMs: 300, padMs: 0 };
const MAX_SAMPLES = 8 * RATE;
const ALIGN = 1280;
const clip = gappedDigits(12, 0x7e57);
const wav = join(dir, 'gapped.wav');
writeWav16(wav, clip.pcm);
// The file as the reader gives it back (16-bit): the samples every pass sees.
const { samples: pcm } = readWav16(wav);
const vadPath = await bundledVadModel(join(REPO_ROOT, '.cache', 'vad'), REPO_ROOT);
const model = await VadModel.load(vadPath);
after(() => model.dispose());

/** fs.open calls on `path` while `run` runs (the reader opens the file through node:fs/promises). */
async function opensOf<T>(path: string, run: () => Promise<T>): Promise<{ result: T; opens: number }> {
  const real = fs.open;
  let opens = 0;
  fs.open = ((file: Parameters<typeof fs.open>[0], ...rest: unknown[]) => {
    if (String(file) === path) opens += 1;
    return (real as (...a: unknown[]) => ReturnType<typeof fs.open>)(file, ...rest);
  }) as typeof fs.open;
  try {
    return { result: await run(), opens };
  } finally {
    fs.open = real;
  }
}

/** The reference: the whole clip through one stream, its segments and windows. */
async function wholeClip(): Promise<{ segments: ReturnType<typeof speechSegments>; windows: ReturnType<typeof planSpeechWindows> }> {
  const stream = model.createStream(RATE);
  const probs = Float32Array.from([...await stream.process(pcm), ...await stream.flush()]);
  const chunk = stream.chunkSamples;
  stream.dispose();
  const segments = speechSegments(probs, chunk, RATE, pcm.length, OPTIONS);
  return { segments, windows: planSpeechWindows(hopEnergiesOf(pcm, RATE), segments, RATE, MAX_SAMPLES, ALIGN) };
}

test('the VAD runs over the planning pass\'s blocks: one read, no samples held, the whole clip\'s segments and windows', async () => {
  const pass = new VadFilePass(model.createStream(RATE), RATE, OPTIONS);
  let largestBlock = 0;
  let mostHeld = 0;
  const blockBytes = 64 * 1024;
  const { result: file, opens } = await opensOf(wav, () => WindowedWav.open(wav, {
    sampleRate: RATE, maxSamples: MAX_SAMPLES, align: ALIGN, blockBytes,
    onBlock: async (block) => {
      largestBlock = Math.max(largestBlock, block.length);
      await pass.push(block);
      mostHeld = Math.max(mostHeld, pass.heldBytes);
    },
  }));
  assert.equal(opens, 1, 'the file is opened once to plan');
  assert.equal(file.readPasses, 1);
  assert.ok(largestBlock <= blockBytes / 2, `blocks of ${largestBlock} samples`);
  // 800 bytes of hop energies and 125 of probabilities a second against 64,000 of samples, with up to
  // twice that while the energies' array grows: under 5 % of the samples, however long the file.
  assert.ok(mostHeld < (pcm.length * 4) / 20, `the pass held ${mostHeld} bytes for ${pcm.length * 4} bytes of samples`);
  const { segments, energies } = await pass.finish();
  const reference = await wholeClip();
  assert.ok(reference.segments.length >= 6, `${reference.segments.length} segments for 12 strings`);
  assert.deepEqual(segments, reference.segments);
  assert.deepEqual(planSpeechWindows(energies, segments, RATE, MAX_SAMPLES, ALIGN), reference.windows);
  // Every spoken word lies inside a window, at its time in the whole file.
  for (const w of clip.words) {
    const mid = Math.round(((w.start + w.end) / 2) * RATE);
    assert.ok(reference.windows.some((r) => r.begin <= mid && mid < r.end), `"${w.text}" at ${w.start.toFixed(2)} s is in no window`);
  }
  await file.close();
});

test('fileOpen with the VAD: the file opened once to plan, windows as planned over the whole clip, read back in order', async () => {
  const client = new EngineCoreClient();
  try {
    await client.request({ op: 'vadLoad', path: vadPath });
    const { result: opened, opens } = await opensOf(wav, () => client.request({
      op: 'fileOpen', path: wav, sampleRate: RATE, maxWindowSec: MAX_SAMPLES / RATE, align: ALIGN, vad: OPTIONS,
    }));
    assert.equal(opens, 1, 'fileOpen read the file once (before: once to plan, once more for the VAD)');
    // With no pad in front of the speech (padMs 0) the engine fades no onset, so its windows carry no onset flag.
    assert.deepEqual(opened.windows, (await wholeClip()).windows.map(({ onset: _onset, ...w }) => w));
    assert.equal(opened.samples, pcm.length);
    assert.deepEqual(opened.speechCut, { detector: 'silero', model: 'Silero VAD v6.2 (F32)' }, 'what cut the file, for its result and History');
    await client.request({ op: 'fileClose', handle: opened.handle });
    // Asked for the VAD when none is loaded any more (Settings switched to energy meanwhile): the energy planner, said so.
    await client.request({ op: 'vadLoad', path: null });
    const plain = await client.request({ op: 'fileOpen', path: wav, sampleRate: RATE, maxWindowSec: MAX_SAMPLES / RATE, align: ALIGN, vad: OPTIONS });
    assert.deepEqual(plain.speechCut, { detector: 'energy' });
    assert.equal(plain.windows.reduce((n, w) => n + w.end - w.begin, 0), pcm.length, 'the whole file windowed');
    await client.request({ op: 'fileClose', handle: plain.handle });
  } finally {
    client.dispose();
  }
});
