// The Electron adapter's file dialogs (app/main/electron/platform.ts) without an Electron binary: the
// bare specifier `electron` resolves to the recording fake (test/support/fake-electron), whose dialog is
// replaced here by one that records its arguments and answers as a user would. Settings › Speakers'
// "Choose…" (the diarizer model file) and Models' "Open a model file" both reach pickModelFile through
// models:pickFile; what the adapter asks the OS for and hands back is checked.
import assert from 'node:assert/strict';
import { register } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

type FakeElectron = typeof import('../../support/fake-electron/electron.js');

const fakeDir = path.resolve('test', 'support', 'fake-electron');
const fakeUrl = pathToFileURL(path.join(fakeDir, 'electron.ts')).href;
register(pathToFileURL(path.join(fakeDir, 'hooks.mjs')), { data: { fakeUrl } });
const electron = (await import(fakeUrl)) as FakeElectron;
const { electronPlatform } = await import('../../../app/main/electron/platform.js');

interface DialogCall {
  parent: unknown;
  options: { title?: string; properties?: string[]; filters?: { name: string; extensions: string[] }[] };
}

/** The fake dialog answers `answer` and records each call (with the modal parent, when one was passed). */
function recordDialog(answer: { canceled: boolean; filePaths: string[] }): DialogCall[] {
  const calls: DialogCall[] = [];
  electron.dialog.showOpenDialog = ((...args: unknown[]) => {
    const [parent, options] = args.length === 2 ? args : [undefined, args[0]];
    calls.push({ parent, options: options as DialogCall['options'] });
    return Promise.resolve(answer);
  }) as typeof electron.dialog.showOpenDialog;
  return calls;
}

test('Choose… with no window open: one .gguf file, not modal; cancelling hands back null', async () => {
  const pick = electronPlatform().pickModelFile;
  assert.ok(pick, 'the Electron platform has a model-file dialog');
  const calls = recordDialog({ canceled: true, filePaths: [] });
  assert.equal(await pick('diarizer'), null);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].parent, undefined);
  assert.deepEqual(calls[0].options.properties, ['openFile'], 'one file, no folders, no multi-select');
  assert.ok(calls[0].options.filters?.[0].extensions.includes('gguf'), JSON.stringify(calls[0].options.filters));
});

test('Choose… with the app window open: the dialog is modal to it and the chosen path comes back as given', async () => {
  const window = new electron.BrowserWindow({ title: 'Parakeet' });
  const chosen = path.join('/home/ana/models', 'diar streaming sortformer [4spk].gguf');
  const calls = recordDialog({ canceled: false, filePaths: [chosen] });
  assert.equal(await electronPlatform().pickModelFile?.('diarizer'), chosen);
  assert.equal(calls[0].parent, window, 'modal to the app window (no window falls behind it)');
  window.destroy();
});

test('a dialog that reports success with no file hands back null, not undefined', async () => {
  recordDialog({ canceled: false, filePaths: [] });
  assert.equal(await electronPlatform().pickModelFile?.('model'), null);
});

test('the dialog says what the file is for: a speaker model (GGUF only) or a speech model (GGUF or .nemo)', async () => {
  const calls = recordDialog({ canceled: true, filePaths: [] });
  await electronPlatform().pickModelFile?.('diarizer');
  await electronPlatform().pickModelFile?.('model');
  assert.equal(calls[0].options.title, 'Choose a speaker model');
  assert.deepEqual(calls[0].options.filters?.[0].extensions, ['gguf'], 'a .nemo diarizer is not converted: not offered');
  assert.equal(calls[1].options.title, 'Import a Parakeet model');
  assert.deepEqual(calls[1].options.filters?.[0].extensions, ['gguf', 'nemo']);
});

test('models:pickFile takes no payload or { purpose: model | diarizer }, and nothing else', async () => {
  const { validatePayload } = await import('../../../app/ipc/validate.js');
  assert.deepEqual(validatePayload('models:pickFile', undefined), { ok: true, value: undefined });
  assert.deepEqual(validatePayload('models:pickFile', { purpose: 'diarizer' }), { ok: true, value: { purpose: 'diarizer' } });
  assert.deepEqual(validatePayload('models:pickFile', {}), { ok: true, value: {} });
  for (const hostile of [{ purpose: 'shell' }, { purpose: 'diarizer', path: '/etc' }, 'diarizer', JSON.parse('{"__proto__": {"purpose": "diarizer"}}') as unknown]) {
    assert.equal(validatePayload('models:pickFile', hostile).ok, false, JSON.stringify(hostile));
  }
});
