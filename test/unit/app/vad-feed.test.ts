// VadFeed: a live source's audio to the engine's trained VAD and its verdicts to the Segmenter, in push
// order; a failed VAD stream hands the source to the energy VAD, once, without an error escaping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Segmenter, type SegmentEvent } from '../../../app/main/sessions/segmenter.js';
import { MAX_REOPENS, vadFallbackMessage, VadFeed, type SessionVad } from '../../../app/main/sessions/vad-feed.js';

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

/**
 * A stand-in for an engine VAD stream: one probability per 512 samples (0.9 where the chunk is loud, 0.05
 * where quiet), the remainder kept for the next push, as the engine's stream does; `failAt`: the push (1-based)
 * from which it fails, as a stream does once its engine died.
 */
function chunkVad(opened: SessionVad[], failAt = Infinity, delayMs = 2): SessionVad {
  let pending = new Float32Array(0);
  let calls = 0;
  const stream: SessionVad = {
    push: async (pcm) => {
      await sleep(delayMs);
      if (++calls >= failAt) throw Object.assign(new Error('the VAD stream ended with the engine, which restarted'), { code: 'ENGINE_CRASHED' });
      const all = new Float32Array(pending.length + pcm.length);
      all.set(pending);
      all.set(pcm, pending.length);
      const n = Math.floor(all.length / WINDOW);
      const probs = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        let peak = 0;
        for (let j = i * WINDOW; j < (i + 1) * WINDOW; j++) peak = Math.max(peak, Math.abs(all[j]!));
        probs[i] = peak > 0.1 ? 0.9 : 0.05;
      }
      pending = all.slice(n * WINDOW);
      return probs;
    },
    close: () => undefined,
  };
  opened.push(stream);
  return stream;
}

/** 6 s in pushes of 300 samples (not on the 512-sample chunks): silence, 1.5 s of loud audio, silence, 1 s loud, silence. */
function dictationPushes(): Float32Array[] {
  const audio = new Float32Array(6 * RATE);
  for (const [from, to] of [[1, 2.5], [4, 5]] as const) for (let i = from * RATE; i < to * RATE; i++) audio[i] = 0.3 * Math.sin(i / 5);
  const pushes: Float32Array[] = [];
  for (let at = 0; at < audio.length; at += 300) pushes.push(audio.subarray(at, Math.min(audio.length, at + 300)));
  return pushes;
}

/** The events of one source fed `pushes`, with the stream `first` and, when it fails, `reopen`'s streams. */
async function feedAll(first: SessionVad, reopen?: () => SessionVad | null): Promise<{ events: SegmentEvent[]; reports: string[]; fellBack: string[]; external: boolean }> {
  const segmenter = externalSegmenter();
  const events: SegmentEvent[] = [];
  const reports: string[] = [];
  const fellBack: string[] = [];
  const store: Float32Array[] = [];
  let stored = 0;
  const feed = new VadFeed(segmenter, first, (e) => events.push(...e), (what, fallback) => {
    reports.push(what);
    if (fallback) fellBack.push(fallback.cause);
  }, reopen && {
    open: reopen,
    audio: (from, to) => {
      const all = new Float32Array(stored);
      let at = 0;
      for (const pcm of store) all.set(pcm, (at += pcm.length) - pcm.length);
      return all.slice(from, to);
    },
  });
  for (const pcm of dictationPushes()) {
    store.push(pcm);
    stored += pcm.length;
    events.push(...segmenter.push(pcm));
    feed.push(pcm);
    await sleep(0);
  }
  await feed.drained();
  events.push(...segmenter.finish());
  feed.close();
  return { events, reports, fellBack, external: segmenter.usesExternalDetector };
}

test('a VAD stream that fails mid-dictation (the engine restarted) is replaced: the new one gets the undecided audio again and the segments are those of an unbroken stream', async () => {
  const unbroken = await feedAll(chunkVad([]));
  assert.ok(unbroken.events.filter((e) => e.type === 'open').length === 2, 'two segments in the reference run');
  const opened: SessionVad[] = [];
  // The first stream fails from its 120th push on (2.25 s in, inside the first loud stretch), with pushes in flight.
  const broken = await feedAll(chunkVad(opened, 120), () => chunkVad(opened));
  assert.equal(opened.length, 2, 'one new stream');
  assert.equal(broken.external, true, 'Silero still decides: no energy VAD');
  assert.deepEqual(broken.events, unbroken.events);
  assert.equal(broken.reports.length, 1);
  assert.match(broken.reports[0]!, /stream failed .*a new one takes over from 2\.\d\d s/);
});

test('when no new VAD stream can be opened (Silero unloaded) or streams keep failing, the energy VAD takes over, saying so once', async () => {
  const none = await feedAll(chunkVad([], 50), () => null);
  assert.equal(none.external, false);
  assert.equal(none.reports.length, 1);
  assert.match(none.reports[0]!, /energy VAD takes over/);

  const opened: SessionVad[] = [];
  const failing = await feedAll(chunkVad(opened, 50), () => chunkVad(opened, 1));
  assert.equal(opened.length, 1 + MAX_REOPENS, `at most ${MAX_REOPENS} streams replace a failing one`);
  assert.equal(failing.external, false);
  assert.equal(failing.reports.filter((r) => /energy VAD takes over/.test(r)).length, 1);
  assert.deepEqual(failing.fellBack, ['the VAD stream ended with the engine, which restarted'], 'the fallback is flagged with its cause (the source tells the user)');
  assert.equal(vadFallbackMessage('dictation', failing.fellBack[0]!),
    'Silero voice detection stopped (the VAD stream ended with the engine, which restarted): the energy detector cuts the rest of this dictation ' +
    'and may turn noise into words. The next dictation uses Silero again if the engine still runs it (Devices shows the detector in use).');
});

test('streams that fail now and then, each after deciding audio (engine restarts, VAD reloads spread over a long meeting), are replaced every time: Silero decides to the end', async () => {
  const unbroken = await feedAll(chunkVad([]));
  const opened: SessionVad[] = [];
  // Every stream fails on its 15th push: far more failures than MAX_REOPENS, each after verdicts.
  const flaky = await feedAll(chunkVad(opened, 15), () => chunkVad(opened, 15));
  assert.ok(opened.length > 2 * MAX_REOPENS, `${opened.length} streams`);
  assert.equal(flaky.external, true, 'no energy VAD');
  assert.deepEqual(flaky.fellBack, []);
  assert.deepEqual(flaky.events, unbroken.events);
});
