// Audio input: the engine takes mono PCM at its model's rate and converts
// nothing; the app's resampler (app/shared/resample.ts, tested on its own in
// test/unit/shared/resample.test.ts) brings speech at other rates to it, and
// what the model hears then matches an independent resampler's (sox).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Model } from '../../native/index.js';
import { resample } from '../../app/shared/resample.js';
import { decodeWav } from '../../app/shared/wav.js';
import { generateModel } from '../support/model/generate.js';
import { speech } from './helpers/audio.js';
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

/** The espeak-ng clip converted by sox to `rate` Hz mono float (from `from` Hz when given: sox run twice). */
function speechAt(rate: number, from?: number): Float32Array {
  const clip = speech(dir);
  const source = from ? join(dir, `speech-${from}.wav`) : clip.rawWav;
  if (from) speechAt(from);
  const out = join(dir, from ? `speech-${from}-${rate}.wav` : `speech-${rate}.wav`);
  execFileSync('sox', [source, '-r', String(rate), '-e', 'floating-point', '-b', '32', out]);
  const d = decodeWav(new Uint8Array(readFileSync(out)));
  assert.equal(d.sampleRate, rate);
  return d.samples;
}

function relL2(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i]! - b[i]!) ** 2;
    den += b[i]! ** 2;
  }
  return Math.sqrt(num / den);
}

describe('transcribe() takes mono PCM at the model\'s rate', () => {
  test('another rate is refused with BAD_AUDIO naming both rates and what to do; the model\'s own rate is accepted', async () => {
    const m = await engine();
    const pcm = speechAt(16_000).subarray(0, 16_000 * 2);
    for (const rate of [8000, 44_100, 48_000]) {
      await rejectsWithCode(() => m.transcribe(pcm, { sampleRate: rate }), 'BAD_AUDIO', new RegExp(`${rate} Hz but the model takes mono PCM at 16000 Hz; resample it first`));
    }
    const stated = await m.transcribe(pcm, { sampleRate: 16_000 });
    const unstated = await m.transcribe(pcm);
    assert.equal(stated.text, unstated.text);
    assert.equal(stated.durationSec, 2);
  });

  // The bins compared: below ~7 kHz for 44.1 kHz (the top tenth holds the filters' different transition
  // bands); below ~3 kHz for 8 kHz audio, which has nothing above 4 kHz (log energies of near-silence differ).
  const comparedBins = { 44_100: 0.9, 8000: 0.6 } as const;
  for (const rate of [44_100, 8000] as const) {
    test(`speech at ${rate} Hz through the app's resampler: the model hears what sox's conversion of the same samples gives it (mel rel L2 < 1e-3)`, async () => {
      const m = await engine();
      const seconds = 5;
      const ours = resample(speechAt(rate).subarray(0, rate * seconds), rate, 16_000);
      const sox = speechAt(16_000, rate).subarray(0, ours.length);
      assert.equal(ours.length, 16_000 * seconds);
      const a = await m.transcribe(ours, { captureMel: true });
      const b = await m.transcribe(sox, { captureMel: true });
      // Not the first and last frames: each resampler treats the cut at 5 s its own way.
      const bins = Math.floor(a.mel!.bins * comparedBins[rate]);
      const frames = a.mel!.frames;
      const part = (x: Float32Array) => Array.from({ length: bins }, (_, f) => Array.from(x.subarray(f * frames + 10, f * frames + frames - 10))).flat();
      const error = relL2(part(a.mel!.data), part(b.mel!.data));
      console.log(`${rate} Hz speech → 16 kHz, ours vs sox: mel rel L2 ${error.toExponential(2)} (${bins} of ${a.mel!.bins} bins)`);
      assert.ok(error < 1e-3, `mel rel L2 ${error}`);
    });
  }
});
