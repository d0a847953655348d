// Random models must not degenerate: run the float64 reference (test/reference)
// on a speech-like signal and check that greedy decoding of every head emits a
// varied token sequence mixed with blanks, and that TDT durations vary.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { referenceTranscribe } from '../../reference/index.js';
import { generateModel } from '../../support/model/generate.js';
import type { Arch, PresetName } from '../../support/model/options.js';
import { Rng } from '../../support/model/rng.js';
import { openWeightSource } from '../../support/model/weights-source.js';
import { scratchDir } from './tmp.js';

const dir = scratchDir('gguf-decodes');

/** Voiced-speech-like test signal: gliding pitch, 12 harmonics with moving formant weights, syllable envelope, a little noise. */
function speechLike(seconds: number, seed: number): Float32Array {
  const sr = 16000;
  const out = new Float32Array(Math.round(seconds * sr));
  const rng = new Rng(seed, 'speech-like');
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / sr;
    phase += (2 * Math.PI * (120 + 40 * Math.sin(2 * Math.PI * 0.7 * t) + 20 * Math.sin(2 * Math.PI * 3.1 * t))) / sr;
    const envelope = Math.sqrt(Math.max(0, Math.sin(2 * Math.PI * 2.3 * t)));
    let s = 0;
    for (let h = 1; h <= 12; h++) s += (Math.sin(h * phase) / h) * (1 + Math.sin(2 * Math.PI * (0.5 + h * 0.37) * t));
    out[i] = 0.1 * envelope * s + 0.01 * (rng.next() - 0.5);
  }
  return out;
}

const audio = speechLike(4, 1);

describe('random models decode to non-trivial token sequences', () => {
  const cases: [PresetName, Arch, number][] = [
    ['tiny', 'ctc', 7], ['tiny', 'rnnt', 7], ['tiny', 'tdt', 7], ['tiny', 'hybrid_tdt_ctc', 11], ['tiny', 'hybrid_rnnt_ctc', 11],
    ['small', 'tdt', 12345], ['small', 'rnnt', 12345], ['small', 'ctc', 12345],
  ];
  for (const [preset, arch, seed] of cases) {
    test(`${preset} ${arch} (seed ${seed})`, () => {
      const path = join(dir, `${preset}-${arch}-${seed}.gguf`);
      generateModel(path, { preset, arch, seed });
      const weights = openWeightSource(path);
      const decoders = arch.startsWith('hybrid_') ? [undefined, 'ctc' as const] : [undefined];
      for (const decoder of decoders) {
        const r = referenceTranscribe(weights, audio, decoder ? { decoder } : {});
        const frames = r.encoder.validFrames;
        const ids = r.tokens.map((t) => t.id);
        const distinct = new Set(ids).size;
        const what = `${r.decoder}: ${ids.length} tokens (${distinct} distinct) in ${frames} frames: ${JSON.stringify(r.text)}`;
        assert.ok(ids.length >= 5, what);
        assert.ok(distinct >= 4, what);
        assert.ok(distinct >= ids.length / 4, `${what}: too repetitive`);
        if (r.decoder === 'rnnt') assert.ok(ids.length < 3 * frames, `${what}: blank rarely wins`);
        else assert.ok(ids.length < frames, `${what}: no blanks`);
        if (r.decoder === 'tdt') assert.ok(new Set(r.tokens.map((t) => t.duration)).size >= 2, `${what}: constant duration`);
      }
    });
  }
});
