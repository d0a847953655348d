// app:diagnostics through the real services (engine process, tiny generated
// model): after a dictation and a file transcription, the report names the
// devices and the ggml build and holds none of the transcripts' words. The
// model's vocabulary is made of invented words ("quokkab", "quokkac", …), so
// any transcript text that leaked into the report would be found.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { DiagnosticsReport } from '../../app/ipc/contract.js';
import { collectDiagnostics } from '../../app/main/diagnostics/collect.js';
import type { Services } from '../../app/main/services.js';
import { encodeWav16 } from '../../app/shared/wav.js';
import { gv } from '../support/gguf/index.js';
import { buildModelSpec, writeModelSpec } from '../support/model/generate.js';
import { WORD_START } from '../support/model/index.js';
import { RATE, concat, quiet, speechLike } from '../support/audio/signals.js';
import { dictate, startTestServices, tempDir, writeTestSettings } from './helpers.js';

const MARK = 'quokka';
const dir = tempDir('diagnostics');

/** The tiny model with every piece a word of its own that appears nowhere else: MARK + letters. */
function markedModel(): string {
  const spec = buildModelSpec({ preset: 'tiny', arch: 'tdt', weightType: 'f32', seed: 3 });
  const letters = (i: number): string => (i < 26 ? '' : letters(Math.floor(i / 26) - 1)) + String.fromCharCode(97 + (i % 26));
  const pieces = spec.pieces.map((_, i) => `${WORD_START}${MARK}${letters(i)}`);
  const kv = spec.kv.map((e) => (e.key === 'parakeet.tokenizer.pieces' ? { ...e, value: gv.arrStr(pieces) } : e));
  const path = join(dir, 'marked.gguf');
  writeModelSpec(path, { ...spec, kv });
  return path;
}

let services: Services;
let spoken = '';

before(async () => {
  writeTestSettings(dir);
  services = await startTestServices(dir, markedModel());
  const audio = concat(quiet(0.3, 1), speechLike(1.2, 2), quiet(0.9, 3), speechLike(0.8, 4), quiet(0.4, 5));
  const summary = await dictate(services, audio, 2);
  const wav = join(dir, 'speech.wav');
  writeFileSync(wav, encodeWav16(audio, RATE));
  const file = await services.files.transcribe(wav);
  await services.history.settled();
  spoken = `${summary.text} ${file.text}`;
});
after(async () => {
  await services.dispose();
});

async function report(): Promise<DiagnosticsReport> {
  const result = await services.router.handle('app:diagnostics', undefined, { clientId: 'test' });
  assert.ok(result.ok, JSON.stringify(result));
  return result.value as DiagnosticsReport;
}

test('the report holds no transcript text, only the history count', async () => {
  assert.match(spoken, new RegExp(MARK), `the transcripts should hold the model's words: "${spoken}"`);
  const { text, data } = await report();
  assert.doesNotMatch(text, new RegExp(MARK, 'i'));
  assert.doesNotMatch(JSON.stringify(data), new RegExp(MARK, 'i'));
  assert.equal(data.history.entries, 2);
  assert.match(text, /entries: 2/);
});

test('the report names the devices, the ggml build, the model and the settings', async () => {
  const { text, data } = await report();
  const build = services.engine.buildInfo;
  assert.ok(build);
  assert.equal(data.engine.ggml?.commit, build.ggmlCommit);
  assert.ok(text.includes(`commit ${build.ggmlCommit}`));
  assert.ok(data.devices.devices.some((d) => d.name === 'CPU'));
  for (const device of data.devices.devices) assert.ok(text.includes(`${device.name} (${device.type}, backend ${device.backend})`));
  assert.match(text, /features: /);
  assert.equal(data.engine.status.model?.arch, services.engine.loadedModel?.arch);
  assert.match(text, /dims: d_model \d+/);
  assert.match(text, /load time: \d+ ms/);
  assert.deepEqual(data.settings, services.settings.get());
  assert.ok(data.log.lines.length > 0 && data.log.lines.length <= 200);
  assert.ok(data.log.lines.some((l) => l.includes('model loaded')));
  assert.ok(data.system.cpuCount > 0 && data.system.totalMemoryBytes > 0);
});

test('home-folder paths become ~', async () => {
  // The scratch folder stands in for the home folder: every path in the report lies under it.
  const { text, data } = await collectDiagnostics(services, { homeDir: dir });
  assert.ok(!text.includes(dir));
  assert.ok(!JSON.stringify(data).includes(dir));
  assert.equal(data.log.file, join('~', 'logs', 'main.log'));
  assert.equal(data.engine.status.model?.path, join('~', 'marked.gguf'));
});
