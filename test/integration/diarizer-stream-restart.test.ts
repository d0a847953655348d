// A meeting's live speaker stream across an engine restart, as a VAD stream (vad-stream-restart.test.ts): the
// stream ended with the engine, so its later pushes fail (the meeting goes on without speakers there) and never
// reach the stream another meeting opened in the new engine (whose stream numbers start again from 1), which
// then answers exactly what a fresh stream answers for its own audio.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { EngineHost } from '../../app/main/engine/engine-host.js';
import type { DiarizerChunk } from '../../app/main/meeting/meeting-speakers.js';
import { RATE, speechLike } from '../support/audio/signals.js';
import { withEngineTriggers } from '../support/engine-triggers.js';
import { generateSortformer } from '../support/model/sortformer.js';
import { tempDir, testLogger, waitFor } from './helpers.js';

const settled = (push: Promise<DiarizerChunk>): Promise<string> =>
  push.then((chunk) => `${chunk.frames} frames`, (error: unknown) => String((error as { code?: unknown }).code));

test('after an engine restart a stale speaker stream\'s pushes fail and never feed the stream a new meeting opened', async () => {
  const dir = tempDir('diarizer-restart');
  const diarizerPath = join(dir, 'sortformer.gguf');
  generateSortformer(diarizerPath);
  const engine = withEngineTriggers();
  const host = new EngineHost({ mode: 'process', log: testLogger(dir), transport: engine.transport, restartDelaysMs: [0, 100] });
  await host.start();
  try {
    assert.ok(await host.setDiarizer(diarizerPath));
    const own = speechLike(2, 41);
    const a = host.diarizerStream()!;
    await a.push(speechLike(1, 40));
    const crashed = waitFor<unknown>((resolve) => host.on('crashed', resolve), 20_000, 'crash');
    const restarted = waitFor<unknown>((resolve) => host.on('restarted', resolve), 20_000, 'restart');
    process.kill(host.pid!, 'SIGKILL');
    await crashed;
    // While the engine restarts: the old meeting pushes on, a new one opens its stream and pushes its own audio.
    const a1 = settled(a.push(speechLike(1, 42)));
    const b = host.diarizerStream()!;
    const a2 = settled(a.push(speechLike(1, 43)));
    const b1 = b.push(own);
    await restarted;
    assert.equal(await a1, 'ENGINE_CRASHED', 'the old stream ended with the engine');
    assert.equal(await a2, 'ENGINE_CRASHED');
    await assert.rejects(a.finish(), { code: 'ENGINE_CRASHED' });
    const got = [await b1, await b.finish()];
    // A fresh stream given only the new meeting's audio answers the same, frame for frame.
    const c = host.diarizerStream()!;
    const expected = [await c.push(own), await c.finish()];
    assert.ok(got[0].frames + got[1].frames > 0, `${own.length / RATE} s gives speaker frames`);
    assert.deepEqual(got.map((chunk) => [chunk.frames, Array.from(chunk.activities)]), expected.map((chunk) => [chunk.frames, Array.from(chunk.activities)]));
    a.close();
    b.close();
    c.close();
  } finally {
    await host.dispose();
  }
});
