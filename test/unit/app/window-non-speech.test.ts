// Files with the trained VAD and a vocabulary (issue 45's gating, vocab2's leftover): each window's
// non-speech is what the VAD did not call speech — the padding around its segments and a pause inside a
// window — less the 0.2 s margin on the speech side; a window cut inside speech has none at that edge. The
// file pass reports the unpadded speech beside the padded segments it plans windows from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VadStream } from '../../../native/index.js';
import { VadFilePass } from '../../../app/engine-process/vad-file-pass.js';
import { windowNonSpeech } from '../../../app/engine-process/window-non-speech.js';

const RATE = 16_000;
const at = (sec: number): number => Math.round(sec * RATE);
const close = (actual: { start: number; end: number }[], expected: [number, number][]): void => {
  assert.equal(actual.length, expected.length, JSON.stringify(actual));
  actual.forEach((r, i) => {
    assert.ok(Math.abs(r.start - expected[i]![0]) < 1e-9 && Math.abs(r.end - expected[i]![1]) < 1e-9, `${JSON.stringify(r)} ≠ ${expected[i]}`);
  });
};

test('a padded window: the padding on both sides, less the margin toward the speech, in seconds from the window\'s start', () => {
  close(windowNonSpeech({ begin: at(2), end: at(3.6) }, [{ start: at(2.3), end: at(3.3) }], RATE), [[0, 0.1], [1.5, 1.6]]);
});

test('two segments in one window: the pause between them too; padding under the margin gives nothing', () => {
  const speech = [{ start: at(0.3), end: at(0.8) }, { start: at(1.5), end: at(2) }];
  close(windowNonSpeech({ begin: 0, end: at(2.3) }, speech, RATE), [[0, 0.1], [1, 1.3], [2.2, 2.3]]);
  close(windowNonSpeech({ begin: 0, end: at(2.1) }, [{ start: at(0.15), end: at(2) }], RATE), []);
});

test('a window cut inside a long segment has no non-speech at the cut; segments outside the window are ignored', () => {
  const speech = [{ start: 0, end: at(0.5) }, { start: at(1), end: at(30) }, { start: at(40), end: at(41) }];
  close(windowNonSpeech({ begin: at(5), end: at(20) }, speech, RATE), []);
  close(windowNonSpeech({ begin: at(20), end: at(30.5) }, speech, RATE), [[10.2, 10.5]]);
});

/** A VAD stream that says speech exactly where `speechChunks` says (one probability per 512-sample chunk). */
function scriptedStream(speechChunks: boolean[]): VadStream {
  let given = 0;
  let buffered = 0;
  return {
    chunkSamples: 512,
    process: async (pcm: Float32Array) => {
      buffered += pcm.length;
      const n = Math.floor(buffered / 512);
      buffered -= n * 512;
      const probs = Float32Array.from(speechChunks.slice(given, given + n), (s) => (s ? 0.9 : 0.05));
      given += n;
      return probs;
    },
    flush: async () => new Float32Array(0),
    dispose: () => undefined,
  } as unknown as VadStream;
}

test('the file pass reports the unpadded speech beside the padded segments the windows come from', async () => {
  // 0.64 s quiet, 1.28 s speech, 0.96 s quiet (chunks of 32 ms).
  const chunks = [...Array(20).fill(false), ...Array(40).fill(true), ...Array(30).fill(false)] as boolean[];
  const pass = new VadFilePass(scriptedStream(chunks), RATE, { threshold: 0.5, minSpeechMs: 250, minSilenceMs: 300, padMs: 200 });
  await pass.push(new Float32Array(chunks.length * 512));
  const { segments, speech } = await pass.finish();
  assert.deepEqual(speech, [{ start: 20 * 512, end: 60 * 512 }]);
  assert.deepEqual(segments, [{ start: 20 * 512 - at(0.2), end: 60 * 512 + at(0.2) }]);
  // A window over the padded segment: its padding is under the margin, so nothing is non-speech there.
  close(windowNonSpeech({ begin: segments[0]!.start, end: segments[0]!.end }, speech, RATE), []);
});
