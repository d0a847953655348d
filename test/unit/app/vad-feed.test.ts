// VadFeed: a live source's audio to the engine's trained VAD and its verdicts to the Segmenter, in push
// order; a failed VAD stream hands the source to the energy VAD, once, without an error escaping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Segmenter, type SegmentEvent } from '../../../app/main/sessions/segmenter.js';
import { VadFeed, type SessionVad } from '../../../app/main/sessions/vad-feed.js';

const RATE = 16000;
const WINDOW = 512;

function externalSegmenter(): Segmenter {
  return new Segmenter({ sampleRate: RATE, pauseMs: 600, maxSegmentSec: 15, preRollMs: 300, thresholdDb: 10, detector: 'external', windowMs: 32 });
}

test('a later push that fails before an earlier one is answered (the stream closed by a VAD switch) is no unhandled rejection: the earlier verdicts apply, then the energy VAD takes over', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    let call = 0;
    const vad: SessionVad = {
      // The first push is still being computed when the second is refused (the engine closed the stream).
      push: (pcm) => (++call === 1
        ? sleep(30).then(() => new Float32Array(pcm.length / WINDOW).fill(0.9))
        : Promise.reject(new Error('no open VAD stream 1'))),
      close: () => undefined,
    };
    const segmenter = externalSegmenter();
    const events: SegmentEvent[] = [];
    const fallbacks: string[] = [];
    const feed = new VadFeed(segmenter, vad, (e) => events.push(...e), (reason) => fallbacks.push(reason));
    for (let i = 0; i < 2; i++) {
      const pcm = new Float32Array(8 * WINDOW);
      segmenter.push(pcm);
      feed.push(pcm);
    }
    await feed.drained();
    await sleep(10);  // past the process's unhandled-rejection check
    assert.deepEqual(unhandled, []);
    assert.equal(events[0]?.type, 'open', 'the first push\'s verdicts were applied');
    assert.equal(fallbacks.length, 1);
    assert.match(fallbacks[0]!, /no open VAD stream 1.*energy VAD takes over/);
    assert.equal(segmenter.usesExternalDetector, false);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
