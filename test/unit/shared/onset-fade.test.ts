// The onset fade (app/shared/onset-fade.ts): the first 16 ms of a clip cut at a Silero onset raised from 0 by a
// half cosine, a copy; applied to files only where a pad is left in front of the speech, live only to a segment
// Silero opened with its pad (not the energy VAD's, not one continuing a cap cut).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fadeInOnset, fadesFileOnsets, ONSET_FADE_MS } from '../../../app/shared/onset-fade.js';
import { onsetFade } from '../../../app/main/sessions/onset-fade-option.js';

test('fadeInOnset raises the first 16 ms from 0 by a half cosine and leaves the rest and the input as they were', () => {
  const pcm = new Float32Array(1000).fill(0.5);
  const faded = fadeInOnset(pcm, 16_000);
  const n = (ONSET_FADE_MS / 1000) * 16_000;
  assert.equal(n, 256);
  assert.equal(faded[0], 0);
  assert.ok(Math.abs(faded[128]! - 0.25) < 1e-7, `half way: half the level (${faded[128]})`);
  for (let i = 1; i < n; i++) assert.ok(faded[i]! >= faded[i - 1]!, 'rising');
  assert.deepEqual(Array.from(faded.subarray(n)), Array.from(pcm.subarray(n)));
  assert.ok(pcm.every((v) => v === 0.5), 'the input is not changed (the session keeps its audio)');
  assert.equal(fadeInOnset(pcm, 16_000, 0), pcm, 'no fade: the same array');
  assert.equal(fadeInOnset(new Float32Array(10).fill(1), 16_000).length, 10, 'a clip shorter than the fade');
});

test('where the fade applies: files keeping a pad in front of the speech; live segments Silero opened with its pad', () => {
  assert.equal(fadesFileOnsets({ padMs: 30 }), true);
  assert.equal(fadesFileOnsets({ padMs: 0 }), false, 'no pad: the window starts at the speech');
  assert.equal(fadesFileOnsets({ padMs: 30, trimMs: 30 }), false, 'the trim took the pad');
  assert.equal(fadesFileOnsets({ padMs: 300, trimMs: 250 }), true);
  assert.deepEqual(onsetFade(true, 1000, 1480), { onsetFadeMs: ONSET_FADE_MS });
  assert.deepEqual(onsetFade(true, 1480, 1480), {}, 'a segment continuing a cap cut, or no pad');
  assert.deepEqual(onsetFade(false, 1000, 5800), {}, 'the energy VAD');
});
