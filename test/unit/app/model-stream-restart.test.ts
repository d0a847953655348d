// A streaming model's streams across an engine restart (EngineHost with a scripted engine): the new engine
// numbers its streams from 1 again, so a segment stream opened before the crash must not reach the stream
// of that number on the new engine (its audio typed into another segment's text, or that stream closed):
// its feed fails with ENGINE_CRASHED (the session decodes the segment offline) and its close sends nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngineHost } from '../../../app/main/engine/engine-host.js';
import type { HostToEngine } from '../../../app/engine-process/protocol.js';
import type { TransportHandlers } from '../../../app/main/engine/transport.js';
import { nullLogger } from '../../../app/main/log.js';
import { scriptedTransport } from '../../support/scripted-engine.js';

test('a stream of an engine that died never reaches the new engine\'s stream of the same number', async () => {
  const seen: string[] = [];
  let life = 0;
  let current: TransportHandlers | null = null;
  const transport = scriptedTransport(({ post, handlers }) => {
    const mine = ++life;
    current = handlers;
    let next = 1;
    return (m: HostToEngine) => {
      switch (m.op) {
        case 'load':
          seen.push(`${mine} load`);
          post({ t: 'result', id: m.id, ok: true, value: {
            path: m.path, name: 'scripted', sampleRate: 16_000, hopLength: 160, subsamplingFactor: 8, frameSec: 0.08, threads: 2,
            streaming: true, device: { device: { name: 'CPU', type: 'cpu' } }, loadMs: 1,
          } });
          return;
        case 'streamBegin':
          post({ t: 'result', id: m.id, ok: true, value: { handle: next++, info: { phrasesRejected: [] }, chunkAudioMs: 160 } });
          return;
        case 'streamFeed':
        case 'streamEnd':
        case 'streamClose':
          seen.push(`${mine} ${m.op} ${m.handle}`);
          post({ t: 'result', id: m.id, ok: true, value: m.op === 'streamClose' ? null : [] });
          return;
        default:
          post({ t: 'result', id: m.id, ok: true, value: null });
      }
    };
  });
  const host = new EngineHost({ mode: 'inline', log: nullLogger, transport, restartDelaysMs: [0] });
  try {
    await host.start();
    await host.loadModel('/eou.gguf');
    const before = await host.streamBegin({});
    await host.streamFeed(before.handle, new Float32Array(160));
    current!.exit({ code: null, signal: 'SIGSEGV' });
    for (let i = 0; i < 200 && !seen.includes('2 load'); i++) await sleep(5);
    assert.ok(seen.includes('2 load'), 'the engine restarted with the model');
    const after = await host.streamBegin({});
    assert.notEqual(after.handle, before.handle, 'the numbers given out stay unique across engines');
    await assert.rejects(host.streamFeed(before.handle, new Float32Array(160)), (e: { code?: string }) => e.code === 'ENGINE_CRASHED');
    await host.streamClose(before.handle);
    await host.streamFeed(after.handle, new Float32Array(160));
    await host.streamEnd(after.handle);
    assert.deepEqual(seen.filter((s) => s.startsWith('2 ')), ['2 load', '2 streamFeed 1', '2 streamEnd 1'], 'the new engine heard only its own stream');
  } finally {
    await host.dispose();
  }
});
