// Feedback next to its cause (issue 11): an import's outcome is kept for the Import control (not a banner),
// with advice about the file; "Imported …" expires; the insertion test's failure is its own text.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { importErrorText } from '../../../renderer/errors.js';
import { IMPORT_OK_MS, cancelImport, importModel, testInsert } from '../../../renderer/store/commands.js';
import * as actions from '../../../renderer/store/actions.js';
import { appStore } from '../../../renderer/store/store.js';
import { installFakeApi } from './fake-api.js';

describe('import outcome', () => {
  const fake = installFakeApi();

  test('a missing file: the error next to Import, with path advice (not "the models folder"), no banner', async () => {
    const done = importModel('/not/here.gguf');
    fake.take('models:import').resolve({ ok: false, error: { code: 'IO_ERROR', message: 'The file /not/here.gguf does not exist.' } });
    await done;
    const s = appStore.getState();
    assert.equal(s.notices.items.length, 0);
    assert.equal(s.models.importOutcome?.kind, 'error');
    assert.match(s.models.importOutcome!.text, /does not exist\. Check the path/);
    assert.doesNotMatch(s.models.importOutcome!.text, /models folder/);
    // A new try clears it at once.
    void importModel('/other.gguf');
    assert.equal(appStore.getState().models.importOutcome, null);
  });

  test('"Imported …" is shown next to Import and expires', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const done = importModel('/ok.gguf');
    fake.take('models:import').resolve({ ok: true, value: { displayName: 'My model' } });
    await new Promise((r) => setImmediate(r));
    fake.take('models:state').resolve({ ok: true, value: { installed: [], activeId: null, downloads: [] } });
    await done;
    assert.match(appStore.getState().models.importOutcome?.text ?? '', /^Imported My model\./);
    assert.equal(appStore.getState().notices.items.length, 0);
    t.mock.timers.tick(IMPORT_OK_MS);
    assert.equal(appStore.getState().models.importOutcome, null, 'gone once no longer news');
  });

  test('a .nemo import shows its conversion progress until it ends; Cancel asks main to stop it', async () => {
    const done = importModel('/home/me/finetune.nemo');
    actions.importProgressed({ path: '/home/me/finetune.nemo', fraction: 0.42 });
    actions.importProgressed({ path: '/elsewhere.nemo', fraction: 0.9 });
    assert.equal(appStore.getState().models.importProgress, 0.42, 'only the running import\'s progress');
    void cancelImport();
    fake.take('models:cancelImport').resolve({ ok: true, value: { cancelled: true } });
    fake.take('models:import').resolve({ ok: false, error: { code: 'CANCELLED', message: '/home/me/finetune.nemo: the import was cancelled' } });
    await done;
    const s = appStore.getState();
    assert.equal(s.models.importing, null);
    assert.equal(s.models.importProgress, null);
    assert.match(s.models.importOutcome?.text ?? '', /cancelled/);
  });

  test('the insertion test answers with its own result', async () => {
    const pending = testInsert();
    fake.take('insert:test').resolve({ ok: false, error: { code: 'TOOL_MISSING', message: 'xdotool is not installed.' } });
    const r = await pending;
    assert.equal(r.ok, false);
    assert.equal(appStore.getState().notices.items.length, 0, 'no banner far from the Test button');
  });

  test('advice for an unreadable file speaks of the file', () => {
    assert.match(importErrorText({ code: 'IO_ERROR', message: 'Cannot read /x.gguf: EACCES' }), /your user can read the file/);
  });
});
