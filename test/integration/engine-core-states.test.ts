// The engine process runs dictation and file jobs on separate states of the
// resident model: a PCM decode and a file window sent at the same time both
// finish (one state each; on one state the second would be BUSY), with the
// same tokens as when they run one after the other.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { encodeWav16 } from '../../app/shared/wav.js';
import { generateModel } from '../support/model/generate.js';
import { EngineCoreClient } from '../support/engine-core-client.js';
import { speechLike } from '../support/audio/signals.js';
import { tempDir } from './helpers.js';

const dir = tempDir('engine-core-states');
const modelPath = join(dir, 'model.gguf');
generateModel(modelPath, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 4 });
const engine = new EngineCoreClient();
after(() => engine.dispose());

test('a dictation decode and a file window run at the same time on their own states', async () => {
  await engine.request({ op: 'load', path: modelPath, options: { device: 'cpu', threads: 1 } });
  const wav = join(dir, 'file.wav');
  writeFileSync(wav, encodeWav16(speechLike(20, 11), 16000));
  const file = await engine.request({ op: 'fileOpen', path: wav, sampleRate: 16000, maxWindowSec: 60, align: 1280 });
  assert.equal(file.windows.length, 1);
  const chunk = speechLike(2, 12);
  const alone = {
    window: await engine.request({ op: 'fileWindow', handle: file.handle, index: 0, options: {} }),
    chunk: await engine.request({ op: 'transcribe', pcm: chunk, options: {} }),
  };
  const [window, decoded] = await Promise.all([
    engine.request({ op: 'fileWindow', handle: file.handle, index: 0, options: {} }),
    engine.request({ op: 'transcribe', pcm: chunk, options: {} }),
  ]);
  assert.deepEqual(window.tokens.map((t) => t.id), alone.window.tokens.map((t) => t.id));
  assert.deepEqual(decoded.tokens.map((t) => t.id), alone.chunk.tokens.map((t) => t.id));
  assert.ok(window.durationSec > 19 && decoded.durationSec > 1.9);
  await engine.request({ op: 'fileClose', handle: file.handle });
  // The file state is gone with the last file; a new file job makes another.
  const reopened = await engine.request({ op: 'fileOpen', path: wav, sampleRate: 16000, maxWindowSec: 60, align: 1280 });
  const again = await engine.request({ op: 'fileWindow', handle: reopened.handle, index: 0, options: {} });
  await engine.request({ op: 'fileClose', handle: reopened.handle });
  assert.deepEqual(again.tokens.map((t) => t.id), alone.window.tokens.map((t) => t.id));
});
