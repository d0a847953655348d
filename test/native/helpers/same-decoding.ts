// Two model files that should be the same model: the same tokens, text and timings from each head.
import assert from 'node:assert/strict';
import { Model, type DecoderName } from '../../../native/index.js';
import { ONE_THREAD } from './engine.js';

/** Loads both files, decodes `pcm` with every head of `a`, and asserts `b` gives the same tokens and text. */
export async function assertSameDecoding(a: string, b: string, pcm: Float32Array): Promise<void> {
  const left = await Model.load(a, ONE_THREAD);
  const right = await Model.load(b, ONE_THREAD);
  try {
    assert.deepEqual(right.info().decoders, left.info().decoders, 'the same heads');
    assert.equal(right.info().arch, left.info().arch);
    for (const decoder of left.info().decoders as DecoderName[]) {
      const expected = await left.transcribe(pcm, { decoder });
      const actual = await right.transcribe(pcm, { decoder });
      assert.ok(expected.tokens.length > 0, `${decoder}: the reference decodes some tokens`);
      assert.deepEqual(
        actual.tokens.map((t) => [t.id, t.frame, t.duration]),
        expected.tokens.map((t) => [t.id, t.frame, t.duration]),
        `${decoder}: same tokens, frames and durations`,
      );
      assert.equal(actual.text, expected.text, `${decoder}: same text`);
    }
  } finally {
    left.dispose();
    right.dispose();
  }
}
