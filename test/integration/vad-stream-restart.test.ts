// A live source's Silero stream across an engine restart: the stream ended with the engine, so the source's
// later pushes fail (it goes on with the energy VAD) — they never reach the stream another source opened in
// the new engine (stream numbers start again there), whose state and chunking stay its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineHost } from '../../app/main/engine/engine-host.js';
import { builtVadPath } from '../../app/main/vad/bundled-silero.js';
import { withEngineTriggers } from '../support/engine-triggers.js';
import { tempDir, testLogger, waitFor } from './helpers.js';

/** What a push came to: its chunk count, or the code it failed with (handled at once, as VadFeed does). */
const settled = (push: Promise<Float32Array>): Promise<string> =>
  push.then((probs) => `${probs.length} chunks`, (error: unknown) => String((error as { code?: unknown }).code));

test('after an engine restart a stale VAD stream\'s pushes fail and never feed the stream a new source opened', async () => {
  const dir = tempDir('vad-restart');
  const engine = withEngineTriggers();
  const host = new EngineHost({ mode: 'process', log: testLogger(dir), transport: engine.transport, restartDelaysMs: [0, 100] });
  await host.start();
  try {
    assert.equal((await host.setVad(builtVadPath())).kind, 'silero');
    const a = host.vadStream()!;
    assert.equal((await a.push(new Float32Array(512))).length, 1);
    const crashed = waitFor<unknown>((resolve) => host.on('crashed', resolve), 20_000, 'crash');
    const restarted = waitFor<unknown>((resolve) => host.on('restarted', resolve), 20_000, 'restart');
    process.kill(host.pid!, 'SIGKILL');
    await crashed;
    // While the engine restarts: the old source pushes on, a new source opens its stream and pushes.
    const a1 = settled(a.push(new Float32Array(300)));
    const b = host.vadStream()!;
    const a2 = settled(a.push(new Float32Array(300)));
    const b1 = b.push(new Float32Array(300));
    await restarted;
    assert.match(String(await a1), /ENGINE_CRASHED/, 'the old stream ended with the engine');
    assert.match(String(await a2), /ENGINE_CRASHED/);
    assert.equal((await b1).length, 0, 'the new stream holds only its own 300 samples: no chunk complete');
    assert.equal((await b.push(new Float32Array(212))).length, 1);
    a.close();
    b.close();
  } finally {
    await host.dispose();
  }
});
