// The engine process's VAD while Settings loads another Silero file: the old model keeps serving until the new
// one is ready, so a file job opened in between is cut by a Silero (as the host, still reporting Silero, told
// it) instead of silently by the energy VAD; a file pass running across the swap finishes on its own stream;
// the old model's live streams end at the swap; a load that fails leaves no model and says why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineVad } from '../../app/engine-process/engine-vad.js';
import { DEFAULT_VAD_SEGMENT_OPTIONS } from '../../app/shared/vad-segments.js';
import { builtVadPath } from '../../app/main/vad/bundled-silero.js';
import { ensureDigitsSet, readWav16 } from '../support/audio/digits.js';
import { concat, quiet } from '../support/audio/signals.js';

/** Two espeak-ng digit strings (real speech for Silero). */
const spoken = ensureDigitsSet('engine-vad-reload', { seed: 0x7e1d, perVoice: 2, voices: ['en-us'], minWords: 3, maxWords: 4 }).items.map((item) => readWav16(item.wav).samples);

test('a file pass opened while another Silero loads gets the loaded one, and finishes across the swap', async () => {
  const vad = new EngineVad();
  try {
    assert.equal((await vad.load(builtVadPath())).kind, 'silero');
    const live = vad.open().stream;
    const before = vad.filePass(DEFAULT_VAD_SEGMENT_OPTIONS);
    assert.ok(before, 'a file pass with the model loaded');
    await before.push(concat(quiet(1, 1), spoken[0]!));
    const loading = vad.load(builtVadPath());
    const during = vad.filePass(DEFAULT_VAD_SEGMENT_OPTIONS);
    assert.ok(during, 'a file opened while the next Silero loads is still cut by Silero');
    await during.push(concat(quiet(0.5, 3), spoken[1]!, quiet(0.5, 4)));
    assert.equal((await loading).kind, 'silero');
    await assert.rejects(vad.push(live, new Float32Array(512)), { code: 'NOT_FOUND' }, 'the old model\'s live streams ended at the swap');
    await before.push(quiet(0.5, 5));
    for (const pass of [before, during]) {
      const { segments } = await pass.finish();
      assert.equal(segments.length, 1, 'each pass finds its one digit string');
      pass.dispose();
    }
  } finally {
    vad.dispose();
  }
});

test('a Silero load that fails leaves no model: no file pass, the status says why', async () => {
  const vad = new EngineVad();
  try {
    await vad.load(builtVadPath());
    await assert.rejects(vad.load('/nonexistent/silero.gguf'));
    assert.equal(vad.filePass(DEFAULT_VAD_SEGMENT_OPTIONS), null);
    const status = vad.current();
    assert.equal(status.kind, 'energy');
    assert.match(status.kind === 'energy' ? status.reason : '', /could not be loaded/);
  } finally {
    vad.dispose();
  }
});
